package products

import (
	"fmt"
	"math"
	"time"

	"ratebench/algorithms"
)

func init() {
	algorithms.Register(algorithms.Kind{Spec: "tyk", Place: 18, About: "Tyk Gateway's Redis rolling-window limiter (enable_redis_rolling_limiter): a sliding log in a Redis sorted set, rate L per W whole seconds, every request logged (refused ones too), one member per nanosecond, scores in float64",
		Build: func(c algorithms.Call, r algorithms.Rule) (algorithms.Limiter, error) {
			if err := c.NoArg(); err != nil {
				return nil, err
			}
			return NewTyk(r)
		}})
}

// Tyk is Tyk Gateway's rolling-window rate limiter, the "Redis Rate
// Limiter" (gateway config enable_redis_rolling_limiter: true, with the
// sentinel, smoothing and non-transactional options off, their defaults),
// modelled from github.com/TykTechnologies/tyk at commit
// 31e219bebd5598ae9cce67c9b494cebba941f4a4 (v5.15.0-alpha14; line numbers
// below are that version's).
//
// # Configuration
//
// A key's or policy's rate limit is {"rate": L, "per": S}: L requests per
// S seconds (user/session.go:54-58, both float64). The gateway hands them
// to the limiter as int64(rate) and int64(per) (gateway/
// session_manager.go:111-116, 157): a per of 1.5 is 1 second and a rate of
// 2.5 is 2. So the rule L/W is "rate": L, "per": W in seconds, and W must
// be a whole number of seconds; any other window is refused (Tyk would
// truncate it).
//
// # Decision
//
// limitRedis (gateway/session_manager.go:107-168) calls SlidingLog.Do
// (internal/rate/sliding_log.go:186-194) with time.Now(), which runs
// scripts/sliding_log_add.lua (SetCountScript, lines 198-214) with
// ARGV = {now.UnixNano(), (now - per s).UnixNano(), rate, per} as decimal
// strings. On the key's sorted set the script runs
//
//	ZREMRANGEBYSCORE key -inf window_start   (line 8)
//	count = ZCARD key                        (line 10)
//	ZADD key now now                         (line 12)
//	EXPIRE key per                           (line 13)
//
// and returns count, the entries left in the window before this request's.
// The gateway blocks iff count > rate - 1 (smoothingFn, session_manager.go:
// 120-154: subtractor 1, the sentinel off; allowedRate = rate, smoothing
// off): a request is admitted iff fewer than L requests lie in the window.
// The ZADD comes before the decision and whatever it is: every request,
// refused ones included, is logged and counts against the next.
//
// The clock is the gateway's time.Now(), read at nanosecond resolution
// (UnixNano); here the trace's time t in ns, taken as a wall-clock time
// (as generated traces' are, in 2024).
//
// # Deviations from log, its twin
//
//   - one-hit: each request is one member whatever its cost (Tyk has no
//     request cost), admitted while the count is below L (off: the cost is
//     logged, and admitted iff count + cost <= L).
//   - counts-refused: every request is logged, refused ones included (off:
//     only what the harness records, as the log).
//   - same-ns: the member is now's decimal string (line 12: ZADD key now
//     now), so requests of a key in the same nanosecond are one member,
//     counted once (off: each request its own entry).
//   - float: Redis keeps scores as float64, both the member's (ZADD's now)
//     and the bound of ZREMRANGEBYSCORE (window_start), each rounded to
//     the nearest double: 256 ns apart around 2024 in ns. An entry is
//     trimmed iff float64(ti) <= float64(t - W), which also trims entries
//     up to some 128 ns younger than the window's start (off: ti <= t - W
//     exactly, the window (t-W, t]).
//
// ZREMRANGEBYSCORE's bound is inclusive: an entry exactly W old is gone,
// as in the log's window (t-W, t].
//
// # Idle keys
//
// EXPIRE key per, on every request, drops the set per seconds after the
// key's last request, refused or not: by then every entry is at least W
// old and would be trimmed anyway, so the expiry changes no decision. A key
// is idle once every entry has left the window.
//
// Memory: one sorted-set entry per distinct nanosecond in the window,
// refused requests included: 8 bytes per entry (its time) and 8 for the
// count, as the log (Redis keeps the member as a decimal string and its
// score as a double besides). Not fixed: a key sent more than L requests a
// window holds them all.
type Tyk struct {
	algorithms.DeviationSet
	rule                   algorithms.Rule
	sets                   algorithms.KeyEntries // each key's sorted set: its entries in time order (the cost of each is 1 with one-hit on), and the largest analytic size it has had (Peak), 0 before its first request
	relPeakMax, relPeakSum int64                 // the peaks of the keys released
}

const (
	tykOneHit = iota
	tykCountsRefused
	tykSameNS
	tykFloat
)

// NewTyk returns Tyk's rolling-window limiter for rule r, or an error when
// no rate limit {rate, per} expresses r.
func NewTyk(r algorithms.Rule) (*Tyk, error) {
	if r.W%int64(time.Second) != 0 {
		return nil, fmt.Errorf("algorithm \"tyk\": per is whole seconds (the gateway truncates it to an int64): give a window of whole seconds, not %s", algorithms.FormatWindow(r.W))
	}
	y := &Tyk{rule: r, sets: algorithms.NewKeyEntries(algorithms.RingFor(r.L))}
	y.SetDeviations(
		algorithms.Deviation{Name: "one-hit", About: "one sorted-set member per request whatever its cost, admitted while the count is below the limit"},
		algorithms.Deviation{Name: "counts-refused", About: "every request is added to the log before the decision, refused ones included"},
		algorithms.Deviation{Name: "same-ns", About: "the member is the request's time in ns: requests of a key in the same nanosecond are one member, counted once"},
		algorithms.Deviation{Name: "float", About: "scores are float64: an entry is trimmed when its time rounds to at most the window start's double (256 ns steps around 2024)"},
	)
	return y, nil
}

func (y *Tyk) Name() string         { return "tyk" + y.Suffix() }
func (*Tyk) Twin() string           { return "log" }
func (*Tyk) FixedSize() bool        { return false }
func (*Tyk) CountsRejected() bool   { return true }
func (y *Tyk) Bytes(id int32) int64 { return y.sets.Key(id).Bytes() }
func (y *Tyk) CountsEvery() bool    { return y.OnAt(tykCountsRefused) }
func (y *Tyk) Idle(id int32, t int64) bool {
	e := y.sets.Key(id)
	y.trim(e, t)
	return e.Len() == 0
}

func (y *Tyk) Grow(n int) { y.sets.Grow(n) }

// trim is the script's ZREMRANGEBYSCORE key -inf (now - per): the entries
// at or before t - W, compared as doubles with float on.
func (y *Tyk) trim(e algorithms.Entries, t int64) {
	cutoff := t - y.rule.W
	if y.OnAt(tykFloat) {
		cutoff = ScoreCutoff(cutoff)
	}
	e.Expire(cutoff)
}

// Decide: count = ZCARD after the trim; blocked iff count > rate - 1.
func (y *Tyk) Decide(id int32, t, cost int64) bool {
	e := y.sets.Key(id)
	if p := e.Peak(); *p == 0 { // its first request (an empty set's size is its count's 8 bytes)
		*p = e.Bytes()
	}
	y.trim(e, t)
	count := e.Sum()
	if y.OnAt(tykOneHit) {
		return count < y.rule.L
	}
	return cost <= y.rule.L-count
}

// Record is the script's ZADD key now now: a member at t, none new when
// one is already there (same-ns).
func (y *Tyk) Record(id int32, t, cost int64) {
	e := y.sets.Key(id)
	y.trim(e, t)
	if y.OnAt(tykSameNS) && e.Len() > 0 && e.Newest() == t {
		return
	}
	if y.OnAt(tykOneHit) {
		cost = 1
	}
	e.Add(t, cost)
	p := e.Peak()
	*p = max(*p, e.Bytes())
}

// Entries returns the number of entries key id holds as of its last
// request: its sorted set's ZCARD.
func (y *Tyk) Entries(id int32) int { return y.sets.Key(id).Len() }

// Release forgets key id; its largest size stays counted in Memory.
func (y *Tyk) Release(id int32) {
	e := y.sets.Key(id)
	p := *e.Peak()
	y.relPeakMax = max(y.relPeakMax, p)
	y.relPeakSum += p
	e.Drop()
}

// Memory returns the largest size of one key and the sum over keys of
// each key's largest size, as the log's Memory.
func (y *Tyk) Memory() (peakPerKey, sumOfPeaks int64) {
	peakPerKey, sumOfPeaks = y.relPeakMax, y.relPeakSum
	for id := range int32(y.sets.Len()) {
		p := *y.sets.Key(id).Peak()
		peakPerKey = max(peakPerKey, p)
		sumOfPeaks += p
	}
	return peakPerKey, sumOfPeaks
}

// ScoreCutoff returns the largest x with float64(x) <= float64(c): an
// entry at time ti has a score at most the bound c's, both parsed by Redis
// as the nearest double (round half to even, as Go's conversion), iff
// ti <= ScoreCutoff(c).
func ScoreCutoff(c int64) int64 {
	const exact = 1 << 53
	if -exact <= c && c < exact { // every integer of [-2^53, 2^53] is a double
		return c
	}
	d := float64(c)
	if d >= math.MaxInt64 { // 2^63: every int64 rounds to it or below
		return math.MaxInt64
	}
	up := math.Nextafter(d, math.Inf(1))
	// Between d and up (integers, a power of two >= 2 apart) the integers
	// below the midpoint round to d, the midpoint to whichever has the
	// even mantissa.
	m := int64(d) + int64((up-d)/2)
	if float64(m) > d {
		m--
	}
	return m
}
