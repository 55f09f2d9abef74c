package generators

import (
	"bytes"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"
)

// trace is a generated trace: request times (ns) and key indices.
type trace struct {
	t   []int64
	key []int
}

// generate runs spec through the public API and checks, on the way, that
// the requests come in time order, no earlier than p.Start and before
// p.Start+p.Duration, under keys named after the scenario.
func generate(t *testing.T, spec string, p Params) trace {
	t.Helper()
	g, err := New(spec, p)
	if err != nil {
		t.Fatalf("New(%q): %v", spec, err)
	}
	p = p.Defaults()
	var tr trace
	last := p.Start
	for g.Scan() {
		r := g.Request()
		if r.T < last {
			t.Fatalf("%s: request %d at %d before %d", spec, len(tr.t), r.T, last)
		}
		if p.Duration > 0 && r.T >= p.Start+int64(p.Duration) {
			t.Fatalf("%s: request at %d after the duration", spec, r.T)
		}
		last = r.T
		tr.t = append(tr.t, r.T)
		tr.key = append(tr.key, keyIndex(t, r.Key))
	}
	return tr
}

// keyIndex reads the source index from a key like "zipf-0003".
func keyIndex(t *testing.T, key []byte) int {
	t.Helper()
	i := bytes.LastIndexByte(key, '-')
	n, err := strconv.Atoi(string(key[i+1:]))
	if i < 0 || err != nil {
		t.Fatalf("key %q has no index", key)
	}
	return n
}

// longRun is Params for a trace limited by its duration alone.
func longRun(keys int, rate float64, d time.Duration) Params {
	return Params{Requests: 1 << 62, Keys: keys, Rate: rate, Duration: d}
}

// buildSource builds the key-th source of the named scenario with the
// given parameter overrides, as New would (seed 1).
func buildSource(t *testing.T, name string, p Params, own map[string]string, key int) source {
	t.Helper()
	sc, err := Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	v, err := resolve(sc, own)
	if err != nil {
		t.Fatal(err)
	}
	p = p.Defaults()
	return sc.build(p, v, key, rand.New(rand.NewPCG(p.Seed, uint64(key))))
}

// gaps returns the n gaps between the first n+1 requests of s, ns.
func gaps(s source, n int) []float64 {
	out := make([]float64, n)
	prev := s.next()
	for i := range out {
		t := s.next()
		out[i] = float64(t - prev)
		prev = t
	}
	return out
}

// checkWithin fails unless |got - want| <= tol.
func checkWithin(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if !(math.Abs(got-want) <= tol) {
		t.Errorf("%s = %.6g, want %.6g ± %.3g (off by %.2f tolerances)", what, got, want, tol, (got-want)/tol)
	} else {
		t.Logf("%s = %.6g, want %.6g ± %.3g", what, got, want, tol)
	}
}

// binCounts counts the requests of each key in consecutive intervals of
// width ns from start over n intervals, all keys' bins in one slice.
func binCounts(tr trace, keys int, start, width int64, n int) []float64 {
	c := make([]float64, keys*n)
	for i, ti := range tr.t {
		if b := int((ti - start) / width); b < n {
			c[tr.key[i]*n+b]++
		}
	}
	return c
}

// poissonDispersionTol is the tolerance on the index of dispersion D =
// s²/x̄ of m Poisson counts: to first order var(s²) = 2λ²/(m-1) + λ/m,
// var(x̄) = λ/m and cov(s², x̄) = μ3/m = λ/m, so by the delta method
// var(D) = (var(s²) + var(x̄) - 2cov)/λ² = 2/(m-1); allow 5 standard
// deviations.
func poissonDispersionTol(m int) float64 { return 5 * math.Sqrt(2/float64(m-1)) }
