package products

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"golang.org/x/time/rate"
)

// traefikBucket is x/time/rate's Limiter without its mutex and time.Time:
// driven with the middleware's calls (a new limiter at a source's first
// request, TokensAt, ReserveN taken or cancelled at once, a burst raised
// for a reservation beyond it) beside the library itself, its tokens are
// the library's bit for bit after every call, at rates whose floats round
// (1/3 and 7/9 of a token a second, 1e9/7), in debt and refilled past
// the burst, and across gaps that saturate time.Time.Sub.
func TestTraefikBucketIsXRate(t *testing.T) {
	rng := rand.New(rand.NewPCG(45, 11))
	for _, c := range []struct {
		limit float64
		burst int64
	}{{1.0 / 3, 1}, {7.0 / 9, 5}, {1e9 / 7, 100}, {100.0 / 60, 100}, {2.5, 3}} {
		start := int64(1_700_000_000)*int64(time.Second) + rng.Int64N(int64(time.Second))
		lim := rate.NewLimiter(rate.Limit(c.limit), int(c.burst))
		b := traefikBucket{tokens: float64(c.burst), last: start}
		lim.TokensAt(time.Unix(0, start)) // the library's first advance, from year 1: full
		tt := start
		for i := range 5000 {
			switch rng.IntN(50) {
			case 0:
				tt += int64(time.Hour) // refilled past the burst
			case 1, 2, 3, 4, 5:
			default:
				tt += rng.Int64N(int64(float64(time.Second)/c.limit) + 1)
			}
			at := time.Unix(0, tt)
			n := 1 + rng.Int64N(c.burst+2)
			switch rng.IntN(3) {
			case 0: // a refusal: reserved and cancelled at once
				if n <= c.burst {
					lim.ReserveN(at, int(n)).CancelAt(at)
					b.reserve(tt, n, c.limit, c.burst)
					b.cancel(tt, n, c.limit, c.burst)
				}
			case 1: // taken, into debt past the burst by raising it
				if n > c.burst {
					lim.SetBurstAt(at, int(n))
					lim.ReserveN(at, int(n))
					lim.SetBurstAt(at, int(c.burst))
					b.setBurst(tt, c.limit, c.burst)
					b.reserve(tt, n, c.limit, n)
					b.setBurst(tt, c.limit, n)
				} else {
					lim.ReserveN(at, int(n))
					b.reserve(tt, n, c.limit, c.burst)
				}
			}
			want, got := lim.TokensAt(at), b.at(tt, c.limit, c.burst)
			if math.Float64bits(want) != math.Float64bits(got) {
				t.Fatalf("limit %v burst %d, step %d at %d ns: tokens %v, the library's %v", c.limit, c.burst, i, tt, got, want)
			}
		}
	}
	// A gap past what time.Duration holds saturates, as Sub does.
	b := traefikBucket{tokens: -5, last: math.MinInt64 / 2}
	if got := b.at(math.MaxInt64/2+10, 1e-12, 3); got != -5+time.Duration(math.MaxInt64).Seconds()*1e-12 {
		t.Errorf("a saturated gap: %v tokens", got)
	}
}

// BenchmarkTraefikBucket: the middleware's calls for one request (advance,
// and for a refusal a reservation cancelled at once; for an admission the
// reservation kept) on x/time/rate's Limiter and on traefikBucket, over
// 1,024 sources at a rate that refuses about half.
func BenchmarkTraefikBucket(b *testing.B) {
	const sources, burst, limit = 1024, 5, 2.0
	start := int64(1_700_000_000) * int64(time.Second)
	step := int64(float64(time.Second) / limit / 2) // twice the rate
	b.Run("x-time-rate", func(b *testing.B) {
		lims := make([]rate.Limiter, sources)
		for i := range lims {
			lims[i].SetBurstAt(time.Time{}, burst)
			lims[i].SetLimitAt(time.Time{}, rate.Inf)
			lims[i].SetLimitAt(time.Unix(0, start), limit)
		}
		for i := 0; b.Loop(); i++ {
			t := start + int64(i/sources)*step
			at := time.Unix(0, t)
			lim := &lims[i%sources]
			if lim.TokensAt(at) >= 1 {
				lim.ReserveN(at, 1)
			} else {
				lim.ReserveN(at, 1).CancelAt(at)
			}
		}
	})
	b.Run("bucket", func(b *testing.B) {
		bs := make([]traefikBucket, sources)
		for i := range bs {
			bs[i] = traefikBucket{tokens: burst, last: start}
		}
		for i := 0; b.Loop(); i++ {
			t := start + int64(i/sources)*step
			bk := &bs[i%sources]
			if bk.at(t, limit, burst) >= 1 {
				bk.reserve(t, 1, limit, burst)
			} else {
				bk.reserve(t, 1, limit, burst)
				bk.cancel(t, 1, limit, burst)
			}
		}
	})
}
