package generators

import (
	"math"
	"strconv"
	"testing"
	"time"

	"gonum.org/v1/gonum/stat"
)

func TestZipfNormalization(t *testing.T) {
	for _, s := range []float64{0, 0.5, 1.1, 2} {
		sum := 0.0
		for k := range 1000 {
			sum += zipfRate(0.3, 1000, s, k)
		}
		checkWithin(t, "mean rate at s="+ftoa(s), sum/1000, 0.3, 1e-12)
	}
}

func TestZipfRankFrequency(t *testing.T) {
	const keys, rate, secs = 100, 1.0, 4000
	for _, s := range []float64{1.1, 2} {
		tr := generate(t, "zipf:s="+ftoa(s), longRun(keys, rate, secs*time.Second))
		counts := make([]float64, keys)
		for _, k := range tr.key {
			counts[k]++
		}
		// Every key's count is Poisson with the mean its weight gives.
		var x, y, e []float64
		for k, c := range counts {
			want := zipfRate(rate, keys, s, k) * secs
			if want >= 100 && math.Abs(c-want) > 5*math.Sqrt(want) {
				t.Errorf("s=%v key %d: %v requests, want %.0f ± %.0f (5σ)", s, k, c, want, 5*math.Sqrt(want))
			}
			if want >= 1000 { // the top ranks, where log(count) is close to normal
				x, y, e = append(x, math.Log(float64(k+1))), append(y, math.Log(c)), append(e, want)
			}
		}
		checkWithin(t, "total rate", float64(len(tr.t))/secs, keys*rate, 5*math.Sqrt(keys*rate*secs)/secs)

		// Least-squares slope of log count on log rank. For a Poisson count
		// N of mean E, log N has variance 1/E and bias -1/(2E) (delta
		// method); the OLS slope is Σ c_i y_i with c_i = (x_i - x̄)/Sxx, so
		// its variance is Σ c_i²/E_i and its bias Σ c_i (-1/(2E_i)).
		_, slope := stat.LinearRegression(x, y, nil, false)
		xm := stat.Mean(x, nil)
		sxx, v, bias := 0.0, 0.0, 0.0
		for _, xi := range x {
			sxx += (xi - xm) * (xi - xm)
		}
		for i, xi := range x {
			ci := (xi - xm) / sxx
			v += ci * ci / e[i]
			bias -= ci / (2 * e[i])
		}
		if len(x) < 5 {
			t.Fatalf("s=%v: only %d ranks to fit", s, len(x))
		}
		checkWithin(t, "rank-frequency slope over "+strconv.Itoa(len(x))+" ranks", slope, -s, 5*math.Sqrt(v)+math.Abs(bias))
	}
}
