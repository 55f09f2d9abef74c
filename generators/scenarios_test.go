package generators

import (
	"hash/fnv"
	"math"
	"strings"
	"testing"
)

// digest hashes the first n requests of spec (times and keys), checking
// that they come in time order.
func digest(t *testing.T, spec string, n int64) uint64 {
	t.Helper()
	g, err := New(spec, Params{Requests: n, Keys: 50})
	if err != nil {
		t.Fatalf("New(%q): %v", spec, err)
	}
	h := fnv.New64a()
	last, count := int64(math.MinInt64), int64(0)
	for g.Scan() {
		r := g.Request()
		if r.T < last {
			t.Fatalf("%s: request %d at %d, before %d", spec, count, r.T, last)
		}
		if r.T < DefaultStart {
			t.Fatalf("%s: request %d at %d, before the start", spec, count, r.T)
		}
		last = r.T
		count++
		var b [8]byte
		for i := range b {
			b[i] = byte(r.T >> (8 * i))
		}
		h.Write(b[:])
		h.Write(r.Key)
	}
	if count != n {
		t.Fatalf("%s: %d requests, want %d", spec, count, n)
	}
	return h.Sum64()
}

func TestEveryScenario(t *testing.T) {
	const n = 20_000
	for _, sc := range Scenarios() {
		t.Run(sc.Name, func(t *testing.T) {
			if sc.About == "" {
				t.Error("no About")
			}
			// Time order, from the public API.
			base := digest(t, sc.Name, n)

			// Every source on its own is non-decreasing too.
			for k := range 5 {
				s := buildSource(t, sc.Name, Params{Keys: 5}, nil, k)
				last := int64(math.MinInt64)
				for i := range 5000 {
					if tt := s.next(); tt < last {
						t.Fatalf("source %d: request %d at %d, before %d", k, i, tt, last)
					} else {
						last = tt
					}
				}
			}

			// Every declared default is the one used: naming all of them
			// explicitly changes nothing (and the output is deterministic),
			// while another value of each changes the output, so none is
			// ignored.
			var all []string
			for _, p := range sc.Params {
				if p.About == "" {
					t.Errorf("parameter %s has no About", p.Name)
				}
				all = append(all, p.Name+"="+ftoa(p.Default))
			}
			if len(all) > 0 {
				if d := digest(t, sc.Name+":"+strings.Join(all, ","), n); d != base {
					t.Errorf("explicit defaults %v give another trace", all)
				}
			}
			for _, p := range sc.Params {
				changed := false
				for _, alt := range []float64{2 * p.Default, p.Default / 2, p.Default + 1, 1, 0.5} {
					if alt != p.Default && p.check(alt) == nil && digest(t, sc.Name+":"+p.Name+"="+ftoa(alt), n) != base {
						changed = true
						break
					}
				}
				if !changed {
					t.Errorf("parameter %s: no other value changes the trace", p.Name)
				}
			}

			// Unknown parameters are an error.
			if _, err := New(sc.Name+":no_such_param=1", Params{}); err == nil {
				t.Error("an unknown parameter is accepted")
			}
		})
	}
}

// TestNoAllocations checks that in steady state a source allocates
// nothing per request.
func TestNoAllocations(t *testing.T) {
	for _, sc := range Scenarios() {
		s := buildSource(t, sc.Name, Params{}, nil, 0)
		for range 100_000 {
			s.next()
		}
		if a := testing.AllocsPerRun(10_000, func() { s.next() }); a != 0 {
			t.Errorf("%s: %v allocations per request", sc.Name, a)
		}
	}
}

func BenchmarkScenarios(b *testing.B) {
	for _, sc := range Scenarios() {
		b.Run(sc.Name, func(b *testing.B) {
			g, err := New(sc.Name, Params{Requests: int64(b.N), Keys: 1000})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for g.Scan() {
			}
		})
	}
}
