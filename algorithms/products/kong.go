package products

import (
	"fmt"
	"math"
	"time"

	"ratebench/algorithms"
)

func init() {
	algorithms.Register(algorithms.Kind{Spec: "kong", Place: 12, About: "Kong's rate-limiting plugin, local policy: fixed window on the UTC calendar (W 1s, 1m, 1h, 24h; 720h a calendar month, 8760h a calendar year), admitted while the count is below L, one hit per request",
		Build: func(c algorithms.Call, r algorithms.Rule) (algorithms.Limiter, error) {
			if err := c.NoArg(); err != nil {
				return nil, err
			}
			return NewKong(r)
		}})
}

// Kong is Kong's rate-limiting plugin with its "local" policy (counters in
// the node's shared memory), modelled from github.com/Kong/kong at commit
// 22246ef28c16842098369b494eef879222e30c7b (line numbers below are that
// version's), with the rule L/W mapped to one limit: config.<period> = L,
// the period whose length is W.
//
// # Periods (kong/tools/timestamp.lua)
//
// The plugin's periods are second, minute, hour, day, month and year
// (schema.lua:80-85). The time is ngx.time() * 1000, whole seconds
// (handler.lua:127), and get_timestamps (timestamp.lua:46-69) cuts the UTC
// time table down to the start of each period: seconds floored (line 50),
// then sec = 0 for the minute (53-54), min = 0 for the hour (56-57), hour
// = 0 for the day (59-60), day = 1 for the month (62-63), month = 1 for the
// year (65-66). The counter's key ends with that start and the period
// (policies/init.lua:68-73), so every period is a fixed window aligned to
// the UTC calendar: second to day are the epoch's windows of 1s, 1m, 1h
// and 24h (UTC has no leap seconds in Unix time), a month is the calendar
// month (28 to 31 days) and a year the calendar year (365 or 366 days).
// Every period starts on a whole second, so the whole-second clock changes
// no decision: the window of floor(t/1s) is the window of t. The rule's W
// must be one of 1s, 1m, 1h, 24h, or 720h for month and 8760h for year
// (30 and 365 days, the plugin's own lengths for them, expiration.lua:6-7);
// any other window is refused.
//
// # Decision (handler.lua:89-114, 126-216; policies/init.lua:302-329)
//
// usage is the counter's value, 0 when absent (policies/init.lua:318-328);
// remaining = limit - usage (handler.lua:100), and the request is refused
// iff remaining <= 0 (line 108), that is admitted iff usage < L, usage + 1
// <= L. A refused request returns at line 200, before the increment at
// lines 208-216: refused requests are not counted. An admitted one is
// counted by shm:incr(key, 1, 0, EXPIRATION[period]) (policies/init.lua:
// 308) in a timer started with delay 0 (handler.lua:212), one hit whatever
// the request (the value is the literal 1, lines 209, 212): Kong has no
// request cost.
//
// The read and the increment are not atomic: concurrent requests of a key
// on a node may all read the same usage before any increment lands, and
// all be admitted. The model is the node serving one request at a time,
// deterministically: each request decides on the usage read before its own
// increment, with every earlier admitted request's increment applied.
// Several nodes, each with its own local counters, are not modelled.
//
// The counter's key lives EXPIRATION[period] seconds from its creation
// (the init_ttl of shm:incr, policies/init.lua:308; expiration.lua: 1, 60,
// 3600, 86400, 30 days, 365 days), on nginx's cached millisecond clock. For
// second to day that outlives the window (the key is created at or after
// the window's start); a 31-day month's key created in its first day, or
// a leap year's in its first day, expires before the period ends, and the
// count starts again from 0 for the rest of the period (the key of the
// same period_date is created again).
//
// Not modelled: timestamp.lua:29, 37-40 reads a millisecond time before
// 1988-01-11 as seconds (a deployed clock is past it; the trace's times
// are taken as wall-clock times); the limit being a float (L is whole);
// the headers (RateLimit-Reset, Retry-After), which change no decision.
//
// # Deviations from fixed
//
//   - one-hit: every request counts one hit and is admitted while the
//     count is below L, whatever its cost (off: admitted iff count + cost
//     <= L, counting cost).
//   - calendar (month and year only): the window is the calendar month or
//     year in UTC, not the epoch's 720h or 8760h window.
//   - expiry (month and year only): the count restarts when the counter's
//     key expires, 30 or 365 days after the period's first admitted request.
//
// Memory: the count and the window, 16 bytes per key (a shared-memory
// number under a key naming the period's start), and for month and year
// the key's expiry, 8 more.
type Kong struct {
	algorithms.DeviationSet
	rule     algorithms.Rule
	period   string
	calendar int   // 0 for second to day, else 'm' or 'y'
	ttl      int64 // the key's life in ms
	st       algorithms.PerKey[kongState]
}

// kongState is one key's counter in its current window [start, end):
// count, and until when (ms) its shm key lives. end and expires are kept
// XOR math.MinInt64, so that the zero value is no window and no key.
type kongState struct {
	start, endX int64
	count       int64
	expiresX    int64
}

func (s *kongState) end() int64     { return s.endX ^ math.MinInt64 }
func (s *kongState) expires() int64 { return s.expiresX ^ math.MinInt64 }

const (
	kongOneHit = iota
	kongCalendar
	kongExpiry
)

// kongPeriods are the plugin's periods and the window the rule gives for
// each (expiration.lua).
var kongPeriods = []struct {
	name string
	secs int64
}{{"second", 1}, {"minute", 60}, {"hour", 3600}, {"day", 86400},
	{"month", 2592000}, {"year", 31536000}}

// NewKong returns Kong's rate-limiting plugin (local policy) for rule r,
// or an error when no period expresses r.
func NewKong(r algorithms.Rule) (*Kong, error) {
	k := &Kong{rule: r}
	for _, p := range kongPeriods {
		if r.W == p.secs*int64(time.Second) {
			k.period, k.ttl = p.name, p.secs*1000
		}
	}
	list := []algorithms.Deviation{{Name: "one-hit", About: "counts one hit per request whatever its cost, admitted while the count is below the limit"}}
	switch k.period {
	case "":
		return nil, fmt.Errorf("algorithm \"kong\": the rate-limiting plugin's periods are second, minute, hour, day, month and year: give a window of 1s, 1m, 1h or 24h, or 720h for a calendar month or 8760h for a calendar year, not %s", algorithms.FormatWindow(r.W))
	case "month", "year":
		k.calendar = int(k.period[0])
		list = append(list,
			algorithms.Deviation{Name: "calendar", About: "windows are calendar " + k.period + "s in UTC (" + map[string]string{"month": "28 to 31 days", "year": "365 or 366 days"}[k.period] + "), not the epoch's " + algorithms.FormatWindow(r.W) + " windows"},
			algorithms.Deviation{Name: "expiry", About: "the count restarts when the counter's key expires, " + algorithms.FormatWindow(r.W) + " after the " + k.period + "'s first admitted request, before a longer " + k.period + " ends"})
	}
	k.SetDeviations(list...)
	return k, nil
}

func (k *Kong) Name() string         { return "kong" + k.Suffix() }
func (k *Kong) Twin() string         { return "fixed" }
func (k *Kong) Grow(n int)           { k.st.Grow(n) }
func (*Kong) FixedSize() bool        { return true }
func (*Kong) CountsRejected() bool   { return true }
func (k *Kong) Warm(id int32) uint64 { return uint64(k.st.At(id).count) }

// Period returns the plugin's period the rule maps to.
func (k *Kong) Period() string { return k.period }

func (k *Kong) Bytes(int32) int64 {
	if k.calendar != 0 {
		return 24
	}
	return 16
}

// window returns the window of t: the calendar month or year in UTC, or
// the epoch's window of W.
func (k *Kong) window(t int64) (start, end int64) {
	if k.calendar == 0 || !k.OnAt(kongCalendar) {
		start = algorithms.FloorDiv(t, k.rule.W) * k.rule.W
		return start, algorithms.SatAdd(start, k.rule.W)
	}
	u := time.Unix(0, t).UTC()
	s := time.Date(u.Year(), u.Month(), 1, 0, 0, 0, 0, time.UTC)
	if k.calendar == 'y' {
		s = time.Date(u.Year(), 1, 1, 0, 0, 0, 0, time.UTC)
	}
	e := s.AddDate(0, 1, 0)
	if k.calendar == 'y' {
		e = s.AddDate(1, 0, 0)
	}
	return unixNanoSat(s), unixNanoSat(e)
}

// unixNanoSat is u.UnixNano() saturated to the int64 range.
func unixNanoSat(u time.Time) int64 {
	sec := u.Unix()
	switch {
	case sec >= math.MaxInt64/int64(time.Second):
		return math.MaxInt64
	case sec <= math.MinInt64/int64(time.Second):
		return math.MinInt64
	}
	return sec*1e9 + int64(u.Nanosecond())
}

// advance moves the key to the window of t (a new counter, absent) and
// drops a counter whose key has expired at t.
func (k *Kong) advance(s *kongState, t int64) {
	if t < s.start || t >= s.end() {
		start, end := k.window(t)
		*s = kongState{start: start, endX: end ^ math.MinInt64}
	}
	if s.expiresX != 0 && k.calendar != 0 && k.OnAt(kongExpiry) && algorithms.FloorDiv(t, 1e6) >= s.expires() {
		s.count, s.expiresX = 0, 0
	}
}

// Decide admits iff usage < L (one-hit), or usage + cost <= L.
func (k *Kong) Decide(id int32, t, cost int64) bool {
	s := k.st.At(id)
	k.advance(s, t)
	if k.OnAt(kongOneHit) {
		return s.count < k.rule.L
	}
	return cost <= k.rule.L-s.count
}

// Record increments the counter by one (one-hit) or by cost, creating its
// key with its expiry if absent.
func (k *Kong) Record(id int32, t, cost int64) {
	s := k.st.At(id)
	k.advance(s, t)
	if s.expiresX == 0 {
		s.expiresX = algorithms.SatAdd(algorithms.FloorDiv(t, 1e6), k.ttl) ^ math.MinInt64
	}
	if k.OnAt(kongOneHit) {
		cost = 1
	}
	s.count = algorithms.SatAdd(s.count, cost)
}

// Estimate returns the window's count.
func (k *Kong) Estimate(id int32, _ int64) algorithms.Rational {
	return algorithms.Whole(k.st.At(id).count)
}

// Idle: the key's counter is empty at t (another window, or expired).
func (k *Kong) Idle(id int32, t int64) bool {
	s := k.st.At(id)
	k.advance(s, t)
	return s.count == 0
}

func (k *Kong) Release(id int32) { *k.st.At(id) = kongState{} }
