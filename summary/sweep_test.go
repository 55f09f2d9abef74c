package summary

import (
	"testing"

	"ratebench/algorithms"
)

func TestParseSweepGrid(t *testing.T) {
	t.Parallel()
	base := algorithms.Rule{L: 5, W: 30e9}
	sw, rules, err := ParseSweep("L=5,10;W=1s,1m", base)
	if err != nil || len(rules) != 4 || rules[1].String() != "10/1s" || rules[2].String() != "5/1m" || len(sw.L) != 2 || sw.W[1] != "1m" {
		t.Fatalf("ParseSweep = %+v, %v, %v", sw, rules, err)
	}
	if _, rules, _ := ParseSweep("L=100,1000", base); len(rules) != 2 || rules[1].String() != "1000/30s" {
		t.Errorf("L-only sweep: %v", rules)
	}
	for _, bad := range []string{"L=0", "W=x", "X=1", "L5", "L=5;L=6", "L=5,5", "W=60s,1m"} {
		if _, _, err := ParseSweep(bad, base); err == nil {
			t.Errorf("ParseSweep(%q) accepted", bad)
		}
	}
}
