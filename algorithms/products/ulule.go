package products

import "ratebench/algorithms"
import "time"

func init() {
	algorithms.Register(algorithms.Kind{Spec: "ulule", Place: 9, About: "github.com/ulule/limiter (Redis store): fixed window anchored at the key's first hit, Redis's millisecond clock, every request counted",
		Build: algorithms.NoParams(func(r algorithms.Rule) algorithms.Limiter { return NewUlule(r) })})
}

// Ulule is github.com/ulule/limiter/v3 v3.11.2 (commit
// 7bcd373c22562094f66969c6f19b6cf0e3af5e6b) behind its Redis store, with
// the rule mapped to limiter.Rate{Period: W, Limit: L}; modelled exactly
// from the source:
//
//   - Every request is counted: Limiter.Get and Limiter.Increment (limiter.go:
//     48-50, 63-65) call Store.Increment, which runs luaIncrScript
//     (drivers/store/redis/store.go:18-31, 99-102): INCRBY key count, for
//     every request, refused or not (the middleware refuses after the
//     increment, drivers/middleware/stdlib/middleware.go:45-58).
//   - A request is refused ("reached") when the count after the increment
//     exceeds the limit: count <= limit is not reached
//     (drivers/store/common/context.go:15-18). So it is admitted iff
//     curr + cost <= L, as fixed.
//   - The window is anchored at the key's first hit: when INCRBY's result
//     equals the request's count (the key was absent, or held 0) the script
//     sets PEXPIRE key Period.Milliseconds() (store.go:23-27, 100); later
//     requests leave the expiry alone. The key lives until Redis expires it,
//     which it does once its clock is past the expiry, now > when (Redis
//     src/db.c, keyIsExpired): a request at exactly first hit + W still
//     counts in the old window. The first request after that recreates the
//     key and anchors a new window.
//   - Redis's clock is milliseconds: the expiry is the script's start time in
//     milliseconds plus the period's whole milliseconds (rate.Period.
//     Milliseconds() truncates; a period below 1 ms gives ttl 0, and the
//     script sets no expiry at all: the key never expires).
//
// The memory store decides alike on a nanosecond clock (ulule:without=clock):
// its counter expires when time.Now().UnixNano() > expiration, and an
// expired counter restarts at the request's count with expiration now +
// Period (drivers/store/memory/cache.go:99-111, 186-192); it re-anchors only
// at expiry, where the Redis store also re-anchors a key that holds 0 (a
// request of cost 0 first).
//
// Deviations from fixed: "anchor" (off: windows aligned to the epoch, the
// twin's), "clock" (off: nanoseconds, and the period W exactly) and
// "counts-refused" (off: only what the harness records is counted, as
// fixed). With all three off it decides as fixed.
//
// Memory: the count and its key's expiry, 16 bytes per key (a Redis counter
// with a TTL).
type Ulule struct {
	algorithms.DeviationSet
	rule algorithms.Rule
	st   algorithms.PerKey[ululeState]
}

// ululeState is a key's count and the start of its window on the model's
// clock (milliseconds with "clock" on), or with "anchor" off the window's
// index. live is false while the key is absent (expired or never seen).
type ululeState struct {
	start, curr int64
	live        bool
}

const (
	ululeAnchor = iota
	ululeClock
	ululeCountsRefused
)

// NewUlule returns ulule/limiter's Redis store for rule r.
func NewUlule(r algorithms.Rule) *Ulule {
	u := &Ulule{rule: r}
	u.SetDeviations(
		algorithms.Deviation{Name: "anchor", About: "anchors the window at the key's first request (a Redis key with a TTL of W, recreated by the first request after it expired), not at multiples of W; the key expires only once the time is past its expiry"},
		algorithms.Deviation{Name: "clock", About: "decides on Redis's millisecond clock: the time floored to whole milliseconds, the window's TTL W truncated to whole milliseconds"},
		algorithms.Deviation{Name: "counts-refused", About: "counts every request, refused ones too (INCRBY before the check)"},
	)
	return u
}

func (u *Ulule) Name() string         { return "ulule" + u.Suffix() }
func (*Ulule) Twin() string           { return "fixed" }
func (u *Ulule) Grow(n int)           { u.st.Grow(n) }
func (*Ulule) Bytes(int32) int64      { return 16 }
func (*Ulule) FixedSize() bool        { return true }
func (*Ulule) CountsRejected() bool   { return true }
func (u *Ulule) CountsEvery() bool    { return u.OnAt(ululeCountsRefused) }
func (u *Ulule) Warm(id int32) uint64 { return uint64(u.st.At(id).curr) }

// clock returns t and the period on the model's clock: milliseconds
// (floored, and W truncated, as rate.Period.Milliseconds()) or nanoseconds.
func (u *Ulule) clock(t int64) (now, period int64) {
	if u.OnAt(ululeClock) {
		ms := int64(time.Millisecond)
		return algorithms.FloorDiv(t, ms), u.rule.W / ms
	}
	return t, u.rule.W
}

// where returns what the key's start must be at now for its window to be
// current: with "anchor" the anchor itself when the key has not expired
// (now <= start+period; a period of 0 never expires), else the window index.
func (u *Ulule) where(s *ululeState, now, period int64) (int64, bool) {
	if u.OnAt(ululeAnchor) {
		return s.start, period == 0 || now-s.start <= period
	}
	if period == 0 {
		return 0, true
	}
	w := algorithms.FloorDiv(now, period)
	return w, w == s.start
}

// advance drops the key once its window is over.
func (u *Ulule) advance(s *ululeState, t int64) int64 {
	now, period := u.clock(t)
	if s.live {
		if _, ok := u.where(s, now, period); !ok {
			*s = ululeState{}
		}
	}
	return now
}

func (u *Ulule) Decide(id int32, t, cost int64) bool {
	s := u.st.At(id)
	u.advance(s, t)
	return cost <= u.rule.L-s.curr
}

// Record increments the key; a key absent or holding 0 is (re)anchored:
// INCRBY's result equals the count, and the script sets the TTL.
func (u *Ulule) Record(id int32, t, cost int64) {
	s := u.st.At(id)
	now := u.advance(s, t)
	if !s.live || s.curr == 0 {
		s.start, s.live = now, true
		if !u.OnAt(ululeAnchor) {
			_, period := u.clock(t)
			s.start, _ = u.where(s, now, period)
		}
	}
	s.curr = algorithms.SatAdd(s.curr, cost)
}

// Estimate returns the window's count, as the fixed window.
func (u *Ulule) Estimate(id int32, _ int64) algorithms.Rational {
	return algorithms.Whole(u.st.At(id).curr)
}

// Idle: the key is absent at t (or holds 0).
func (u *Ulule) Idle(id int32, t int64) bool {
	s := u.st.At(id)
	u.advance(s, t)
	return s.curr == 0
}

func (u *Ulule) Release(id int32) { *u.st.At(id) = ululeState{} }
