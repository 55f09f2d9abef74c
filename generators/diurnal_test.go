package generators

import (
	"math"
	"testing"
	"time"
)

func TestDiurnalHalves(t *testing.T) {
	const keys, rate, period, cycles = 100, 1.0, 100.0, 20
	for _, c := range []struct{ amp, phase float64 }{{0.8, 0}, {0.5, 0.5}, {1, 0.25}, {0.8, 1.75}} {
		spec := "diurnal:period=100,amplitude=" + ftoa(c.amp) + ",phase=" + ftoa(c.phase)
		tr := generate(t, spec, longRun(keys, rate, time.Duration(period*cycles)*time.Second))
		// Counts in the first and second half of each cycle are Poisson
		// with mean the integral of the rate: over [0, P/2) of
		// rate*(1 + a sin(2π(t/P + φ))) that is rate*P/2 + rate*a*P/π*cos(2πφ),
		// the second half the rest of rate*P. σ = sqrt(mean).
		var first, second float64
		p := int64(period * 1e9)
		for _, ti := range tr.t {
			if (ti-DefaultStart)%p < p/2 {
				first++
			} else {
				second++
			}
		}
		swing := rate * c.amp * period / math.Pi * math.Cos(2*math.Pi*c.phase)
		n := float64(keys * cycles)
		w1, w2 := n*(rate*period/2+swing), n*(rate*period/2-swing)
		checkWithin(t, spec+" first halves", first, w1, 5*math.Sqrt(w1))
		checkWithin(t, spec+" second halves", second, w2, 5*math.Sqrt(w2))
	}
}
