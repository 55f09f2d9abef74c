package products_test

import (
	"testing"
	"time"

	"ratebench/algorithms"
	_ "ratebench/algorithms/products"
)

func TestGuavaTwin(t *testing.T) {
	for _, c := range []struct{ rule, twin string }{
		{"10/1m", "gcra:B=1"}, // 1/6 permit per second, rounded down
		{"60/1m", "gcra:B=2"},
		{"3/1s", "gcra:B=4"},
		{"100/1s", "gcra:B=101"},
		{"1/1s", "gcra:B=2"},
		{"2/2s", "gcra"}, // B = L
	} {
		r, err := algorithms.ParseRule(c.rule)
		if err != nil {
			t.Fatal(err)
		}
		l, err := algorithms.New("guava", r)
		if err != nil {
			t.Fatal(err)
		}
		if got := l.(algorithms.Product).Twin(); got != c.twin {
			t.Errorf("%s: twin %s, want %s", c.rule, got, c.twin)
		}
	}
}

// Each of Guava's deviations, alone, changes a decision of its twin. The
// expected values are worked out from SmoothRateLimiter's arithmetic
// (resync, reserveEarliestAvailable; see Guava).
func TestGuavaEachDeviationAloneChangesADecision(t *testing.T) {
	all := []string{"clock", "float", "pay-later", "starts-empty", "burst-fraction"}
	only := func(name string) string {
		s := "guava"
		for _, d := range all {
			if d != name {
				s += ":without=" + d
			}
		}
		return s
	}
	sec := int64(time.Second)
	for _, c := range []struct {
		name, rule    string
		reqs          [][2]int64
		twin, product string
	}{
		// 3/1s, twin gcra:B=4, I = 333333333.33 ns: after 4 at once the
		// fifth is due I later. At 333333334 ns it is; on the microsecond
		// clock that is 333333 µs, before it.
		{"clock", "3/1s", [][2]int64{{0, 1}, {0, 1}, {0, 1}, {0, 1}, {333_333_334, 1}}, "AAAAA", "AAAAR"},
		// In doubles (ns ticks) stableInterval = 333333333.333..., the
		// fourth request's fresh permit waits (long) of it, 333333333:
		// the fifth at 333333333 ns finds nextFree <= now and no stored
		// permit short (1 <= 0 + 1), while exactly it is 1/3 ns early.
		{"float", "3/1s", [][2]int64{{0, 1}, {0, 1}, {0, 1}, {0, 1}, {333_333_333, 1}}, "AAAAR", "AAAAA"},
		// A request of cost 5 on a free limiter is admitted, its cost
		// pushing nextFree 2 intervals ahead (3 stored); B = 4 refuses it.
		{"pay-later", "3/1s", [][2]int64{{0, 5}, {0, 1}}, "RA", "AR"},
		// Starting empty, the first request's fresh permit pushes nextFree
		// one interval ahead, and the second at once is refused.
		{"starts-empty", "3/1s", [][2]int64{{0, 1}, {0, 1}}, "AA", "AR"},
		// 10/1m: one second of permits is 1/6 of one, and the interval is
		// 6 s: at 5.5 s the stored 1/6 (stored up to 1 s ahead) lets it
		// through; rounded down to 0 stored permits, GCRA with B = 1 waits
		// the full 6 s.
		{"burst-fraction", "10/1m", [][2]int64{{0, 1}, {5*sec + sec/2, 1}}, "AR", "AA"},
	} {
		r, err := algorithms.ParseRule(c.rule)
		if err != nil {
			t.Fatal(err)
		}
		spec := only(c.name)
		l, err := algorithms.New(spec, r)
		if err != nil {
			t.Fatal(err)
		}
		twin := l.(algorithms.Product).Twin()
		checkDeviation(t, func(spec string) string { return costTimeline(t, spec, r, c.reqs...) }, twin, spec, c.name, c.twin, c.product)
	}
}

// Guava as deployed at 10/1m (pps = 10/60.0, stableIntervalMicros =
// 1e6/pps, maxPermits = pps): the key's first request (its creation, time
// 0) is admitted and pushes nextFree to 6000000 µs; at 5 s it is refused;
// at 6 s admitted (stored 0, nextFree 12 s); at 20 s resync stores
// min(1/6, 8/6) = 1/6, the fresh 5/6 waits (long)(5/6 * 6e6) = 5000000 µs:
// nextFree 25 s, so 24.999999 s is refused and 25 s admitted. A refused
// request changes nothing: 25 s is admitted as if 24.999999 s had not come.
// The times are offset by an arbitrary t0: the stopwatch starts there.
func TestGuavaDeployed(t *testing.T) {
	r := algorithms.Rule{L: 10, W: int64(time.Minute)}
	t0 := int64(1_700_000_000_123_456_789)
	sec := int64(time.Second)
	got := costTimeline(t, "guava", r,
		[2]int64{t0, 1}, [2]int64{t0 + 5*sec, 1}, [2]int64{t0 + 6*sec, 1},
		[2]int64{t0 + 20*sec, 1}, [2]int64{t0 + 25*sec - 1000, 1}, [2]int64{t0 + 25*sec, 1},
		// nextFree is now 31 s: 1 ns before it reads 30999999 µs.
		[2]int64{t0 + 31*sec - 1, 1}, [2]int64{t0 + 31*sec, 1})
	if want := "ARAARARA"; got != want {
		t.Errorf("guava at 10/1m decides %s, want %s", got, want)
	}
	l, _ := algorithms.New("guava", r)
	if l.Bytes(0) != 24 || !l.FixedSize() || l.CountsRejected() {
		t.Errorf("guava: %d bytes, fixed %v, counts rejected %v", l.Bytes(0), l.FixedSize(), l.CountsRejected())
	}
}
