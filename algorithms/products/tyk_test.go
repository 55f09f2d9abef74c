package products_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"ratebench/algorithms"
	"ratebench/algorithms/products"
)

// tykBase is a time near 2024 in ns that a float64 holds exactly (a
// multiple of 256, the doubles' step between 2^60 and 2^61 ns).
const tykBase = int64(1_700_000_000_000_000_000) / 256 * 256

// The script's arithmetic for rate 3, per 1 (sliding_log_add.lua: trim
// what scores at most now - per, count, add now whatever the decision;
// the gateway blocks iff count > rate - 1).
func TestTykTimeline(t *testing.T) {
	l := mustNew(t, "tyk", "3/1s")
	if p := l.(algorithms.Product); p.Twin() != "log" || len(p.Deviations()) != 4 || l.Name() != "tyk" || !algorithms.CountsEvery(l) || l.FixedSize() {
		t.Fatalf("%s: twin %q, deviations %v, counts every %v", l.Name(), p.Twin(), p.Deviations(), algorithms.CountsEvery(l))
	}
	b := tykBase
	got := ownTimeline(t, "tyk", mustRule(t, "3/1s"),
		[2]int64{b, 1},                 // count 0: admitted, logged
		[2]int64{b + 100*ms, 1},        // 1: admitted
		[2]int64{b + 200*ms, 1},        // 2: admitted
		[2]int64{b + 300*ms, 1},        // 3 > 2: refused, logged all the same
		[2]int64{b + 1000*ms, 1},       // b trimmed (exactly W old): 3, refused, logged
		[2]int64{b + 1250*ms, 1},       // 100, 200 ms trimmed: 300, 1000: 2, admitted
		[2]int64{b + 1250*ms, 1},       // 300, 1000, 1250: 3, refused; its member is 1250's
		[2]int64{b + 1300*ms + 1, 1},   // 300 ms trimmed: 1000, 1250: 2 (one member at 1250), admitted
		[2]int64{b + 1301*ms, 1},       // 1000, 1250, 1300 ms + 1 ns: 3, refused
		[2]int64{b + 3000*ms, 5},       // all trimmed: 0, admitted; one member whatever the cost
		[2]int64{b + 3000*ms + 256, 5}, // 1 < 3: admitted
	)
	if want := "AAARRARARAA"; got != want {
		t.Errorf("tyk: %s, want %s", got, want)
	}
	for _, c := range []struct {
		rule string
		ok   bool
	}{{"5/1s", true}, {"10/1m", true}, {"5/1500ms", false}, {"5/500ms", false}, {"1/24h", true}} {
		r, _ := algorithms.ParseRule(c.rule)
		_, err := algorithms.New("tyk", r)
		if (err == nil) != c.ok {
			t.Errorf("tyk under %s: err %v", c.rule, err)
		}
		if err != nil && !strings.Contains(err.Error(), "whole seconds") {
			t.Errorf("tyk under %s: %v does not say why", c.rule, err)
		}
	}
	if _, err := algorithms.New("tyk:burst=3", algorithms.Rule{L: 3, W: int64(time.Second)}); err == nil {
		t.Error("tyk:burst=3 accepted")
	}
}

// Each of Tyk's deviations, alone, changes a decision of its twin, the
// log; off, the timeline is the log's.
func TestTykEachDeviationAloneChangesADecision(t *testing.T) {
	b := tykBase
	for _, c := range []struct {
		name, rule    string
		reqs          [][2]int64
		twin, product string
	}{
		// 2/1s: a request of cost 5 after one of cost 1: the log refuses
		// it (1 + 5 > 2); Tyk logs one member per request and admits it
		// as the count, 1, is below 2.
		{"one-hit", "2/1s", [][2]int64{{b, 1}, {b + ms, 5}}, "AR", "AA"},
		// 2/1s: 0 and 100 ms admitted, 200 ms refused; at 1050 ms the
		// log holds 100 ms alone and admits; Tyk logged the refused 200 ms
		// too and counts 2.
		{"counts-refused", "2/1s", [][2]int64{{b, 1}, {b + 100*ms, 1}, {b + 200*ms, 1}, {b + 1050*ms, 1}}, "AARA", "AARR"},
		// 2/1s: three requests in one nanosecond: ZADD of the same member
		// leaves the count at 1, so the third is admitted.
		{"same-ns", "2/1s", [][2]int64{{b, 1}, {b, 1}, {b, 1}}, "AAR", "AAA"},
		// 1/1s: a request 1 ns after b, another at b + 1s: exactly, the
		// first is 1 ns inside the window (b, b+1s] and the second is
		// refused; as doubles both b+1 and the window start b are b, and
		// ZREMRANGEBYSCORE -inf b trims the first.
		{"float", "1/1s", [][2]int64{{b + 1, 1}, {b + sec, 1}}, "AR", "AA"},
	} {
		others := ""
		for _, d := range []string{"one-hit", "counts-refused", "same-ns", "float"} {
			if d != c.name {
				others += ":without=" + d
			}
		}
		spec := "tyk" + others
		checkDeviation(t, func(spec string) string { return ownTimeline(t, spec, mustRule(t, c.rule), c.reqs...) }, "log", spec, c.name, c.twin, c.product)
	}
}

// The float deviation's bound: an entry is trimmed iff its double is at
// most the window start's, so up to the midpoint to the next double (the
// midpoint itself when the window start's mantissa is even).
func TestTykFloatBound(t *testing.T) {
	b := tykBase // b/256 even or odd decides the midpoint's rounding
	for _, c := range []struct {
		start, entry int64
		trimmed      bool
	}{
		{b, b, true},
		{b, b + 127, true},
		{b, b + 129, false},
		{b, b + 128, (b/256)%2 == 0}, // the midpoint rounds to the even mantissa
		{b + 256, b + 256 + 128, ((b+256)/256)%2 == 0},
		{b - 1, b, true},          // b - 1 rounds to b too
		{b - 129, b - 200, true},  // b - 129 and b - 200 round to b - 256
		{b - 129, b - 100, false}, // b - 100 rounds to b
	} {
		got := c.entry <= products.ScoreCutoff(c.start)
		want := float64(c.entry) <= float64(c.start)
		if got != want || got != c.trimmed {
			t.Errorf("window start %d, entry %d: trimmed %v, as doubles %v, want %v", c.start-b, c.entry-b, got, want, c.trimmed)
		}
	}
	rng := rand.New(rand.NewPCG(7, 7))
	for i := range 200_000 {
		var c int64
		switch i % 4 {
		case 0:
			c = rng.Int64()
		case 1:
			c = -rng.Int64()
		case 2:
			c = tykBase + rng.Int64N(1<<20) - 1<<19
		default:
			c = int64(1)<<(53+rng.IntN(10)) + rng.Int64N(4096) - 2048
		}
		x := products.ScoreCutoff(c)
		if !(float64(x) <= float64(c)) || (x < math.MaxInt64 && float64(x+1) <= float64(c)) {
			t.Fatalf("ScoreCutoff(%d) = %d: not the largest int64 whose double is at most %d's", c, x, c)
		}
	}
	if x := products.ScoreCutoff(math.MaxInt64); x != math.MaxInt64 {
		t.Errorf("ScoreCutoff(MaxInt64) = %d", x)
	}
	if x := products.ScoreCutoff(math.MinInt64); float64(x) != float64(math.MinInt64) || float64(x+1) <= float64(math.MinInt64) {
		t.Errorf("ScoreCutoff(MinInt64) = %d", x)
	}
}

// The log holds every request of the window, refused ones too: memory
// grows with the traffic, not with L; a key whose entries have all left
// the window is idle, and released it counts its largest size once.
func TestTykMemoryAndIdle(t *testing.T) {
	l := mustNew(t, "tyk", "2/1s").(*products.Tyk)
	l.Grow(2)
	for i := range int64(10) {
		at := tykBase + i*ms
		if l.Decide(0, at, 1) != (i < 2) {
			t.Fatalf("request %d: wrong decision", i)
		}
		l.Record(0, at, 1) // counts every request
	}
	if got := l.Bytes(0); got != 8*10+8 {
		t.Errorf("10 entries: %d bytes, want 88", got)
	}
	if l.Idle(0, tykBase+sec+8*ms) {
		t.Error("idle with the entry at 9 ms still in the window")
	}
	if !l.Idle(0, tykBase+sec+9*ms) {
		t.Error("not idle once the newest entry is W old")
	}
	if p, s := l.Memory(); p != 88 || s != 88 {
		t.Errorf("memory: peak %d, sum %d, want 88 and 88 (key 1 never seen)", p, s)
	}
	l.Release(0)
	if p, _ := l.Memory(); p != 88 {
		t.Errorf("after release: peak %d, want 88", p)
	}
}
