package products

import (
	"math"
	"math/bits"

	"ratebench/algorithms"
)

func init() {
	algorithms.Register(algorithms.Kind{Spec: "guava", Place: 14, About: "Guava's RateLimiter.create(L/W per second) asked tryAcquire(cost): SmoothBursty on a microsecond stopwatch from the key's first request, in doubles, one second of stored permits, starting empty, admitting whenever free and charging the cost after",
		Build: algorithms.NoParams(func(r algorithms.Rule) algorithms.Limiter { return NewGuava(r) })})
}

// Guava is Google Guava's RateLimiter.create(permitsPerSecond), a
// SmoothBursty limiter with maxBurstSeconds 1.0, one per key, asked
// tryAcquire(cost) (a timeout of 0), modelled from
// guava/src/com/google/common/util/concurrent/SmoothRateLimiter.java and
// RateLimiter.java of github.com/google/guava at commit
// 07212fe1f1dae39d4e78d94e1398099827f475fb (SmoothRateLimiter.java; the
// methods are named below). The rule L/W is permitsPerSecond = L/(W in
// seconds), a double.
//
// # Configuration (RateLimiter.create, SmoothBursty.doSetRate,
// SmoothRateLimiter.doSetRate)
//
//	stableIntervalMicros = SECONDS.toMicros(1L) / permitsPerSecond  (double)
//	maxPermits = maxBurstSeconds * permitsPerSecond                  (1.0 * pps)
//	storedPermits = 0.0                      (oldMaxPermits == 0.0: "initial state")
//	nextFreeTicketMicros = 0
//
// The limiter's clock is its SleepingStopwatch, started when the limiter
// is created (Stopwatch.createStarted) and read as whole microseconds
// elapsed (readMicros, elapsed(MICROSECONDS), truncated). A limiter made
// for a key when its first request arrives is created at that request: the
// key's first request is time 0 and its later ones are read as
// floor((t - t0)/1µs).
//
// # Decision (RateLimiter.tryAcquire(permits, timeout, unit), canAcquire,
// SmoothRateLimiter.queryEarliestAvailable, reserveEarliestAvailable,
// resync)
//
//	admitted iff nextFreeTicketMicros - 0 <= nowMicros       (canAcquire)
//	then, admitted only:                     (reserveAndGetWaitLength)
//	  resync: if now > nextFree {
//	    storedPermits = min(maxPermits, storedPermits + (now - nextFree) / stableIntervalMicros)
//	    nextFree = now }
//	  storedPermitsToSpend = min(permits, storedPermits)
//	  freshPermits = permits - storedPermitsToSpend
//	  waitMicros = 0 + (long)(freshPermits * stableIntervalMicros)   (SmoothBursty: stored permits cost 0)
//	  nextFree = saturatedAdd(nextFree, waitMicros)
//	  storedPermits -= storedPermitsToSpend
//
// A refused request changes nothing. An admitted one is admitted whatever
// its cost, as long as the limiter is free (nextFree <= now); its cost is
// paid afterwards, by pushing nextFree into the future.
//
// # The twin
//
// In exact arithmetic, with I = W/L ns the interval and M = maxPermits,
// the state is one virtual time TAT = nextFree - storedPermits*I + M*I:
// tryAcquire admits iff TAT <= now + M*I and then sets TAT = max(TAT, now)
// + cost*I, and a new limiter has TAT = t0 + M*I. That is GCRA of
// emission interval I whose tolerance M*I (one second) is the stored
// permits, except that (pay-later) the cost is not part of the test and
// (starts-empty) it starts with no stored permits. GCRA with burst B tests
// max(TAT, now) + cost*I <= now + B*I, so with cost 1 Guava is GCRA with
// B = M + 1. M = L*1s/W is a whole number only when the rate is (3/1s: 3,
// 60/1m: 1, but 10/1m: 1/6), so M is rounded down to whole permits when
// the burst-fraction deviation is off. The twin is gcra:B=floor(L*1s/W)+1.
//
// # Deviations
//
//   - clock: the time read in whole microseconds since the key's first
//     request; off, exact nanoseconds.
//   - float: the arithmetic in float64 and the wait truncated to whole
//     ticks ((long) of a double), in the source's order; off, exact
//     rationals.
//   - pay-later: admitted when free whatever the cost, the cost charged
//     after; off, admitted iff cost <= storedPermits + 1 (the GCRA test).
//   - starts-empty: a new limiter has 0 stored permits; off, maxPermits.
//   - burst-fraction: maxPermits is one second of permits, a fraction when
//     the rate is not a whole number per second; off, rounded down to a
//     whole number.
//
// Memory: 24 bytes per key, the state that decides: storedPermits
// (double), nextFreeTicketMicros (long) and the stopwatch's start (long);
// the Java object holds maxPermits, stableIntervalMicros and a mutex too.
type Guava struct {
	algorithms.DeviationSet
	rule algorithms.Rule
	pps  float64 // permitsPerSecond
	m    int64   // maxPermits rounded down (burst-fraction off)
	st   algorithms.PerKey[guavaState]
}

// guavaState is one key's limiter: Guava's own fields (float) and the
// exact virtual time.
type guavaState struct {
	made     bool
	t0       int64          // creation: the key's first request
	stored   float64        // storedPermits
	nextFree int64          // nextFreeTicketMicros, in ticks since t0
	v        algorithms.TAT // exact: TAT = nextFree - stored*I + M*I
}

// Deviation indices of Guava.
const (
	guavaClock = iota
	guavaFloat
	guavaPayLater
	guavaStartsEmpty
	guavaBurstFraction
)

// NewGuava returns Guava's SmoothBursty RateLimiter for rule r.
func NewGuava(r algorithms.Rule) *Guava {
	g := &Guava{rule: r, pps: float64(r.L) / (float64(r.W) / 1e9)}
	q, _ := algorithms.Mul(r.L, 1e9).QuoRemWide(r.W)
	g.m = int64(q.Lo) // L*1s/W < 2^63 since W >= 1 ns and L < 2^63/1e9 in any useful rule
	if q.Hi != 0 || q.Lo >= 1<<62 {
		g.m = 1<<62 - 1
	}
	g.SetDeviations(
		algorithms.Deviation{Name: "clock", About: "reads the time in whole microseconds since the key's first request (its stopwatch)"},
		algorithms.Deviation{Name: "float", About: "computes in float64 (double) in the source's order, waits truncated to whole microseconds"},
		algorithms.Deviation{Name: "pay-later", About: "admits a request whenever the limiter is free, whatever its cost, and charges the cost afterwards by pushing the next free time into the future"},
		algorithms.Deviation{Name: "starts-empty", About: "a new limiter has no stored permits: a key's first request is admitted, the next waits a full interval"},
		algorithms.Deviation{Name: "burst-fraction", About: "stores up to one second of permits (permitsPerSecond), a fraction of a permit when the rate is not a whole number per second"},
	)
	return g
}

func (g *Guava) Name() string { return "guava" + g.Suffix() }

// Twin is GCRA with B = floor(L*1s/W) + 1 under the same rule.
func (g *Guava) Twin() string { return algorithms.BucketSpec("gcra", g.m+1, g.rule) }

func (g *Guava) Grow(n int)         { g.st.Grow(n) }
func (*Guava) Bytes(int32) int64    { return 24 }
func (*Guava) FixedSize() bool      { return true }
func (*Guava) CountsRejected() bool { return false }

// maxPermits is Guava's maxPermits, 1.0 * permitsPerSecond, or the whole
// permits of it with burst-fraction off.
func (g *Guava) maxPermits() float64 {
	if g.OnAt(guavaBurstFraction) {
		return 1.0 * g.pps
	}
	return float64(g.m)
}

// interval is stableIntervalMicros, in ticks: microseconds, or nanoseconds
// with the clock off.
func (g *Guava) interval() float64 {
	if g.OnAt(guavaClock) {
		return 1e6 / g.pps
	}
	return 1e9 / g.pps
}

// tolerance is M*I*L exactly: 1s*L, or floor(L*1s/W)*W with burst-fraction
// off.
func (g *Guava) tolerance() algorithms.U128 {
	if g.OnAt(guavaBurstFraction) {
		return algorithms.Mul(1e9, g.rule.L)
	}
	return algorithms.Mul(g.m, g.rule.W)
}

// state returns key id's limiter, creating it at t.
func (g *Guava) state(id int32, t int64) *guavaState {
	s := g.st.At(id)
	if !s.made {
		*s = guavaState{made: true, t0: t}
		if !g.OnAt(guavaStartsEmpty) {
			s.stored = g.maxPermits()
		} else {
			// TAT = t0 + M*I: no stored permits.
			q, r := g.tolerance().QuoRemWide(g.rule.L)
			s.v = algorithms.TAT{Q: q.AddInt(t), R: r}
		}
	}
	return s
}

// now is the time as the limiter reads it: ticks since t0 (float), or the
// trace's time floored to the microsecond since t0 (exact).
func (g *Guava) ticks(s *guavaState, t int64) int64 {
	d := t - s.t0
	if g.OnAt(guavaClock) {
		return d / 1000
	}
	return d
}

func (g *Guava) exactNow(s *guavaState, t int64) int64 {
	if g.OnAt(guavaClock) {
		return s.t0 + (t-s.t0)/1000*1000
	}
	return t
}

func (g *Guava) Decide(id int32, t, cost int64) bool {
	s := g.state(id, t)
	if g.OnAt(guavaFloat) {
		now := g.ticks(s, t)
		if s.nextFree > now {
			return false
		}
		if g.OnAt(guavaPayLater) {
			return true
		}
		stored := s.stored
		if now > s.nextFree {
			stored = math.Min(g.maxPermits(), stored+float64(now-s.nextFree)/g.interval())
		}
		return float64(cost) <= stored+1
	}
	now := g.exactNow(s, t)
	x := g.tolerance()
	if !g.OnAt(guavaPayLater) {
		// max(TAT-now, 0)*L <= M*I*L + (1-cost)*W
		if cost < 1 {
			x = x.Add(algorithms.Mul(1-cost, g.rule.W))
		} else {
			c := algorithms.Mul(cost-1, g.rule.W)
			if x.Lt(c) {
				return false
			}
			x = x.Minus(c)
		}
	}
	v := &s.v
	if v.Due(now) {
		return true
	}
	d := v.Ahead(now)
	if d.Hi != 0 {
		return false
	}
	hi, lo := bits.Mul64(d.Lo, uint64(g.rule.L))
	return algorithms.U128{Hi: hi, Lo: lo}.AddInt(v.R).Le(x)
}

// Record is reserveEarliestAvailable: resync, then the stored permits
// spent and the fresh ones' wait added to nextFree. A refused request is
// not recorded by tryAcquire; recording one (shadow mode) reserves it, as
// acquire would.
func (g *Guava) Record(id int32, t, cost int64) {
	s := g.state(id, t)
	if g.OnAt(guavaFloat) {
		now := g.ticks(s, t)
		interval := g.interval()
		if now > s.nextFree { // resync
			s.stored = math.Min(g.maxPermits(), s.stored+float64(now-s.nextFree)/interval)
			s.nextFree = now
		}
		spend := math.Min(float64(cost), s.stored)
		fresh := float64(cost) - spend
		wait := javaLong(fresh * interval)
		s.nextFree = algorithms.SatAdd(s.nextFree, wait) // LongMath.saturatedAdd; both >= 0
		s.stored -= spend
		return
	}
	s.v.Push(g.exactNow(s, t), cost, g.rule)
}

// javaLong is Java's (long) of a double: truncated toward zero, saturated
// at the int64 range, NaN 0.
func javaLong(f float64) int64 {
	switch {
	case f != f:
		return 0
	case f >= 9.223372036854775807e18:
		return math.MaxInt64
	case f <= -9.223372036854775808e18:
		return math.MinInt64
	}
	return int64(f)
}
