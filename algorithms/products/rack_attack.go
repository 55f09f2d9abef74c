package products

import (
	"fmt"
	"time"

	"ratebench/algorithms"
)

func init() {
	algorithms.Register(algorithms.Kind{Spec: "rack-attack", Place: 19, About: "rack-attack's throttle(name, limit: L, period: W) on its cache store: fixed window on the epoch in whole seconds (Time.now.to_i, period.to_i), every request counted",
		Build: func(c algorithms.Call, r algorithms.Rule) (algorithms.Limiter, error) {
			if err := c.NoArg(); err != nil {
				return nil, err
			}
			return NewRackAttack(r)
		}})
}

// RackAttack is rack-attack's throttle, Rack::Attack.throttle(name,
// limit: L, period: W) { |req| discriminator }, on its cache store
// (Rack::Attack.cache.store, e.g. ActiveSupport::Cache::MemoryStore or
// Rails.cache), modelled from rack/rack-attack v6.6.1 (commit
// f5f92f44594f9c1ae33f9bfeeaa329348941350c, the version Debian packages as
// ruby-rack-attack 6.6.1-1, whose files are the same). The rule L/W is
// configured as its README writes "L requests per W": limit: L and
// period: W in seconds (period: 60 or period: 1.minute for a minute).
//
//   - The period is whole seconds: Throttle#initialize keeps
//     options[:period].to_i (lib/rack/attack/throttle.rb:17), so a period of
//     1.5 s is 1 s, and one below a second is 0, by which the cache key's
//     arithmetic divides (cache.rb:66, ZeroDivisionError on the first
//     request): New refuses such a window.
//   - The clock is whole seconds, Time.now.to_i (lib/rack/attack/cache.rb:64),
//     and the window is the epoch's: the cache key is
//     "#{prefix}:#{now / period}:#{name}:#{discriminator}" (cache.rb:67),
//     Ruby's integer division, which floors.
//   - Every request is counted, then compared: Throttle#matched_by? takes
//     count = cache.count(key, period) (throttle.rb:31), which increments
//     the store's counter by 1 (Cache#do_count, cache.rb:70-83: increment,
//     or write 1 when the store returns nil for a missing key) whatever
//     follows, and the request is throttled iff count > limit
//     (throttle.rb:41). So it is admitted iff curr + 1 <= L, curr the
//     requests counted in the window so far, refused ones included.
//   - A throttle has no cost: do_count increments by 1 (cache.rb:74), and
//     neither throttle nor its options take a weight, so a request of
//     cost c counts one (deviation one-hit). With one-hit off it is an
//     increment of c, admitted iff curr + c <= L, as the twin takes it.
//   - An idle key: the counter of a window is written with expires_in =
//     period - now % period + 1 (cache.rb:66), so the store drops it a
//     second after its window has ended, when no request reads it any more
//     (the next window's key is another); a key's first request in a window
//     starts from 0.
//
// The whole-second clock is no deviation of its own: with a period of
// whole seconds the windows start on whole seconds from the epoch, so
// floor(floor(t/1s)/P) = floor(t/(P s)), the window of t itself. It shows
// only with a window that is not whole seconds, which the period's
// truncation already changes; turning that off (period) decides on the
// trace's own time, with windows of W.
//
// What changes no decision, and is left out: the discriminator normalizer
// (lib/rack/attack.rb:90-92, strip and downcase), which joins keys that
// differ only in case or surrounding blanks (the replay's keys are
// distinct ids); the annotations and notifications of a throttled request;
// the other throttles, safelists and blocklists, none configured.
//
// As a Product its twin is fixed, and its deviations are period (the
// window's length truncated to whole seconds, off: windows of W on the
// trace's nanoseconds), counts-refused (every request counted, off: only
// what the harness records, as fixed) and one-hit (one per request
// whatever its cost, off: its cost). Counting refused requests changes a
// decision only with one-hit off and costs above 1, where a refused
// request uses up the window: a request counting one is refused only when
// the count has reached L, and it only grows within a window.
//
// The live target rack-attack (package live/ruby) runs the real
// middleware, Debian's ruby-rack-attack 6.6.1 on ActiveSupport 6.1's
// MemoryStore, with Time.now driven by the trace, beside this model.
//
// Memory: the counter and its entry's expiry, 16 bytes per key (the
// window is in the cache key's name).
type RackAttack struct {
	algorithms.DeviationSet
	rule   algorithms.Rule
	period int64 // the period in whole seconds, period.to_i
	st     algorithms.PerKey[rackAttackState]
}

// rackAttackState is one key's counter: the window its cache key names
// (now / period) and the requests counted in it. The zero value is window
// 0, empty.
type rackAttackState struct {
	win, curr int64
}

const (
	rackAttackPeriod = iota
	rackAttackCountsRefused
	rackAttackOneHit
)

// NewRackAttack returns rack-attack's throttle for rule r, or an error for
// a window below a second (a period of 0 seconds).
func NewRackAttack(r algorithms.Rule) (*RackAttack, error) {
	p := r.W / int64(time.Second)
	if p < 1 {
		return nil, fmt.Errorf("algorithm \"rack-attack\": the period is whole seconds (period.to_i): a window of %s is a period of 0, which the throttle divides by; give a window of 1s or more", algorithms.FormatWindow(r.W))
	}
	ra := &RackAttack{rule: r, period: p}
	ra.SetDeviations(
		algorithms.Deviation{Name: "period", About: "cuts its windows on whole seconds from the epoch (Time.now.to_i), W truncated to whole seconds (period.to_i): windows of 1 s for a window of 1.5 s"},
		algorithms.Deviation{Name: "counts-refused", About: "counts every request in the window, refused ones included (a refused request of cost > 1 still uses up the window)"},
		algorithms.Deviation{Name: "one-hit", About: "counts one per request whatever its cost (the cache's counter is incremented by 1)"},
	)
	return ra, nil
}

// Period returns the throttle's period in whole seconds, as configured.
func (ra *RackAttack) Period() int64 { return ra.period }

func (ra *RackAttack) Name() string              { return "rack-attack" + ra.Suffix() }
func (*RackAttack) Twin() string                 { return "fixed" }
func (ra *RackAttack) Grow(n int)                { ra.st.Grow(n) }
func (*RackAttack) Bytes(int32) int64            { return 16 }
func (*RackAttack) FixedSize() bool              { return true }
func (*RackAttack) CountsRejected() bool         { return true }
func (ra *RackAttack) CountsEvery() bool         { return ra.OnAt(rackAttackCountsRefused) }
func (ra *RackAttack) Warm(id int32) uint64      { return uint64(ra.st.At(id).curr) }
func (ra *RackAttack) Place(b *algorithms.Block) { ra.st.Place(b) }

// window returns the index of t's window: now / period with now =
// Time.now.to_i (both floor), or with period off floor(t/W).
func (ra *RackAttack) window(t int64) int64 {
	if ra.OnAt(rackAttackPeriod) {
		return algorithms.FloorDiv(algorithms.FloorDiv(t, int64(time.Second)), ra.period)
	}
	return algorithms.FloorDiv(t, ra.rule.W)
}

// advance moves the key to t's window; a new window's key starts at 0.
func (ra *RackAttack) advance(s *rackAttackState, t int64) {
	if w := ra.window(t); w != s.win {
		s.win, s.curr = w, 0
	}
}

// Decide: count = curr + 1 after the increment (curr + cost with one-hit
// off), throttled iff count > L.
func (ra *RackAttack) Decide(id int32, t, cost int64) bool {
	s := ra.st.At(id)
	ra.advance(s, t)
	return oneHit(ra.OnAt(rackAttackOneHit), cost) <= ra.rule.L-s.curr
}

func (ra *RackAttack) Record(id int32, t, cost int64) {
	s := ra.st.At(id)
	ra.advance(s, t)
	s.curr = algorithms.SatAdd(s.curr, oneHit(ra.OnAt(rackAttackOneHit), cost))
}

// Estimate returns the window's count, as the fixed window.
func (ra *RackAttack) Estimate(id int32, _ int64) algorithms.Rational {
	return algorithms.Whole(ra.st.At(id).curr)
}

// Idle: the key's counter is empty or belongs to another window than t's.
func (ra *RackAttack) Idle(id int32, t int64) bool {
	s := ra.st.At(id)
	ra.advance(s, t)
	return s.curr == 0
}

func (ra *RackAttack) Release(id int32) { *ra.st.At(id) = rackAttackState{} }
