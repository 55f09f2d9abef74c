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

// A package with a Floor benchmark gets each req/s as a multiple of the
// floor's; other packages' rows do not.
func TestTableFloorRatios(t *testing.T) {
	in := `pkg: ratebench/compare
BenchmarkFloor-2   	1	 640150822 ns/op	 0.8512 admit/op	 3124278 req/s
BenchmarkReplayCSV/log+counter/independent/workers=1-2   	1	2949455374 ns/op	 678092 req/s	176925472 B/op	 654963 allocs/op
BenchmarkReplayCSV/log+counter/independent/workers=2-2   	1	1899228526 ns/op	 1053060 req/s	182500208 B/op	 656601 allocs/op
pkg: ratebench/traces
BenchmarkRead/csv-2   	1	 100 ns/op	 5000000 req/s
`
	var out strings.Builder
	if err := table(&out, strings.NewReader(in)); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{
		"| benchmark | ns/op | admit/op | req/s | B/op | allocs/op | × floor |",
		"| ratebench/compare.Floor-2 | 640150822 | 0.8512 | 3124278 |  |  | 1.00 |",
		"| ratebench/compare.ReplayCSV/log+counter/independent/workers=1-2 | 2949455374 |  | 678092 | 176925472 | 654963 | 0.22 |",
		"| ratebench/compare.ReplayCSV/log+counter/independent/workers=2-2 | 1899228526 |  | 1053060 | 182500208 | 656601 | 0.34 |",
		"| ratebench/traces.Read/csv-2 | 100 |  | 5000000 |  |  |  |",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("table lacks %q:\n%s", want, got)
		}
	}
}
