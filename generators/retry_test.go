package generators

import (
	"math"
	"testing"
	"time"
)

func TestRetryAmplification(t *testing.T) {
	const keys, rate, every, spikes = 100, 0.2, 300, 20
	const burst, retries = 10, 4
	secs := float64(every * spikes)
	tr := generate(t, "retry", longRun(keys, rate, time.Duration(secs)*time.Second))
	// Spikes at every/2 + j*every; the last one's retries end by
	// 1 ms + 1.5*(1+2+4+8) s, before the duration ends, so the storm is
	// exactly keys*spikes*burst*(1+retries) requests and the rest is the
	// background, Poisson(keys*rate*secs): σ = sqrt(keys*rate*secs).
	storm := float64(keys * spikes * burst * (1 + retries))
	bg := keys * rate * secs
	checkWithin(t, "amplification (total/background)", float64(len(tr.t))/bg, 1+storm/bg, 5*math.Sqrt(bg)/bg)

	// In the 1 ms after each spike: the keys*burst originals plus
	// background, Poisson(keys*rate*1ms) per spike (retries come >= 1 s
	// later): at most 5σ of that over all spikes.
	inSpike := 0.0
	for _, ti := range tr.t {
		off := (ti - DefaultStart - every/2*int64(time.Second)) % (every * int64(time.Second))
		if off >= 0 && off < int64(time.Millisecond) {
			inSpike++
		}
	}
	extra := spikes * keys * rate * 1e-3
	if lo, hi := float64(spikes*keys*burst), float64(spikes*keys*burst)+extra+5*math.Sqrt(extra); inSpike < lo || inSpike > hi {
		t.Errorf("%v requests within 1 ms of spikes, want %v to %.1f", inSpike, lo, hi)
	}
}

func TestRetryBackoff(t *testing.T) {
	// One source, a background too slow to show (its first request is
	// ~10^12 s away) and burst=1: the stream is the spike's attempt chain,
	// so the gaps are the retry delays.
	for _, c := range []struct {
		own                  map[string]string
		every                float64
		retries              int
		base, factor, jitter float64
	}{
		{map[string]string{"burst": "1"}, 300, 4, 1, 2, 0.5},
		{map[string]string{"burst": "1", "retries": "6", "factor": "1", "jitter": "0", "base": "0.25", "every": "10"}, 10, 6, 0.25, 1, 0},
		{map[string]string{"burst": "1", "retries": "3", "factor": "3", "jitter": "1", "base": "0.1", "every": "60"}, 60, 3, 0.1, 3, 1},
	} {
		s := buildSource(t, "retry", Params{Rate: 1e-12}, c.own, 0)
		ev := int64(c.every * 1e9)
		for j := range int64(200) {
			spike := DefaultStart + ev/2 + j*ev
			prev := s.next()
			if prev < spike || prev >= spike+int64(time.Millisecond) {
				t.Fatalf("%v: spike %d original at %d, want within 1 ms of %d", c.own, j, prev, spike)
			}
			for i := range c.retries {
				tt := s.next()
				lo := c.base * 1e9 * math.Pow(c.factor, float64(i))
				hi := lo * (1 + c.jitter)
				// Exact up to truncation to whole ns: gap = floor(lo*(1+jitter*U)).
				if g := tt - prev; g < int64(lo) || (c.jitter > 0 && float64(g) >= hi) || (c.jitter == 0 && g != int64(lo)) {
					t.Fatalf("%v: spike %d retry %d after %d ns, want in [%v, %v)", c.own, j, i+1, g, lo, hi)
				}
				prev = tt
			}
		}
	}
}
