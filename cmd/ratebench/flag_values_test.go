package main

import (
	"strings"
	"testing"

	"ratebench/algorithms"
)

func TestParseSweepGrid(t *testing.T) {
	t.Parallel()
	base := algorithms.Rule{L: 5, W: 30e9}
	sw, rules, err := parseSweep("L=5,10;W=1s,1m", base)
	if err != nil || len(rules) != 4 || rules[1].String() != "10/1s" || rules[2].String() != "5/1m" || len(sw.L) != 2 || sw.W[1] != "1m" {
		t.Fatalf("ParseSweep = %+v, %v, %v", sw, rules, err)
	}
	if _, rules, _ := parseSweep("L=100,1000", base); len(rules) != 2 || rules[1].String() != "1000/30s" {
		t.Errorf("L-only sweep: %v", rules)
	}
	for _, bad := range []string{"L=0", "W=x", "X=1", "L5", "L=5;L=6", "L=5,5", "W=60s,1m"} {
		if _, _, err := parseSweep(bad, base); err == nil {
			t.Errorf("parseSweep(%q) accepted", bad)
		}
	}
}

func TestParseShardAndClients(t *testing.T) {
	t.Parallel()
	if sh, err := parseShard(" 2/4"); err != nil || sh.Index != 2 || sh.Count != 4 {
		t.Errorf("parseShard(2/4) = %+v, %v", sh, err)
	}
	for _, bad := range []string{"4/4", "-1/2", "1", "a/b", "0/0"} {
		if _, err := parseShard(bad); err == nil {
			t.Errorf("parseShard(%q) accepted", bad)
		}
	}
	pols, err := parseClients("retry:all")
	if err != nil || len(pols) != 3 {
		t.Fatalf("retry:all: %v %v", pols, err)
	}
	if _, err := parseClients("honor"); err == nil || !strings.Contains(err.Error(), "want retry:") {
		t.Errorf("a policy without retry: %v", err)
	}
}

// An unknown mode or count policy is refused as a usage error, before any
// trace is read.
func TestUnknownModeOrCount(t *testing.T) {
	for _, tt := range []struct{ flag, value, want string }{
		{"-mode", "independent,bogus", `unknown mode "bogus" (want independent or shadow`},
		{"-count", "some", `unknown count policy "some" (want accepted or all`},
	} {
		_, _, err := ratebench(t, "compare", "-trace", "testdata/small.csv", tt.flag, tt.value, "-o", t.TempDir())
		if _, ok := err.(usageError); !ok || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s %s: %v", tt.flag, tt.value, err)
		}
	}
}
