package products_test

import (
	"testing"
	"time"

	"ratebench/algorithms"
)

// Each of caddy-ratelimit's deviations, alone, changes a decision of its
// twin, the sliding log, on a timeline worked out from ringbuffer.go;
// turned off, the timeline is the twin's again.
func TestCaddyEachDeviationAloneChangesADecision(t *testing.T) {
	ms, s := int64(time.Millisecond), int64(time.Second)
	for _, c := range []struct {
		name, rule, spec string
		reqs             [][2]int64
		twin, product    string
	}{
		// 2/1s: at 1 s the event of 0 s is exactly W old. The ring
		// does not write the request (its oldest, 0 s, is not more than
		// 1 s before), but When's wait, 0 s + 1 s - 1 s, is not positive
		// and the handler lets it through. At 1.4 s the log holds 0.5 s
		// and 1 s, and refuses; the ring holds 0.5 s only.
		{"boundary", "2/1s", "caddy:without=cost",
			[][2]int64{{0, 1}, {500 * ms, 1}, {s, 1}, {1400 * ms, 1}}, "AAAR", "AAAA"},
		// 10/1m: a request of cost 10 is one event, so nine more fit.
		{"cost", "10/1m", "caddy:without=boundary",
			[][2]int64{{0, 10}, {s, 1}}, "AR", "AA"},
	} {
		r, err := algorithms.ParseRule(c.rule)
		if err != nil {
			t.Fatal(err)
		}
		checkDeviation(t, func(spec string) string { return costTimeline(t, spec, r, c.reqs...) }, "log", c.spec, c.name, c.twin, c.product)
	}
}

// The full model: three events of any cost at 0, 0.4 s and 1 s under
// 3/1s fill the ring; at 1 s the oldest (0 s) is exactly W old, so a
// fourth at 1 s passes unwritten; one at 1 s + 1 ns is written in its
// place, and the next, whose oldest is then 0.4 s, is refused.
func TestCaddyFullModel(t *testing.T) {
	ms, s := int64(time.Millisecond), int64(time.Second)
	r, _ := algorithms.ParseRule("3/1s")
	got := costTimeline(t, "caddy", r, [2]int64{0, 5}, [2]int64{400 * ms, 1}, [2]int64{s, 2}, [2]int64{s, 1}, [2]int64{s + 1, 1}, [2]int64{s + 1, 1})
	if want := "AAAAAR"; got != want {
		t.Errorf("caddy decides %s, want %s", got, want)
	}
	l, _ := algorithms.New("caddy", r)
	l.Grow(2)
	if l.Bytes(1) != 24*3+48 || !l.FixedSize() || l.CountsRejected() {
		t.Errorf("caddy: %d bytes per key, fixed %v, counts refusals %v; want a ring of 3 times (120 bytes), fixed, refusals not counted", l.Bytes(1), l.FixedSize(), l.CountsRejected())
	}
	rel := l.(algorithms.Releaser)
	l.Decide(0, 0, 1)
	l.Record(0, 0, 1)
	if rel.Idle(0, s) || !rel.Idle(0, s+1) {
		t.Errorf("caddy: an event of 0 s still matters at 1 s (to what is written) and not after: idle at 1 s %v, at 1 s + 1 ns %v", rel.Idle(0, s), rel.Idle(0, s+1))
	}
}

// The spec takes no parameter but without=.
func TestCaddySpecs(t *testing.T) {
	r, _ := algorithms.ParseRule("10/1m")
	checkSpecs(t, r, map[string]string{
		"caddy":                               "caddy",
		"caddy:without=cost":                  "caddy:without=cost",
		"caddy:without=cost:without=boundary": "caddy:without=boundary:without=cost",
	}, []string{"caddy:", "caddy:events=3", "caddy:without=ttl"}, "caddy")
}
