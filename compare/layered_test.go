package compare

import (
	"testing"

	"ratebench/algorithms"
	"ratebench/summary"
)

// boundaryTrace is an attacker sending bursts of n just before and just
// after each edge of windows of w, and steady clients besides.
func boundaryTrace(w int64, n, windows int) []rq {
	var out []rq
	for k := 1; k <= windows; k++ {
		edge := int64(k+17) * w
		for i := range n {
			out = append(out, rq{"attacker", edge - sec + int64(i)*sec/int64(2*n), 1})
		}
		for i := range n {
			out = append(out, rq{"attacker", edge + int64(i)*sec/int64(2*n), 1})
		}
	}
	return out
}

// A layered rule's reference admits exactly what a log per layer, all
// recording the layered admissions, admit together; and a short layer
// takes away most of the fixed window's gain at the edges.
func TestLayeredRules(t *testing.T) {
	t.Parallel()
	single := mustRule(t, "100/1m")
	short := mustRule(t, "5/1s")
	reqs := boundaryTrace(60*sec, 100, 20)
	cfg := Config{Rules: []algorithms.Rule{single}, Layered: [][]algorithms.Rule{{short, single}},
		Algorithms: []string{"fixed", "counter"}, Modes: []Mode{Independent}}
	s := replay(t, cfg, reqs)
	if got := s.Config.Rules; len(got) != 2 || got[1] != "5/1s+100/1m" {
		t.Fatalf("rules %v", got)
	}
	// The model: two logs recording what both admitted.
	var admitted int64
	var times []int64
	for _, q := range reqs {
		ok := true
		for _, r := range []algorithms.Rule{short, single} {
			var n int64
			for _, at := range times {
				if at > q.t-r.W {
					n++
				}
			}
			ok = ok && n+1 <= r.L
		}
		if ok {
			times = append(times, q.t)
			admitted++
		}
	}
	var plain, layered summary.Run
	for _, r := range s.Runs {
		switch {
		case r.Algorithm == "log" && r.Rule == "5/1s+100/1m":
			if r.Admitted != admitted {
				t.Errorf("layered log admitted %d, the model %d", r.Admitted, admitted)
			}
			if c := r.Client; c == nil || c.RetryAfter == nil || c.RetryAfter.Samples != r.Rejected || c.Never != 0 {
				t.Errorf("layered log: Retry-After %+v for %d rejections", c, r.Rejected)
			} else if c.RetryAfter.MaxNS > 60*sec {
				t.Errorf("layered log: Retry-After up to %d ns, longer than the long window", c.RetryAfter.MaxNS)
			}
		case r.Algorithm == "fixed" && r.Rule == "100/1m":
			plain = r
		case r.Algorithm == "fixed" && r.Rule == "5/1s+100/1m":
			layered = r
		}
	}
	if plain.Burst == nil || layered.Burst == nil {
		t.Fatal("no fixed runs")
	}
	if plain.Burst.Max != 200 || layered.Burst.Max >= plain.Burst.Max/2 {
		t.Errorf("fixed burst: %d alone, %d with 5/1s: want 200 (2L at the edge) and far less", plain.Burst.Max, layered.Burst.Max)
	}
}

// Under layered rules of one window the burst is measured against the
// limit that binds over that window, the smallest: at 5/1m+10/1m the log
// never lets more than 5 through in a minute (ratio 1, no key over the
// limit), and the fixed window, 5 on each side of an edge, reaches 2. In
// either order of the layers, in one pass or across workers (whose
// summaries merge).
func TestLayeredBurstOfOneWindowIsToTheSmallestLimit(t *testing.T) {
	t.Parallel()
	reqs := boundaryTrace(60*sec, 8, 3)
	for _, set := range [][]string{{"5/1m", "10/1m"}, {"10/1m", "5/1m"}} {
		layers := []algorithms.Rule{mustRule(t, set[0]), mustRule(t, set[1])}
		for _, workers := range []int{1, 3} {
			cfg := Config{Layered: [][]algorithms.Rule{layers}, Algorithms: []string{"fixed"}, Modes: []Mode{Independent}, Workers: workers}
			s := replay(t, cfg, append(reqs, rq{"steady", 0, 1}))
			log, fixed := findRun(t, s, "independent", "log"), findRun(t, s, "independent", "fixed")
			if b := log.Burst; b == nil || b.Max != 5 || b.Ratio != 1 || b.KeysOverL != 0 {
				t.Errorf("%v, %d workers: the log's burst %+v, want 5, ratio 1, no key over L", set, workers, b)
			}
			if b := fixed.Burst; b == nil || b.Max != 10 || b.Ratio != 2 || b.KeysOverL != 1 {
				t.Errorf("%v, %d workers: fixed's burst %+v, want 10, ratio 2, one key over L", set, workers, b)
			}
		}
	}
}
