package cloudflare

import (
	"math"
	"testing"

	"ratebench/algorithms"
)

// A population's weight against the rule: two sources over 100 s, one of
// 30 requests, one of 10, under 10/1m. Each source's mean count per window
// is its requests × 60 / 100: 18 and 6, 1.8 and 0.6 of L; averaged over
// requests, (30·1.8 + 10·0.6) / 40 = 1.5. Both are at least half of L, so
// every request is near; a third source that sends nothing weighs
// nothing.
func TestTrafficWeight(t *testing.T) {
	rule, _ := algorithms.ParseRule("10/1m")
	tr := newTraffic(3)
	for i := range 40 {
		id := int32(0)
		if i%4 == 3 {
			id = 1
		}
		if err := tr.add(id, int64(i)*100e9/39); err != nil {
			t.Fatal(err)
		}
	}
	span, load, near := tr.weight(rule)
	if span != 100 || math.Abs(load-1.5) > 1e-12 || near != 1 {
		t.Errorf("span %v, load %v, near %v; want 100, 1.5, 1", span, load, near)
	}
	if err := tr.add(3, 0); err == nil {
		t.Error("a source outside the population was counted")
	}
	if s, l, n := newTraffic(1).weight(rule); s != 0 || l != 0 || n != 0 {
		t.Errorf("no request: %v, %v, %v", s, l, n)
	}
}
