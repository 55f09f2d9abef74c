package generators

import (
	"math"
	"testing"
	"time"

	"gonum.org/v1/gonum/stat"
)

// onoffCountVar is the variance of the count of an on-off source over an
// interval of T seconds: a doubly stochastic Poisson process whose
// intensity is a stationary two-state Markov chain (λ while on, 0 while
// off, switching at 1/on and 1/off, γ = 1/on + 1/off) has intensity
// covariance C(τ) = λ² π_on π_off e^{-γ|τ|}, so
// Var N(T) = mT + 2∫_0^T (T-τ) C(τ) dτ = mT + 2λ²π_on π_off (T/γ - (1-e^{-γT})/γ²).
func onoffCountVar(rate, on, off, T float64) float64 {
	lam := rate * (on + off) / on
	pon, poff := on/(on+off), off/(on+off)
	g := 1/on + 1/off
	return rate*T + 2*lam*lam*pon*poff*(T/g-(1-math.Exp(-g*T))/(g*g))
}

func TestOnoffRateAndDispersion(t *testing.T) {
	const keys, rate, secs, on, off = 200, 1.0, 3000, 10.0, 50.0
	tr := generate(t, "onoff", longRun(keys, rate, secs*time.Second))

	// The keys are independent, each count has variance onoffCountVar.
	sd := math.Sqrt(keys*onoffCountVar(rate, on, off, secs)) / keys / secs
	checkWithin(t, "mean rate per key", float64(len(tr.t))/keys/secs, rate, 5*sd)

	// Overdispersed: the index of dispersion of 10 s counts lies well above
	// the band a Poisson process would stay in (theory: IDC(T) = Var N(T)/mT).
	const width = 10
	c := binCounts(tr, keys, DefaultStart, width*int64(time.Second), secs/width)
	m, v := stat.MeanVariance(c, nil)
	if lim := 1 + poissonDispersionTol(len(c)); v/m <= lim {
		t.Errorf("index of dispersion %.3g, want > %.3g (Poisson's 5σ band)", v/m, lim)
	}
	t.Logf("index of dispersion %.3g (theory %.3g)", v/m, onoffCountVar(rate, on, off, width)/(rate*width))
}

func TestOnoffDutyCycle(t *testing.T) {
	for _, c := range []struct{ on, off float64 }{{10, 50}, {2, 1}} {
		own := map[string]string{"on": ftoa(c.on), "off": ftoa(c.off)}
		s := buildSource(t, "onoff", Params{Rate: 0.01}, own, 3).(*onoff)
		for s.end < 1e7*1e9 { // 10^7 s of periods
			s.next()
		}
		// Over n on/off cycles the duty D = S_on/(S_on+S_off), the sums of
		// n exponentials of means a and b (variances n a², n b²); by the
		// delta method var(D) = 2a²b²/(n(a+b)⁴).
		a, b := c.on, c.off
		n := s.end / 1e9 / (a + b)
		sd := math.Sqrt(2/n) * a * b / ((a + b) * (a + b))
		checkWithin(t, "duty cycle "+own["on"]+"/"+own["off"], s.onNs/s.end, a/(a+b), 5*sd)
	}
}

func TestOnoffAlwaysOn(t *testing.T) {
	// off = 0 is a plain Poisson process: dispersion 1.
	const keys, rate, secs = 50, 2.0, 1000
	tr := generate(t, "onoff:off=0", longRun(keys, rate, secs*time.Second))
	checkWithin(t, "mean rate per key", float64(len(tr.t))/keys/secs, rate, 5*math.Sqrt(keys*rate*secs)/keys/secs)
	c := binCounts(tr, keys, DefaultStart, 5*int64(time.Second), secs/5)
	m, v := stat.MeanVariance(c, nil)
	checkWithin(t, "index of dispersion", v/m, 1, poissonDispersionTol(len(c)))
}
