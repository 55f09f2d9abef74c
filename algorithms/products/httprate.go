package products

import (
	"fmt"
	"math"
	"strings"
	"time"

	"ratebench/algorithms"
)

func init() {
	algorithms.Register(algorithms.Kind{Spec: "httprate[:offset=D]", Place: 15, About: "go-chi/httprate's in-process counter (httprate.Limit(L, W)): sliding window counter in float64 with the estimate rounded to the nearest whole request, windows shifted by the limiter's start (offset=D, default none: aligned to the epoch)",
		Build: func(c algorithms.Call, r algorithms.Rule) (algorithms.Limiter, error) {
			if c.HasArg && strings.TrimSpace(c.Arg) == "" {
				return nil, fmt.Errorf("algorithm %q: want httprate, or httprate:offset=D", c.Spec)
			}
			return NewHTTPRate(r, c.Arg)
		}})
}

// HTTPRate is go-chi/httprate's rate limiter with its in-process counter,
// httprate.Limit(L, W) (NewRateLimiter(requestLimit L, windowLength W)),
// modelled from the source at commit
// 741b4a550f982dab146dee10f2b154b01c06facd (limiter.go, local_counter.go):
//
//   - The estimate is the sliding window counter's, in float64:
//     rate = float64(prev)*(float64(W)-float64(diff))/float64(W) +
//     float64(curr), diff the time elapsed in the current window
//     (limiter.go:165-181, calculateRate).
//   - It is rounded to the nearest whole request, halves away from zero,
//     rate := int(math.Round(rateFloat)), and the request is refused iff
//     rate+increment > limit (limiter.go:95, 102): admitted iff
//     round(E) + cost <= L, the increment being the cost
//     (httprate.WithIncrement).
//   - Only admitted requests are counted: IncrementBy runs after the check
//     (limiter.go:110).
//   - The clock is time.Now().UTC(): wall nanoseconds (UTC strips the
//     monotonic reading).
//   - The windows start at multiples of W shifted by windowOffset, the
//     instant the limiter was made modulo W (limiter.go:40-45,
//     currentWindow at 158-163). A replay cannot know that instant: the
//     model aligns the windows to the Unix epoch unless the spec gives the
//     shift from it, httprate:offset=D (0 <= D < W). (With a custom
//     LimitCounter the offset is 0 and time.Time.Truncate cuts windows at
//     multiples of W since year 1, the epoch's for any W that divides a
//     day; for another W give their shift as offset.)
//   - The counter keeps the current and the previous window's counts of
//     each key, and one window for all keys (local_counter.go): a key's
//     counts move to the previous window when any key is counted in the
//     next, and are read as the previous window's only from the next
//     window: per key, that is the counter's two windows.
//
// What changes no decision, and is left out: the 64-bit hash of the key
// (xxh3) the counter's maps are keyed by, whose collisions would join two
// keys; the headers; the per-request limit override (WithRequestLimit),
// unused.
//
// As a Product its twin is counter, and its deviations are round (the
// estimate rounded to the nearest whole request: off, E + cost <= L),
// float (the estimate in float64: off, exact) and, with offset=D, offset
// (the windows shifted by D: off, aligned to the epoch). With all off it
// decides as counter.
//
// Memory: the current and the previous count of each key, each a map
// entry of its 64-bit key hash and an int, 32 bytes per key (the window is
// one for all keys).
type HTTPRate struct {
	algorithms.DeviationSet
	rule   algorithms.Rule
	offset int64 // the windows' shift, 0 <= offset < W
	st     algorithms.PerKey[algorithms.CounterState]
}

// The deviations, in the order of the list.
const (
	httprateRound = iota
	httprateFloat
	httprateOffset // listed only with offset=D
)

// NewHTTPRate returns httprate's limiter for rule r; arg is what follows
// "httprate:" in the spec ("" or "offset=D").
func NewHTTPRate(r algorithms.Rule, arg string) (*HTTPRate, error) {
	h := &HTTPRate{rule: r}
	if arg != "" {
		v, ok := strings.CutPrefix(strings.TrimSpace(arg), "offset=")
		d, err := time.ParseDuration(v)
		if !ok || err != nil || d < 0 || int64(d) >= r.W {
			return nil, fmt.Errorf("algorithm \"httprate:%s\": want httprate:offset=D with D a duration from 0 to less than the window %s", arg, algorithms.FormatWindow(r.W))
		}
		h.offset = int64(d)
	}
	devs := []algorithms.Deviation{
		{Name: "round", About: "rounds the estimate to the nearest whole request (halves up) before adding the cost: admits while round(E) + cost <= L"},
		{Name: "float", About: "computes the estimate in float64, as prev*(W-e)/W + curr, where an estimate within a rounding of a boundary crosses it"},
	}
	if h.offset != 0 {
		devs = append(devs, algorithms.Deviation{Name: "offset", About: "starts its windows " + algorithms.FormatWindow(h.offset) + " after the epoch's multiples of W, at the instant the limiter was made"})
	}
	h.SetDeviations(devs...)
	return h, nil
}

func (h *HTTPRate) Name() string {
	name := "httprate"
	if h.offset != 0 {
		name += ":offset=" + algorithms.FormatWindow(h.offset)
	}
	return name + h.Suffix()
}

func (*HTTPRate) Twin() string         { return "counter" }
func (h *HTTPRate) Grow(n int)         { h.st.Grow(n) }
func (*HTTPRate) Bytes(int32) int64    { return 32 }
func (*HTTPRate) FixedSize() bool      { return true }
func (*HTTPRate) CountsRejected() bool { return true }

// clock is the time the windows are cut on: t less the offset, moved a
// window on so that it stays >= 0 (windows of W from the offset are the
// windows of W from 0 of t + W - offset).
func (h *HTTPRate) clock(t int64) int64 {
	if h.offset == 0 || !h.OnAt(httprateOffset) {
		return t
	}
	return algorithms.SatAdd(t, h.rule.W-h.offset)
}

func (h *HTTPRate) Decide(id int32, t, cost int64) bool {
	W, L := h.rule.W, h.rule.L
	s := h.st.At(id)
	e := s.Advance(h.clock(t), W)
	round, float := h.OnAt(httprateRound), h.OnAt(httprateFloat)
	switch {
	case float && round: // the source: rate := int(math.Round(rateFloat)); refused iff rate+increment > limit
		rate := int64(math.Round(float64(s.Prev)*(float64(W)-float64(e))/float64(W) + float64(s.Curr)))
		return cost <= L && rate <= L-cost
	case float: // the float estimate, compared unrounded
		rate := float64(s.Prev)*(float64(W)-float64(e))/float64(W) + float64(s.Curr)
		return !(rate+float64(cost) > float64(L))
	case round:
		q, rem, _ := algorithms.DivMod(s.Prev, W-e, W) // <= prev: always fits
		if rem >= W-rem {                              // half or more: away from zero
			q++
		}
		return cost <= L && q <= L-cost && s.Curr <= L-cost-q
	}
	return algorithms.CounterLE(s.Prev, s.Curr, e, cost, L, W)
}

func (h *HTTPRate) Record(id int32, t, cost int64) {
	s := h.st.At(id)
	s.Advance(h.clock(t), h.rule.W)
	s.Curr = algorithms.SatAdd(s.Curr, cost)
}

// Idle: both counts that t's window would read are empty.
func (h *HTTPRate) Idle(id int32, t int64) bool { return h.st.At(id).Idle(h.clock(t), h.rule.W) }

func (h *HTTPRate) Release(id int32)          { *h.st.At(id) = algorithms.CounterState{} }
func (h *HTTPRate) Warm(id int32) uint64      { return uint64(h.st.At(id).Curr) }
func (h *HTTPRate) Place(b *algorithms.Block) { h.st.Place(b) }
