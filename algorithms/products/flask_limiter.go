package products

import (
	"fmt"
	"math/bits"
	"sort"
	"strings"
	"time"

	"ratebench/algorithms"
)

func init() {
	algorithms.Register(algorithms.Kind{Spec: "flask-limiter[:strategy=fixed|moving][:storage=memory|redis]", Place: 24, About: "Flask-Limiter, whose decisions are the limits library's (2.8.0): fixed window anchored at the key's first hit, every hit counted (the default strategy), or the moving window, a list of float timestamps; in memory (default) or in Redis",
		Build: func(c algorithms.Call, r algorithms.Rule) (algorithms.Limiter, error) {
			return NewFlaskLimiter(r, c.Spec, c.Arg, c.HasArg)
		}})
}

// FlaskLimiter is Flask-Limiter 3.3.1 (alisaifee/flask-limiter commit
// b2f27ce0c7a12acc710254ab2d587cf106c01fc8), whose decisions are those of
// the limits library it calls, limits 2.8.0 (alisaifee/limits commit
// 9ee3d6886c3a2d6fe5a89fe4c589f6ed09617f64, Debian's python3-limits 2.8.0),
// modelled from the source.
//
// The rule L/W is the limit string "L per N second" with N = W in seconds,
// as Flask-Limiter's documentation writes "L per W" (@limiter.limit("5 per
// second"), "100/minute", "100 per 90 seconds"): limits parses it
// (limits/util.py:20-27, 132-156) into a RateLimitItem of amount L and
// get_expiry() = granularity seconds * multiples (limits/limits.py:98-103),
// an int of whole seconds. A window that is not whole seconds is refused.
// Each request is a hit of cost 1 (the route's cost, flask_limiter/
// extension.py:974-983), a request costing c a hit of cost c.
//
// The strategy is Flask-Limiter's RATELIMIT_STRATEGY, "fixed-window" by
// default (extension.py:306-308), and the storage RATELIMIT_STORAGE_URI,
// "memory://" by default (extension.py:290-299):
//
// Fixed window (strategy=fixed, the default; twin fixed), FixedWindow-
// RateLimiter.hit (limits/strategies.py:131-149) returns storage.incr(key,
// W, amount=cost) <= L:
//
//   - Every hit is counted, refused ones too: incr adds the cost before the
//     comparison (deviation counts-refused).
//   - The window is anchored at the key's first hit: incr sets the key's
//     expiry to now + W when the count after the increment equals the cost,
//     that is when the key was absent (or held 0), and leaves it alone
//     otherwise (deviation anchor). The memory storage (limits/storage/
//     memory.py:52-82) drops the count once expirations[key] <=
//     time.time(), in float64 seconds: a hit at exactly first hit + W
//     starts a new window, the expiry is the float sum time.time() + W and
//     the comparison is of floats (deviation float). The Redis storage runs
//     incr_expire.lua (limits/resources/redis/lua_scripts/incr_expire.lua,
//     limits/storage/redis.py:172-186): INCRBY, then EXPIRE key W when the
//     result equals the cost; Redis expires a key once its millisecond clock
//     is past the expiry (now > when): a hit at exactly first hit + W still
//     counts in the old window (deviation anchor), and the anchor is the
//     script's millisecond (deviation clock, which shows only with the
//     anchor). With anchor off the windows are the epoch's multiples of W.
//
// Moving window (strategy=moving; twin log), MovingWindowRateLimiter.hit
// (strategies.py:74-87) calls storage.acquire_entry(key, L, W, cost). The
// key holds a list of timestamps, newest first, one per unit of cost
// admitted (memory.py:92-111; acquire_moving_window.lua, redis.py:82-100):
//
//   - timestamp = time.time(); the entry at index L-cost is fetched and the
//     hit refused iff it exists and entry >= timestamp - W; otherwise cost
//     copies of the timestamp are pushed at the head. Refused hits add
//     nothing. So a hit is refused iff L-cost+1 entries lie in [t-W, t]: an
//     entry exactly W old still counts (deviation closed; the log's window
//     is (t-W, t]).
//   - The timestamps are float64 seconds, time.time(), compared in float64
//     with the float difference timestamp - W (deviation float). The Redis
//     storage gets them from the client (ARGV[1], written by redis-py as
//     repr(float) and read back exactly by tonumber; pushed as Lua numbers,
//     which Redis writes with 17 significant digits): the same arithmetic.
//   - A hit costing more than L reads index L-cost < 0, which Python's list
//     and Redis's LINDEX count from the oldest end: the hit is admitted when
//     the list holds fewer than cost-L entries, or when its (cost-L)-th
//     oldest entry is out of the window (deviation over-cost; off, such a
//     hit is refused, as the log refuses it). The Redis storage trims the
//     list to its newest L entries (LTRIM 0 L-1), which the model follows;
//     the memory storage never trims it, and only its background sweep
//     drops entries W old, so for such a hit its decision also depends on
//     when the sweep last ran.
//
// The clock is the Python process's time.time() (the client's, also with
// Redis for the moving window; Redis's own millisecond clock for the fixed
// window's expiry in Redis). time.time() is CPython's nanosecond clock as a
// double: ns/1e9 in float64, or the whole seconds converted exactly when ns
// is a multiple of 1e9 (Python/pytime.c, _PyTime_AsSecondsDouble); the
// model computes it from the trace's nanoseconds the same way.
//
// An idle key: the fixed window's count expires at its expiry (the memory
// storage drops it when next read, or from its sweep; Redis deletes it).
// A moving window's list is dropped as Redis drops it, once its
// millisecond clock (here the trace's) is past the newest entry + W
// (EXPIRE key W after each push). The memory storage's sweep, a
// threading.Timer 10 ms of wall time after a hit, drops each entry once
// entry + W <= time.time() (memory.py:35-50): a hit costing at most L
// reads no entry the sweep or the expiry dropped (the hit's own check
// counts an entry exactly W old, and the sweep ran before the hit),
// unless the entry is within a float64 rounding of W old; a hit costing
// more than L can tell by the list's length.
//
// The deviations, each turned off by ":without=NAME": for the fixed
// window in memory anchor, float and counts-refused; in Redis anchor,
// clock and counts-refused; for the moving window (either storage) closed,
// float and over-cost. With all of a mode's off it decides as its twin,
// fixed or log. Refused hits count in the fixed window (CountsEvery), not
// in the moving window.
//
// The real limits 2.8.0 decides as this model on every request of the
// check's trace and of traces with costs and float-rounding edges
// (package live/python drives it on the trace's clock; package
// live/redis runs acquire_moving_window.lua verbatim in a real Redis).
//
// Memory: the fixed window keeps a count and an expiry, 16 bytes per key;
// the moving window one timestamp of 8 bytes per entry of its list, at
// most L (Bytes counts the list's length).
type FlaskLimiter struct {
	algorithms.DeviationSet
	rule   algorithms.Rule
	moving bool
	redis  bool
	wsec   float64 // W in seconds, limits' get_expiry(), an int made float by the subtraction or sum

	// the deviations' indices in the list, -1 where the mode has none
	iAnchor, iFloat, iClock, iCounts, iClosed, iOver int

	fixed algorithms.PerKey[flaskFixed]
	lists []flaskList

	relPeakMax, relPeakSum int64 // the largest lists of the keys released (Release), in bytes
}

// flaskFixed is a fixed window key: its count and the time of the hit
// that set its expiry (with anchor off, the start of its epoch window).
// live is false while the key is absent.
type flaskFixed struct {
	start, curr int64
	live        bool
}

// flaskList is a moving window key's list of timestamps. It holds the
// entries that may still count, oldest first, as runs of entries pushed by
// one hit (t, and the number of entries pushed up to and including the
// run, cum), from head; base is the cum before the oldest entry held,
// total the cum of the newest. n is the list's length in the product,
// entries pushed since the list was made, at most L; last the newest
// entry's time.
type flaskList struct {
	runs        []flaskRun
	head        int
	base, total int64
	n, last     int64
	peak        int64 // the largest Bytes the key reached
}

type flaskRun struct{ t, cum int64 }

// NewFlaskLimiter returns Flask-Limiter for rule r; arg is what follows
// "flask-limiter:" in spec ("strategy=moving", "storage=redis", both
// joined by ':').
func NewFlaskLimiter(r algorithms.Rule, spec, arg string, hasArg bool) (*FlaskLimiter, error) {
	f := &FlaskLimiter{rule: r, iAnchor: -1, iFloat: -1, iClock: -1, iCounts: -1, iClosed: -1, iOver: -1}
	if hasArg {
		for _, kv := range strings.Split(arg, ":") {
			switch strings.TrimSpace(kv) {
			case "strategy=fixed":
				f.moving = false
			case "strategy=moving":
				f.moving = true
			case "storage=memory":
				f.redis = false
			case "storage=redis":
				f.redis = true
			default:
				return nil, fmt.Errorf("algorithm %q: want flask-limiter[:strategy=fixed|moving][:storage=memory|redis] (%q)", spec, kv)
			}
		}
	}
	sec := int64(time.Second)
	if r.W%sec != 0 || r.W <= 0 {
		s := sec / algorithms.GCD(r.W, sec)
		hint := ""
		if hi, lo := bits.Mul64(uint64(r.L), uint64(s)); hi == 0 && lo < 1<<63 {
			if hi, lo := bits.Mul64(uint64(r.W), uint64(s)); hi == 0 && lo < 1<<63 {
				hint = fmt.Sprintf(" (%s has the same rate)", algorithms.Rule{L: r.L * s, W: r.W * s})
			}
		}
		return nil, fmt.Errorf("algorithm %q: a limits rate limit is \"L per N second\", its window whole seconds, not %s: give a rule whose window is whole seconds%s", spec, algorithms.FormatWindow(r.W), hint)
	}
	f.wsec = float64(r.W / sec)
	var devs []algorithms.Deviation
	add := func(i *int, d algorithms.Deviation) { *i = len(devs); devs = append(devs, d) }
	switch {
	case f.moving:
		add(&f.iClosed, algorithms.Deviation{Name: "closed", About: "counts an entry exactly W old: refuses while L-cost+1 entries lie in [t-W, t], the window closed at both ends"})
		add(&f.iFloat, algorithms.Deviation{Name: "float", About: "compares the timestamps as time.time()'s float64 seconds with the float difference now - W"})
		add(&f.iOver, algorithms.Deviation{Name: "over-cost", About: "admits a request costing more than L unless the entry at index L-cost, counted from the list's oldest end, is in the window"})
	case f.redis:
		add(&f.iAnchor, algorithms.Deviation{Name: "anchor", About: "anchors the window at the key's first hit (a Redis key with EXPIRE W), not at multiples of W; the key expires only once the time is past its expiry"})
		add(&f.iClock, algorithms.Deviation{Name: "clock", About: "anchors the window on Redis's millisecond clock: the first hit's time floored to whole milliseconds"})
		add(&f.iCounts, algorithms.Deviation{Name: "counts-refused", About: "counts every hit, refused ones too (INCRBY before the check)"})
	default:
		add(&f.iAnchor, algorithms.Deviation{Name: "anchor", About: "anchors the window at the key's first hit (expiry = time.time() + W), not at multiples of W"})
		add(&f.iFloat, algorithms.Deviation{Name: "float", About: "ends the window when the float64 sum first hit + W is at most time.time(), in float64 seconds"})
		add(&f.iCounts, algorithms.Deviation{Name: "counts-refused", About: "counts every hit, refused ones too (the count is incremented before the check)"})
	}
	f.SetDeviations(devs...)
	return f, nil
}

// FlaskLimitString is how Flask-Limiter's documentation writes the rule r:
// "L per second", "L per minute", ... for one unit of limits', else "L
// per N second" (W in whole seconds; "" when it is not).
func FlaskLimitString(r algorithms.Rule) string {
	sec := int64(time.Second)
	if r.W%sec != 0 || r.W <= 0 {
		return ""
	}
	for _, u := range []struct {
		secs int64
		name string
	}{{1, "second"}, {60, "minute"}, {3600, "hour"}, {86400, "day"}} {
		if r.W == u.secs*sec {
			return fmt.Sprintf("%d per %s", r.L, u.name)
		}
	}
	return fmt.Sprintf("%d per %d second", r.L, r.W/sec)
}

func (f *FlaskLimiter) Name() string {
	name := "flask-limiter"
	if f.moving {
		name += ":strategy=moving"
	}
	if f.redis {
		name += ":storage=redis"
	}
	return name + f.Suffix()
}

func (f *FlaskLimiter) Twin() string {
	if f.moving {
		return "log"
	}
	return "fixed"
}

func (f *FlaskLimiter) Grow(n int) {
	if f.moving {
		for len(f.lists) < n {
			f.lists = append(f.lists, flaskList{})
		}
		return
	}
	f.fixed.Grow(n)
}

func (f *FlaskLimiter) Bytes(id int32) int64 {
	if f.moving {
		return 8 * f.lists[id].n
	}
	return 16
}

func (f *FlaskLimiter) FixedSize() bool { return !f.moving }

// Memory returns, for the moving window, the largest list of one key in
// bytes and the sum over keys of each key's largest (as the log's Memory);
// for the fixed window, 16 bytes per key seen.
func (f *FlaskLimiter) Memory() (peakPerKey, sumOfPeaks int64) {
	if !f.moving {
		return 16, 16 * int64(f.fixed.Len())
	}
	peakPerKey, sumOfPeaks = f.relPeakMax, f.relPeakSum
	for i := range f.lists {
		peakPerKey = max(peakPerKey, f.lists[i].peak)
		sumOfPeaks += f.lists[i].peak
	}
	return peakPerKey, sumOfPeaks
}
func (*FlaskLimiter) CountsRejected() bool { return true }

// CountsEvery: the fixed window counts every hit (with counts-refused on).
func (f *FlaskLimiter) CountsEvery() bool { return f.on(f.iCounts) }

func (f *FlaskLimiter) on(i int) bool { return i >= 0 && f.OnAt(i) }

func (f *FlaskLimiter) Decide(id int32, t, cost int64) bool {
	if f.moving {
		return f.acquire(&f.lists[id], t, cost)
	}
	s := f.fixed.At(id)
	f.advance(s, t)
	return cost <= f.rule.L-s.curr
}

func (f *FlaskLimiter) Record(id int32, t, cost int64) {
	if f.moving {
		f.push(&f.lists[id], t, cost)
		return
	}
	s := f.fixed.At(id)
	f.advance(s, t)
	if !s.live || s.curr == 0 { // incr's result equals the cost: the expiry is set
		s.live, s.start = true, t
		if !f.on(f.iAnchor) {
			s.start = algorithms.FloorDiv(t, f.rule.W) * f.rule.W
		}
	}
	s.curr = algorithms.SatAdd(s.curr, cost)
}

// advance drops a fixed window key whose window is over at t.
func (f *FlaskLimiter) advance(s *flaskFixed, t int64) {
	if !s.live {
		return
	}
	var over bool
	switch W := f.rule.W; {
	case f.on(f.iFloat): // memory.py:78: expirations[key] <= time.time(), the expiry time.time() + W
		over = float64(PyTime(s.start)+f.wsec) <= PyTime(t)
	case f.redis && f.on(f.iAnchor): // Redis: expired once now > when
		if f.on(f.iClock) {
			ms := int64(time.Millisecond)
			over = algorithms.FloorDiv(t, ms) > algorithms.FloorDiv(s.start, ms)+W/ms
		} else {
			over = t-s.start > W
		}
	default:
		over = t-s.start >= W
	}
	if over {
		*s = flaskFixed{}
	}
}

// counts reports whether an entry of time e is in the moving window at t.
func (f *FlaskLimiter) counts(e, t int64) bool {
	closed := f.on(f.iClosed)
	if f.on(f.iFloat) { // entry >= timestamp - expiry, in float64
		a, b := PyTime(e), float64(PyTime(t)-f.wsec)
		if closed {
			return a >= b
		}
		return a > b
	}
	if closed {
		return e >= t-f.rule.W
	}
	return e > t-f.rule.W
}

// prune drops the list once the millisecond clock is past its newest
// entry + W (Redis's EXPIRE key W), and the entries that can no longer
// count.
func (f *FlaskLimiter) prune(k *flaskList, t int64) {
	if k.total == 0 {
		return
	}
	if ms := int64(time.Millisecond); algorithms.FloorDiv(t, ms) > algorithms.FloorDiv(k.last, ms)+f.rule.W/ms {
		k.runs, k.head, k.base, k.total, k.n, k.last = k.runs[:0], 0, 0, 0, 0, 0 // the peak stays
		return
	}
	for k.head < len(k.runs) && k.runs[k.head].t < t-f.rule.W-pyTimeReach {
		k.base = k.runs[k.head].cum
		k.head++
	}
}

// entry returns the time of the list's entry at index p (0 the newest),
// false when it is not held (absent, or out of the window for good).
func (k *flaskList) entry(p int64) (int64, bool) {
	num := k.total - p // the entry's number, 1 the first pushed
	if p < 0 || num <= k.base {
		return 0, false
	}
	runs := k.runs[k.head:]
	i := sort.Search(len(runs), func(i int) bool { return runs[i].cum >= num })
	return runs[i].t, true
}

// acquire is acquire_entry's decision.
func (f *FlaskLimiter) acquire(k *flaskList, t, cost int64) bool {
	f.prune(k, t)
	L := f.rule.L
	p := L - cost
	if cost > L {
		if !f.on(f.iOver) {
			return false
		}
		// index L-cost < 0 counts from the oldest end: it exists when
		// the list holds at least cost-L entries
		if cost-L > k.n {
			return true
		}
		p = k.n - (cost - L)
	}
	e, ok := k.entry(p)
	return !(ok && f.counts(e, t))
}

// push adds cost entries at t at the head of the list, trimmed to L.
func (f *FlaskLimiter) push(k *flaskList, t, cost int64) {
	f.prune(k, t)
	if cost <= 0 {
		return
	}
	if k.head > 32 && k.head > len(k.runs)/2 {
		k.runs = k.runs[:copy(k.runs, k.runs[k.head:])]
		k.head = 0
	}
	k.total = algorithms.SatAdd(k.total, cost)
	k.runs = append(k.runs, flaskRun{t: t, cum: k.total})
	k.n, k.last = min(f.rule.L, algorithms.SatAdd(k.n, cost)), t
	k.peak = max(k.peak, 8*k.n)
	if k.total-k.base > f.rule.L { // LTRIM 0 L-1
		k.base = k.total - f.rule.L
		for k.runs[k.head].cum <= k.base {
			k.head++
		}
	}
}

// Idle: a fixed window key is absent at t; a moving window key's list is
// dropped, or holds nothing that counts now or later.
func (f *FlaskLimiter) Idle(id int32, t int64) bool {
	if f.moving {
		k := &f.lists[id]
		f.prune(k, t)
		return k.total == 0
	}
	s := f.fixed.At(id)
	f.advance(s, t)
	return !s.live || s.curr == 0
}

func (f *FlaskLimiter) Release(id int32) {
	if f.moving {
		p := f.lists[id].peak
		f.relPeakMax, f.relPeakSum = max(f.relPeakMax, p), f.relPeakSum+p
		f.lists[id] = flaskList{}
		return
	}
	*f.fixed.At(id) = flaskFixed{}
}
