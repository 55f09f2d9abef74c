package products

import (
	"fmt"
	"time"

	"ratebench/algorithms"
)

func init() {
	algorithms.Register(algorithms.Kind{Spec: "envoy", Place: 2, About: "Envoy's global rate limit service: fixed window on the epoch in whole seconds, W one unit (1s, 1m, 1h, 24h, ...), every request counted",
		Build: func(c algorithms.Call, r algorithms.Rule) (algorithms.Limiter, error) {
			if err := c.NoArg(); err != nil {
				return nil, err
			}
			return NewEnvoy(r)
		}})
}

// Envoy is the global rate limit service of Envoy (github.com/envoyproxy/
// ratelimit, its Redis backend), modelled exactly from the source at commit
// f2fb15770f7fd1c88ca6c3a1b58ee513917ace96, with the rule mapped to one
// descriptor limit: requests_per_unit = L and the unit whose length is W.
//
//   - The clock is whole seconds: now = time.Now().Unix()
//     (src/utils/time.go:24), here floor(t / 1s).
//   - The window is aligned to the epoch: the cache key ends with
//     (now/divider)*divider (src/limiter/cache_key.go:82), divider the
//     unit's seconds (UnitToDivider, src/utils/utilities.go:20-35: second 1,
//     minute 60, hour 3600, day 86400, week 7 days, month 30 days, year 365
//     days). Any other window cannot be configured; New refuses it.
//   - Every request is counted: the pipeline sends INCRBY key hits_addend
//     for every request (src/redis/fixed_cache_impl.go:36, 161-187), over
//     the limit or not, so the count includes refused requests and costs.
//     The cost is hits_addend (at least 1, src/utils/utilities.go:86).
//   - A request is over the limit when the count after the increment
//     exceeds the limit: limitAfterIncrease > overLimitThreshold
//     (src/limiter/base_limiter.go:104, with limitAfterIncrease the INCRBY
//     result, src/redis/fixed_cache_impl.go:211). So it is admitted iff
//     curr + cost <= L, curr the cost counted in the window so far.
//
// What changes no decision, and is left out: the near-limit ratio
// (base_limiter.go:102, statistics only); the local over-limit cache
// (base_limiter.go:92, 111-123; fixed_cache_impl.go:103, 162), which refuses
// a key flagged over the limit without counting it until the window's key
// changes, when the count has already passed the limit and would refuse it
// anyway (the count only grows within a window); STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT
// (fixed_cache_impl.go:44-72), which with one descriptor per request skips
// the increment only for a key the local cache flagged; the key's EXPIRE of
// one unit (fixed_cache_impl.go:37, 168), refreshed by every request, which
// outlives the window; and shadow mode, off.
//
// It counts every request whatever the harness's count policy and mode
// (CountsEvery): that is the product's behaviour, not an option. With cost 1
// this decides as fixed; with larger costs a refused request still uses up
// the window.
//
// As a Product its twin is fixed, and its one deviation is counts-refused:
// every request is counted, refused ones included (off: only what the
// harness records, as fixed). The whole-second clock is no deviation: the
// unit is whole seconds and the windows start on the epoch, so the window
// of floor(t/1s) is the window of t for any t >= 0 (a trace's times are);
// only before the epoch would the division's truncation toward zero
// differ.
//
// Memory: the count and the window, 16 bytes per key (a Redis counter and
// its key's window start).
type Envoy struct {
	algorithms.DeviationSet
	rule algorithms.Rule
	div  int64 // the unit in seconds
	st   algorithms.PerKey[envoyState]
}

// envoyState is one key's window (now/divider, in the service's integer
// arithmetic) and the cost counted in it. The zero value is window 0, empty.
type envoyState struct {
	win, curr int64
}

// envoyUnits are the units the service knows, in seconds
// (src/utils/utilities.go:20-35).
var envoyUnits = []struct {
	name string
	secs int64
}{{"second", 1}, {"minute", 60}, {"hour", 3600}, {"day", 86400},
	{"week", 7 * 86400}, {"month", 30 * 86400}, {"year", 365 * 86400}}

// NewEnvoy returns Envoy's rate limit service for rule r, or an error when
// no descriptor limit expresses r.
func NewEnvoy(r algorithms.Rule) (*Envoy, error) {
	if r.L > 1<<32-1 {
		return nil, fmt.Errorf("algorithm \"envoy\": requests_per_unit is a 32-bit count; the limit %d is too large", r.L)
	}
	for _, u := range envoyUnits {
		if r.W == u.secs*int64(time.Second) {
			e := &Envoy{rule: r, div: u.secs}
			e.SetDeviations(algorithms.Deviation{Name: "counts-refused", About: "counts every request in the window, refused ones included (a refused request of cost > 1 still uses up the window)"})
			return e, nil
		}
	}
	return nil, fmt.Errorf("algorithm \"envoy\": the rate limit service's units are second, minute, hour, day, week, month (30 days) and year (365 days): give a window of 1s, 1m, 1h, 24h, 168h, 720h or 8760h, not %s", algorithms.FormatWindow(r.W))
}

func (e *Envoy) Name() string       { return "envoy" + e.Suffix() }
func (*Envoy) Twin() string         { return "fixed" }
func (e *Envoy) Grow(n int)         { e.st.Grow(n) }
func (*Envoy) Bytes(int32) int64    { return 16 }
func (*Envoy) FixedSize() bool      { return true }
func (*Envoy) CountsRejected() bool { return true }

// CountsEvery: the service increments the counter for every request
// (deviation counts-refused).
func (e *Envoy) CountsEvery() bool { return e.OnAt(envoyCountsRefused) }

const envoyCountsRefused = 0

// advance moves the key to the window of t: now = floor(t/1s), window
// now/divider with Go's division, as the cache key (a new key starts at 0).
func (e *Envoy) advance(s *envoyState, t int64) {
	if w := algorithms.FloorDiv(t, int64(time.Second)) / e.div; w != s.win {
		s.win, s.curr = w, 0
	}
}

func (e *Envoy) Decide(id int32, t, cost int64) bool {
	s := e.st.At(id)
	e.advance(s, t)
	return cost <= e.rule.L-s.curr // not curr+cost > L
}

func (e *Envoy) Record(id int32, t, cost int64) {
	s := e.st.At(id)
	e.advance(s, t)
	s.curr = algorithms.SatAdd(s.curr, cost)
}

// Estimate returns the window's count, as the fixed window.
func (e *Envoy) Estimate(id int32, _ int64) algorithms.Rational {
	return algorithms.Whole(e.st.At(id).curr)
}

// Idle: the key's counter is empty or belongs to another window than t's.
func (e *Envoy) Idle(id int32, t int64) bool {
	s := e.st.At(id)
	e.advance(s, t)
	return s.curr == 0
}

func (e *Envoy) Release(id int32)     { *e.st.At(id) = envoyState{} }
func (e *Envoy) Warm(id int32) uint64 { return uint64(e.st.At(id).curr) }
