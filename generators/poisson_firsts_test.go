package generators

import (
	"fmt"
	"math"
	"testing"
)

// A billion keys for ten requests costs ten sources, not a billion: the
// generator's work and memory follow the requests. (It used to draw every
// key's first request: a billion sources tried, half a minute.)
func TestPoissonFirstsFollowRequests(t *testing.T) {
	var keys []string
	allocs := testing.AllocsPerRun(1, func() {
		g, err := New("poisson:keys=1000000000,requests=10", Params{})
		if err != nil {
			t.Fatal(err)
		}
		keys = keys[:0]
		for g.Scan() {
			keys = append(keys, string(g.Request().Key))
		}
		if len(g.srcs) > 10 {
			t.Errorf("%d sources kept for 10 requests", len(g.srcs))
		}
	})
	if len(keys) != 10 {
		t.Fatalf("%d requests, want 10", len(keys))
	}
	if allocs > 300 {
		t.Errorf("%v allocations for 10 requests of a billion keys, want a few hundred at most", allocs)
	}
	for _, k := range keys {
		if len(k) != len("poisson-")+9 { // indexes 0..999999999, zero-padded
			t.Errorf("key %q, want poisson- and 9 digits", k)
		}
	}
}

// The sending sources drawn without visiting every key give the trace the
// distribution every key's own Poisson process would: over many seeds, the
// times of the 100th and 700th requests and the number of keys that send
// agree in the mean with the trace of every source built (each within a
// few of its standard errors), and each run is in time order with its
// requests on distinct sources' streams.
func TestPoissonFirstsDistribution(t *testing.T) {
	const seeds, requests = 40, 700
	type figures struct{ t100, t700, keys float64 }
	run := func(sendingOnly bool, seed uint64) figures {
		g, err := newGenerator("poisson", Params{Keys: 5000, Requests: requests, Rate: 0.05, Seed: seed}, sendingOnly)
		if err != nil {
			t.Fatal(err)
		}
		var f figures
		seen := map[int32]bool{}
		prev := int64(0)
		n := 0
		for ; g.Scan(); n++ {
			q := g.Request()
			if q.T < prev {
				t.Fatalf("seed %d: request %d at %d before %d", seed, n, q.T, prev)
			}
			if string(q.Key) != fmt.Sprintf("poisson-%04d", g.KeyIndex()) {
				t.Fatalf("seed %d: key %s of index %d", seed, q.Key, g.KeyIndex())
			}
			prev = q.T
			seen[g.KeyIndex()] = true
			switch n {
			case 99:
				f.t100 = float64(q.T - DefaultStart)
			case requests - 1:
				f.t700 = float64(q.T - DefaultStart)
			}
		}
		if n != requests {
			t.Fatalf("seed %d: %d requests", seed, n)
		}
		f.keys = float64(len(seen))
		return f
	}
	var drawn, all [seeds]figures
	for s := range seeds {
		drawn[s], all[s] = run(true, uint64(s+1)), run(false, uint64(s+1))
	}
	for _, m := range []struct {
		name string
		of   func(figures) float64
	}{
		{"time of the 100th request", func(f figures) float64 { return f.t100 }},
		{"time of the 700th request", func(f figures) float64 { return f.t700 }},
		{"keys that send", func(f figures) float64 { return f.keys }},
	} {
		ma, sa := meanSE(drawn[:], m.of)
		mb, sb := meanSE(all[:], m.of)
		if d := math.Abs(ma - mb); d > 4*math.Hypot(sa, sb) {
			t.Errorf("%s: mean %.4g ± %.2g drawn, %.4g ± %.2g with every source", m.name, ma, sa, mb, sb)
		}
	}
}

// meanSE returns the mean of of over fs and its standard error.
func meanSE[F any](fs []F, of func(F) float64) (mean, se float64) {
	for _, f := range fs {
		mean += of(f)
	}
	mean /= float64(len(fs))
	ss := 0.0
	for _, f := range fs {
		ss += (of(f) - mean) * (of(f) - mean)
	}
	return mean, math.Sqrt(ss / float64(len(fs)-1) / float64(len(fs)))
}
