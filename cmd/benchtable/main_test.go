package main

import (
	"strings"
	"testing"
)

func TestTable(t *testing.T) {
	in := `goos: linux
pkg: ratebench/algorithms
BenchmarkDecide/counter-2   	45616052	        25.00 ns/op	         0.9805 admit/op	       0 B/op	       0 allocs/op
BenchmarkReplay/x-2   	2	 651197595 ns/op	 1610231 req/s
PASS
`
	var out strings.Builder
	if err := table(&out, strings.NewReader(in)); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{
		"| benchmark | ns/op | admit/op | B/op | allocs/op | ops/s | req/s |",
		"| ratebench/algorithms.Decide/counter-2 | 25.00 | 0.9805 | 0 | 0 | 40M |  |",
		"| ratebench/algorithms.Replay/x-2 | 651197595 |  |  |  |  | 1610231 |",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("table lacks %q:\n%s", want, got)
		}
	}
	if err := table(&out, strings.NewReader("PASS\n")); err == nil {
		t.Error("no results accepted")
	}
}
