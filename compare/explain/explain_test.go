package explain

import (
	"math"
	"strings"
	"testing"

	"ratebench/compare"
)

// The span shown by default: two windows either side of the key's first
// disagreement, or the key's first four windows when there is none; only
// the requests in it are kept.
func TestExplainSpan(t *testing.T) {
	const w = 10 * 1_000_000_000
	for _, c := range []struct {
		disAt          int64 // seconds; -1: none
		wantLo, wantHi int64
	}{{50, 30, 70}, {-1, 0, 40}, {5, 0, 25}, {95, 75, 100}} {
		e := New(Options{Algorithms: []string{"x"}, W: w, MaxList: 5})
		for s := int64(0); s <= 100; s++ {
			t := 1_000_000_000_000 + s*1_000_000_000
			e.Add(compareDecision(t, s != c.disAt))
		}
		lo, hi, err := e.Span()
		if err != nil {
			t.Fatal(err)
		}
		lo, hi = (lo-1_000_000_000_000)/1_000_000_000, (hi-1_000_000_000_000)/1_000_000_000
		if lo != c.wantLo || hi != c.wantHi {
			t.Errorf("disagreement at %ds: span %d to %d s, want %d to %d", c.disAt, lo, hi, c.wantLo, c.wantHi)
		}
		if n := int64(len(e.kept)); n != c.wantHi-c.wantLo+1 {
			t.Errorf("disagreement at %ds: %d requests kept, want the %d of the span", c.disAt, n, c.wantHi-c.wantLo+1)
		}
	}
}

// compareDecision is a request at t that the log admits and the algorithm
// decides as the log if agree.
func compareDecision(t int64, agree bool) compare.KeyDecision {
	return compare.KeyDecision{T: t, Cost: 1, Log: true, Admit: []bool{agree}, Estimate: []float64{0}}
}

// A bound at the end of the time range (an absolute time, or an offset
// that overflows from the key's first request) is refused, naming the
// flag, instead of a span whose window-by-window walk never ends.
func TestSpanAtTheEndOfTime(t *testing.T) {
	const w = 30 * 1_000_000_000
	for _, from := range []string{"2262-04-11T23:47:16Z", "9223372036854775807ns", "2262-04-11T23:47:16.854775807Z"} {
		b, err := ParseBound(from)
		if err != nil {
			t.Fatalf("%s: %v", from, err)
		}
		e := New(Options{Algorithms: []string{"x"}, W: w, From: b, MaxList: 5})
		e.Add(compareDecision(1_000_000_000_000, true))
		if _, _, err := e.Span(); err == nil || !strings.Contains(err.Error(), "-from puts the span's end at 2262-04-11T23:47:16") || !strings.Contains(err.Error(), "past the latest time it can show, 2262-04-11T23:46:46.854775807Z") {
			t.Errorf("-from %s: %v", from, err)
		}
	}
	// A request near the end of the range: the default span stops a
	// window short of it, and a step of a window past the span's end is
	// still a time.
	e := New(Options{Algorithms: []string{"x"}, W: w, MaxList: 5})
	for _, at := range []int64{math.MaxInt64 - 5, math.MaxInt64 - 1, math.MaxInt64} {
		e.Add(compareDecision(at, false))
	}
	lo, hi, err := e.Span()
	if err != nil || lo > hi || hi > Latest(w) || hi+w < hi {
		t.Errorf("span %d..%d: %v", lo, hi, err)
	}
	if _, err := ParseBound("3000-01-01T00:00:00Z"); err == nil {
		t.Error("a time past the range accepted")
	}
}
