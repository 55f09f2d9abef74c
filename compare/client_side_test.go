package compare

import (
	"testing"

	"ratebench/algorithms"
)

// The log's Retry-After and recovery on hand-made keys. a: five admitted at
// 0-4 ms, refused at 10 s (the first entry leaves at 30 s: Retry-After
// 20 s, a whole number of seconds) and at 20.5 s (9.5 s), admitted at 31 s:
// one run of rejections, 21 s long. b: refused at 5 ns, never back.
func TestClientSideOfTheLog(t *testing.T) {
	t.Parallel()
	ms := sec / 1000
	reqs := []rq{{"a", 0, 1}, {"a", 1 * ms, 1}, {"a", 2 * ms, 1}, {"a", 3 * ms, 1}, {"a", 4 * ms, 1},
		{"a", 10 * sec, 1}, {"a", 20*sec + 500*ms, 1}, {"a", 31 * sec, 1}, {"b", 0, 1}}
	for _, q := range []rq{{"b", 1, 1}, {"b", 2, 1}, {"b", 3, 1}, {"b", 4, 1}, {"b", 5, 1}} {
		reqs = append(reqs, q) // b is refused at 5 ns and never comes back
	}
	cfg := Config{Rules: []algorithms.Rule{mustRule(t, "5/30s")}, Algorithms: []string{"leaky"}, Modes: []Mode{Independent}}
	s := replay(t, cfg, sortByTime(reqs))
	c := findRun(t, s, "independent", "log").Client
	if c == nil || c.RetryAfter == nil {
		t.Fatal("no client side")
	}
	// a: 20 s at 10 s, 9.5 s at 20.5 s; b: 30 s - 5 ns at 5 ns.
	if ra := c.RetryAfter; ra.Samples != 3 || ra.MaxNS != 30*sec-5 || ra.MeanNS != float64(20*sec+9500*ms+30*sec-5)/3 {
		t.Errorf("Retry-After %+v, want 20 s, 9.5 s and 30 s - 5 ns", ra.DurationSummary)
	}
	// Whole seconds: 20 s is exact; 9.5 s waits 0.5 s more, b 5 ns more.
	if c.FloorEarly != 2 || c.SecondsExtra.MaxNS != 500*ms {
		t.Errorf("floor early %d, extra max %d", c.FloorEarly, c.SecondsExtra.MaxNS)
	}
	if r := c.Recovery; r.Samples != 1 || r.MaxNS != 21*sec {
		t.Errorf("recovery %+v, want one of 21 s", r.DurationSummary)
	}
	if c.Unrecovered != 1 {
		t.Errorf("unrecovered %d, want 1 (b)", c.Unrecovered)
	}
	if l := findRun(t, s, "independent", "leaky").Client; l.Delay == nil || l.Delay.Samples == 0 {
		t.Error("leaky: no delays")
	}
	if findRun(t, replay(t, Config{Modes: []Mode{Shadow}}, reqs), "shadow", "counter").Client != nil {
		t.Error("a shadow run measures the client side")
	}
}

func sortByTime(reqs []rq) []rq {
	out := append([]rq(nil), reqs...)
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].t < out[j-1].t; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}
