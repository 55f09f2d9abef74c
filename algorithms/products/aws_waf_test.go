package products_test

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"ratebench/algorithms"
)

// 10/1m, a request every second from 0.5 s, every request counted: the
// check at 0 s counts nothing, the one at 10 s the ten requests of
// [−50 s, 10 s), not over 10; the one at 20 s counts 20 and rate limits
// [20 s, 30 s). The rate-limited requests count too: at 70 s, [10 s, 70 s)
// holds 16 requests (and the one at 65 s), at 80 s [20 s, 80 s) holds 8.
func TestAWSWAFTimeline(t *testing.T) {
	l := mustNew(t, "aws-waf", "10/1m")
	if p := l.(algorithms.Product); p.Twin() != "log" || l.Name() != "aws-waf" || len(p.Deviations()) != 3 {
		t.Fatalf("%s: twin %q, deviations %v", l.Name(), p.Twin(), p.Deviations())
	}
	var steps []step
	for i := range int64(26) {
		steps = append(steps, step{T: 500*ms + i*sec, Cost: 1, Admit: i < 20})
	}
	steps = append(steps,
		step{T: 65 * sec, Cost: 1, Admit: false},
		step{T: 75 * sec, Cost: 1, Admit: false},
		step{T: 85 * sec, Cost: 1, Admit: true},
	)
	play(t, l, true, steps)
	if b := l.Bytes(0); b != 56 {
		t.Errorf("bytes %d at 1m, want 8·6+8", b)
	}
	if b := mustNew(t, "aws-waf", "10/10m").Bytes(0); b != 488 {
		t.Errorf("bytes %d at 10m, want 8·60+8", b)
	}
}

// The evaluation window is 60, 120, 300 or 600 s and the limit at least 10.
func TestAWSWAFRefusesWhatItCannotExpress(t *testing.T) {
	for _, rule := range []string{"10/1m", "10/2m", "100/5m", "10/10m"} {
		if _, err := algorithms.New("aws-waf", mustRule(t, rule)); err != nil {
			t.Errorf("%s: %v", rule, err)
		}
	}
	for rule, want := range map[string]string{
		"10/30s": "give a window of 1m, 2m, 5m or 10m, not 30s",
		"10/1s":  "give a window of 1m, 2m, 5m or 10m, not 1s",
		"10/3m":  "give a window of 1m, 2m, 5m or 10m, not 3m",
		"9/1m":   "give a limit of 10 or more, not 9",
	} {
		if _, err := algorithms.New("aws-waf", mustRule(t, rule)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", rule, err, want)
		}
	}
	if _, err := algorithms.New("aws-waf:x=1", mustRule(t, "10/1m")); err == nil {
		t.Error("aws-waf takes no parameter")
	}
}

// Each deviation alone changes a decision of the log, at 10/1m.
func TestAWSWAFEachDeviationAloneChangesADecision(t *testing.T) {
	r := mustRule(t, "10/1m")
	own := func(reqs [][2]int64) func(string) string {
		return func(spec string) string { return ownTimeline(t, spec, r, reqs...) }
	}
	// check: eleven requests a second apart from 0.5 s. The log refuses
	// the eleventh; WAF's check at 10 s counted the ten of [−50 s, 10 s),
	// not over the limit, and lets 10.5 s through.
	var reqs [][2]int64
	for i := range int64(11) {
		reqs = append(reqs, [2]int64{500*ms + i*sec, 1})
	}
	checkDeviation(t, own(reqs), "log", "aws-waf:without=counts-refused:without=one-hit", "check", "AAAAAAAAAAR", "AAAAAAAAAAA")
	// counts-refused: ten requests at 0, ten refused at 30 s; at 60.5 s
	// the admitted of (0.5 s, 60.5 s] are none, but the counted are the
	// ten refused.
	reqs = nil
	for range 10 {
		reqs = append(reqs, [2]int64{0, 1})
	}
	for range 10 {
		reqs = append(reqs, [2]int64{30 * sec, 1})
	}
	reqs = append(reqs, [2]int64{60*sec + 500*ms, 1})
	checkDeviation(t, own(reqs), "log", "aws-waf:without=check:without=one-hit", "counts-refused", "AAAAAAAAAARRRRRRRRRRA", "AAAAAAAAAARRRRRRRRRRR")
	// one-hit: two requests of cost 5 fill the log's window; WAF counted
	// two requests, and admits a third.
	reqs = [][2]int64{{0, 5}, {sec, 5}, {2 * sec, 1}}
	checkDeviation(t, own(reqs), "log", "aws-waf:without=check:without=counts-refused", "one-hit", "AAR", "AAA")
}

// With check, a key's counts per 10 s period decide as the documented
// check over every counted request does: the requests of [c − W, c) at
// the check c of each request's period, summed from the whole history.
// A key is idle once nothing it counted can count again, and is then
// released, as a replay does.
func TestAWSWAFChecksCountWhatTheHistoryHolds(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 3))
	for _, spec := range []string{"aws-waf", "aws-waf:without=counts-refused", "aws-waf:without=one-hit", "aws-waf:without=counts-refused:without=one-hit"} {
		for _, rule := range []string{"10/1m", "12/2m"} {
			r := mustRule(t, rule)
			l := mustNewRule(t, spec, r)
			l.Grow(3)
			countsAll := algorithms.CountsEvery(l)
			oneHit := !strings.Contains(spec, "one-hit")
			type counted struct{ t, n int64 }
			history := make([][]counted, 3)
			now := int64(0)
			for i := range 3000 {
				now += rng.Int64N(int64(4 * time.Second))
				if rng.IntN(50) == 0 {
					now += rng.Int64N(int64(4 * time.Minute)) // a pause: keys go idle
				}
				id, cost := int32(rng.IntN(3)), 1+rng.Int64N(3)
				h := history[id]
				wantIdle := len(h) == 0 || h[len(h)-1].t < now-r.W-int64(10*time.Second) // nothing counted can count again
				if idle := l.(algorithms.Releaser).Idle(id, now); idle != wantIdle {
					t.Fatalf("%s %s request %d (key %d at %v): idle %v, want %v", spec, rule, i, id, time.Duration(now), idle, wantIdle)
				} else if idle {
					l.(algorithms.Releaser).Release(id)
				}
				c := now / int64(10*time.Second) * int64(10*time.Second)
				var sum int64
				for _, e := range history[id] {
					if e.t >= c-r.W && e.t < c {
						sum += e.n
					}
				}
				want := sum <= r.L
				if got := l.Decide(id, now, cost); got != want {
					t.Fatalf("%s %s request %d (key %d at %v): decided %v, the history's check %v (%d counted)", spec, rule, i, id, time.Duration(now), got, want, sum)
				}
				if want || countsAll {
					n := cost
					if oneHit {
						n = 1
					}
					l.Record(id, now, cost)
					history[id] = append(history[id], counted{now, n})
				}
			}
		}
	}
}
