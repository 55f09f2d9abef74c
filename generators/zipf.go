package generators

import (
	"math"
	"math/rand/v2"
	"strconv"
	"sync"
)

func init() {
	register(&Scenario{
		Name: "zipf",
		About: "skewed key popularity: key k (0-based) sends Poisson requests at a rate proportional to 1/(k+1)^s, " +
			"normalized so that the mean rate over its keys is rate (total keys*rate; in a mix, over the keys of its share)",
		Params: []Param{
			{Name: "s", Default: 1.1, About: "Zipf exponent of the rank-rate law (0: every key at rate)", Min: 0, Max: 100},
		},
		load: func(p Params, v values) (load, error) {
			what := "rate " + ftoa(p.Rate) + " with s=" + ftoa(v["s"]) + " over " + strconv.Itoa(p.Keys) + " keys, the first key's rate*keys/H(keys, s)"
			return load{mean: p.Rate}, checkPeak(what, zipfRate(p.Rate, p.Keys, v["s"], 0))
		},
		build: func(p Params, v values, key int, rng *rand.Rand) source {
			s := v["s"]
			return &zipf{expArrivals: newExpArrivals(p.Start, zipfRate(p.Rate, p.Keys, s, key), rng)}
		},
	})
}

// zipf is a Poisson process at its rank's rate.
type zipf struct{ expArrivals }

// zipfRate is the rate of the key-th of keys sources with mean rate.
func zipfRate(rate float64, keys int, s float64, key int) float64 {
	return rate * float64(keys) * math.Pow(float64(key+1), -s) / zipfNorm(keys, s)
}

var zipfNorms struct {
	sync.Mutex
	m map[zipfNormKey]float64
}

type zipfNormKey struct {
	n int
	s float64
}

// zipfNorm returns the generalized harmonic number H(n, s), the sum of
// 1/k^s for k = 1..n, computed once per (n, s): every source needs it.
func zipfNorm(n int, s float64) float64 {
	zipfNorms.Lock()
	defer zipfNorms.Unlock()
	k := zipfNormKey{n, s}
	if h, ok := zipfNorms.m[k]; ok {
		return h
	}
	h := 0.0
	for i := n; i >= 1; i-- { // smallest terms first
		h += math.Pow(float64(i), -s)
	}
	if zipfNorms.m == nil {
		zipfNorms.m = map[zipfNormKey]float64{}
	}
	zipfNorms.m[k] = h
	return h
}
