package generators

import (
	"math"
	"testing"
	"time"

	"gonum.org/v1/gonum/stat"
)

func TestPoissonRateAndDispersion(t *testing.T) {
	const keys, rate, secs = 100, 1.0, 2000
	tr := generate(t, "poisson", longRun(keys, rate, secs*time.Second))

	// Each key's count over the duration is Poisson(rate*secs): σ = sqrt(mean).
	want := rate * secs
	counts := make([]float64, keys)
	for _, k := range tr.key {
		counts[k]++
	}
	for k, c := range counts {
		if math.Abs(c-want) > 5*math.Sqrt(want) {
			t.Errorf("key %d: %v requests, want %v ± %.0f (5σ)", k, c, want, 5*math.Sqrt(want))
		}
	}
	// The total is Poisson(keys*rate*secs).
	checkWithin(t, "mean rate per key", float64(len(tr.t))/keys/secs, rate, 5*math.Sqrt(keys*want)/keys/secs)

	// Counts per 10 s interval: index of dispersion 1.
	const width = 10
	c := binCounts(tr, keys, DefaultStart, width*int64(time.Second), secs/width)
	m, v := stat.MeanVariance(c, nil)
	checkWithin(t, "index of dispersion", v/m, 1, poissonDispersionTol(len(c)))
}
