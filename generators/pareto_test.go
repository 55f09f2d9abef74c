package generators

import (
	"math"
	"slices"
	"testing"
)

func TestParetoGaps(t *testing.T) {
	const n, rate = 200_000, 0.2
	for _, c := range []struct {
		spec  string
		alpha float64 // expected effective alpha
	}{{"", 1.5}, {"3", 3}, {"1.05", paretoMinAlpha}} {
		own := map[string]string{}
		if c.spec != "" {
			own["alpha"] = c.spec
		}
		a := c.alpha
		xm := (a - 1) / (a * rate) * 1e9
		g := gaps(buildSource(t, "pareto", Params{Rate: rate}, own, 0), n)
		name := "alpha=" + ftoa(a) + ": "

		// Every gap is at least xm (less the ns the times are truncated to).
		if m := slices.Min(g); m < xm-1 {
			t.Errorf("%sshortest gap %v < xm %v", name, m, xm)
		}
		// The median gap is xm*2^(1/alpha): the count below it is
		// Binomial(n, 1/2), σ = sqrt(n)/2. (Truncation to whole ns moves
		// a gap across it with probability ~f(median)*1ns ≈ 1e-9.)
		med := xm * math.Pow(2, 1/a)
		below := 0
		for _, x := range g {
			if x < med {
				below++
			}
		}
		checkWithin(t, name+"gaps below the median", float64(below), n/2, 5*math.Sqrt(n)/2)

		// Hill estimator over the k largest gaps: given the (n-k)-th order
		// statistic u, the k gaps above it are iid Pareto(u, alpha), so the
		// log ratios ln(X/u) are iid exponential of mean 1/alpha and
		// variance 1/alpha²: 1/alpha_hat has σ = 1/(alpha*sqrt(k)).
		slices.Sort(g)
		k := n / 10
		u := g[n-k-1]
		sum := 0.0
		for _, x := range g[n-k:] {
			sum += math.Log(x / u)
		}
		checkWithin(t, name+"Hill 1/alpha", sum/float64(k), 1/a, 5/(a*math.Sqrt(float64(k))))

		// With alpha > 2 the variance is finite, xm²α/((α-1)²(α-2)), and
		// the mean gap converges at the usual rate.
		if a > 2 {
			mean := 0.0
			for _, x := range g {
				mean += x
			}
			sd := math.Sqrt(xm * xm * a / ((a - 1) * (a - 1) * (a - 2)) / n)
			checkWithin(t, name+"mean gap (ns)", mean/n, 1e9/rate, 5*sd)
		}
	}
}
