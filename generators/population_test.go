package generators

import (
	"math"
	"math/rand/v2"
	"testing"
)

// The per-source rates of population follow Pareto(xm, alpha) with
// xm = rate*(alpha-1)/alpha, capped at max*rate. The count of sources whose
// rate exceeds x is binomial(n, (xm/x)^alpha): checked within 5 sigma at a
// few x, and the cap holds exactly.
func TestPopulationRates(t *testing.T) {
	p := Params{Rate: 0.2}.Defaults()
	sc, _ := Lookup("population")
	v, err := resolve(sc, map[string]string{"alpha": "1.5", "max": "50"})
	if err != nil {
		t.Fatal(err)
	}
	const n = 20000
	rates := make([]float64, n)
	for k := range rates {
		src := sc.build(p, v, k, rand.New(rand.NewPCG(9, uint64(k)))).(*expArrivals)
		rates[k] = src.rate * 1e9
		if rates[k] > 50*p.Rate*(1+1e-12) {
			t.Fatalf("source %d at %g/s, above the cap %g", k, rates[k], 50*p.Rate)
		}
	}
	xm := p.Rate * 0.5 / 1.5
	for _, mult := range []float64{1, 2, 5, 20} {
		x := mult * xm
		want := math.Pow(xm/x, 1.5)
		above := 0
		for _, r := range rates {
			if r > x {
				above++
			}
		}
		sigma := math.Sqrt(n * want * (1 - want))
		if math.Abs(float64(above)-n*want) > 5*sigma+1 {
			t.Errorf("rates above %.3g: %d, want %.0f ± %.0f", x, above, n*want, 5*sigma)
		}
	}
}
