package products

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"ratebench/algorithms"
)

func init() {
	algorithms.Register(algorithms.Kind{Spec: "drf-throttling[:max-entries[=N]]", Place: 34, About: "Django REST Framework's SimpleRateThrottle (AnonRateThrottle, UserRateThrottle, ScopedRateThrottle; rate \"L/second\", \"L/minute\", \"L/hour\" or \"L/day\") on Django's local-memory cache: per key a list of the admitted requests' time.time() floats, an entry W old out of the window, refused requests not recorded, the key's cache entry expiring W after its last admission; max-entries models the cache's MAX_ENTRIES (300, or N), whose culls couple keys",
		Build: func(c algorithms.Call, r algorithms.Rule) (algorithms.Limiter, error) {
			return NewDRFThrottling(r, c.Spec, c.Arg, c.HasArg)
		}})
}

// DRFThrottling is Django REST Framework's SimpleRateThrottle, the class
// of its AnonRateThrottle, UserRateThrottle and ScopedRateThrottle, on
// Django's default cache, the local-memory cache (LocMemCache), modelled
// from Debian's python3-djangorestframework 3.14.0 (encode/django-rest-
// framework tag 3.14.0, commit 2da473c8c8e024e80c13a624782f1da6272812da;
// SimpleRateThrottle is unchanged through 3.18.0, commit 751a19f) and
// Debian's python3-django 3.2.25 (django/core/cache/backends/locmem.py and
// base.py). Line numbers below are those files'.
//
// # Configuration
//
// DRF's documentation (docs/api-guide/throttling.md:36-48) writes "L
// requests per W" as a rate "L/period" in DEFAULT_THROTTLE_RATES
// (REST_FRAMEWORK = {"DEFAULT_THROTTLE_RATES": {"anon": "100/day", "user":
// "1000/day"}}), the period second, minute, hour or day. parse_rate
// (rest_framework/throttling.py:97-107) reads num_requests = int(L) and
// only the period's first character:
// duration = {'s': 1, 'm': 60, 'h': 3600, 'd': 86400}[period[0]], an int
// of seconds. So DRF expresses the windows 1s, 1m, 1h and 24h only
// ("5/10s" is read as 5 per second); a rule with any other window is
// refused, naming them.
//
// # Decision
//
// allow_request (throttling.py:109-132) reads the key's history, a list of
// the admitted requests' times newest first, with cache.get(key, []);
// now = self.timer(), time.time(); it pops the oldest entries while
// history[-1] <= now - duration; it refuses the request iff
// len(history) >= num_requests; otherwise throttle_success (lines 134-141)
// inserts now at the head and calls cache.set(key, history, duration). A
// refused request writes nothing. So a request is admitted iff fewer than
// L admitted requests lie in (now - W, now]: the exact log's window, an
// entry exactly W old gone. A request is one entry whatever its cost: DRF
// has no cost.
//
// The times are time.time()'s float64 seconds, as CPython computes them
// from its nanosecond clock (PyTime); now - duration is a float64
// difference, compared in float64. With the trace's times in ns the two
// roundings decide within a rounding of W: near the epoch's 1.7e9 s a
// double holds a quarter microsecond, and near 0 (the check's trace)
// 1.001 - 1 = 0.00099999999999989 < 0.001.
//
// # The cache entry's expiry
//
// cache.set(key, history, duration) gives the key the expiry
// time.time() + duration (base.py:83-93, locmem.py:46-51), a float64 sum;
// cache.get finds the key expired, deletes it and returns [], once
// expiry <= time.time() (_has_expired, locmem.py:93-95; get, lines 35-44).
// Only an admission sets it, so it is W after the newest entry. Exactly,
// newest + W <= now iff newest <= now - W: the expiry drops the history at
// the instant its newest entry would be popped, and changes no decision.
// In float64 the sum and the difference round apart: at 1.001 s under
// 1/1s an entry at 0.001 s is not popped (0.001 <= 1.001 - 1 =
// 0.00099999999999989 is false), but the key has expired (0.001 + 1 =
// 1.001 <= 1.001): the request is admitted, as the exact log admits it.
// At 1.128 s an entry at 0.128 s is neither popped (1.128 - 1 =
// 0.1279999999999999) nor expired (0.128 + 1 = 1.1280000000000001): the
// request is refused, where the exact log admits it.
//
// The clock is read three times per request: by cache.get's expiry test,
// by self.timer() and by cache.set's expiry, microseconds apart in a
// server; the model reads the request's time for all three.
//
// # An idle key
//
// A key's history holds at most L entries. Its cache entry expires W after
// its last admission, and LocMemCache deletes it when the key is next read
// (or culled); by then every entry has left the window, so a key whose
// entries have all left decides as a new one (Idle).
//
// # The cache's capacity: drf-throttling:max-entries
//
// The documentation finds "the default value of LocMemCache backend
// [...] okay for simple setups" (throttling.md:98). LocMemCache holds at
// most MAX_ENTRIES keys (default 300) with CULL_FREQUENCY 3
// (base.py:66-77): _set (locmem.py:46-51), when the cache
// holds MAX_ENTRIES keys or more, the key being set included if present,
// first culls len // 3 of them (_cull, lines 97-105), the least recently
// read or written (get and set move a key to the head, popitem takes the
// tail); a key whose history is culled starts afresh. An expired key stays
// in the cache, counting, until it is next read or culled. With fewer than
// 3 keys held nothing is culled, so MAX_ENTRIES 1 or 2 lets 3 keys in.
// While fewer than MAX_ENTRIES keys are held at once every key keeps its
// history; past that an active key may lose its history, and which one
// depends on every key's requests. With the parameter max-entries (300)
// or max-entries=N the model keeps the cache's order, its size and its
// culls (the deviation cull), and couples keys: one replay sees every key,
// in order, and no key is ever idle, as its entry may yet be culled in
// another's place. Without the parameter the capacity is not modelled.
// The model's cache holds the throttle's keys only (a site's cache holds
// its other entries too); CULL_FREQUENCY 0 (clear all) is not modelled.
//
// # Twin and deviations
//
// Its twin is the sliding log. Deviations, each turned off by
// :without=NAME:
//
//   - float: the history's times are time.time()'s float64 seconds, an
//     entry popped iff entry <= now - duration in float64 (off: exactly,
//     entry <= t - W); the cache's expiry is also a float64 sum compared in
//     float64 (off: last + W <= t).
//   - expiry: the cache entry set at the key's last admission expires once
//     last + duration <= time.time(): the whole history is dropped, and
//     the key leaves the cache when next read (off: the history is only
//     popped, the key stays in the cache). Alone it shows only with float,
//     exact arithmetic dropping at the same instant as the pops; with the
//     culls, an expired key read no longer counts among the cache's keys.
//   - one-hit: one entry per request whatever its cost, admitted iff fewer
//     than L are in the window (off: its cost is recorded, admitted iff the
//     cost in the window plus its own is at most L).
//   - with max-entries, cull: the cache's culls (off: the cache keeps every
//     key).
//
// With all of them off it decides as log. Refused requests are recorded
// by neither (CountsRejected true, as the log: the harness's count policy
// decides). Left out: wait(), the Retry-After it suggests, which changes no
// decision; get_ident's X-Forwarded-For and NUM_PROXIES, which only choose
// the key; the race of concurrent requests of a key, which read the
// history before either sets it (cache.get, then cache.set: the
// documentation warns of "some fuzziness"), absent from a serial replay.
//
// The real throttle (DRF 3.14.0 on Django 3.2.25, run by package
// live/python on the trace's clock) decides as this model on every request
// of the check's trace, of a public Apache log, and of traces at the float
// edges and with culls.
//
// Memory: the history, one float of 8 bytes per entry (at most L), and the
// cache entry's expiry, 8 bytes: 8 per entry + 8, as the log's entries of
// cost 1 (Bytes counts the entries the model holds).
type DRFThrottling struct {
	algorithms.DeviationSet
	rule  algorithms.Rule
	dur   float64 // duration, the int seconds of parse_rate, made float by the difference and the sum
	keys  algorithms.PerKey[drfKey]
	hist  algorithms.KeyEntries // each key's history
	cache *drfCache             // with max-entries: LocMemCache's keys; nil otherwise
	iCull int

	cutT, cut int64 // the last cutoff's t and value
	cutOK     bool

	relPeakMax, relPeakSum int64 // the largest histories of the keys released (Release), in bytes
}

// drfKey is a key's cache entry (its history is in hist): held while the
// cache holds the key (set, and neither read expired nor culled since), set
// the time of its last cache.set.
type drfKey struct {
	set  int64
	held bool
	peak int64 // the largest Bytes the key reached
}

// The deviations, in the order of the list; cull's index is iCull.
const (
	drfFloat = iota
	drfExpiry
	drfOneHit
)

// DRFMaxEntries is LocMemCache's default MAX_ENTRIES (django/core/cache/
// backends/base.py:66-71), the capacity of drf-throttling:max-entries.
const DRFMaxEntries = 300

// drfPeriods are the windows parse_rate reads, with the period its
// documentation writes for each.
var drfPeriods = []struct {
	w    int64
	name string
}{{int64(time.Second), "second"}, {int64(time.Minute), "minute"}, {int64(time.Hour), "hour"}, {24 * int64(time.Hour), "day"}}

// DRFRate is the rate DRF's documentation writes for rule r, "L/second",
// "L/minute", "L/hour" or "L/day"; "" when W is not one of these.
func DRFRate(r algorithms.Rule) string {
	for _, p := range drfPeriods {
		if r.W == p.w {
			return fmt.Sprintf("%d/%s", r.L, p.name)
		}
	}
	return ""
}

// NewDRFThrottling returns SimpleRateThrottle for rule r; arg is what
// follows "drf-throttling:" in spec: "max-entries" or "max-entries=N".
func NewDRFThrottling(r algorithms.Rule, spec, arg string, hasArg bool) (*DRFThrottling, error) {
	if DRFRate(r) == "" {
		hint := ""
		for _, p := range drfPeriods {
			if p.w%r.W == 0 {
				if l, ok := algorithms.MulOK(r.L, p.w/r.W); ok {
					hint = fmt.Sprintf(" (%s has the same rate)", algorithms.Rule{L: l, W: p.w})
					break
				}
			}
		}
		return nil, fmt.Errorf("algorithm %q: a DRF rate is \"L/period\", the period second, minute, hour or day, of which only the first letter is read: the window is 1s, 1m, 1h or 24h, not %s; give one of these%s", spec, algorithms.FormatWindow(r.W), hint)
	}
	d := &DRFThrottling{rule: r, dur: float64(r.W / int64(time.Second)), iCull: -1, hist: algorithms.NewKeyEntries(algorithms.RingFor(r.L))}
	if hasArg {
		v, ok := strings.CutPrefix(strings.TrimSpace(arg), "max-entries")
		n, err := int64(DRFMaxEntries), error(nil)
		if s, given := strings.CutPrefix(v, "="); ok && given {
			n, err = strconv.ParseInt(s, 10, 64)
		}
		if !ok || (v != "" && !strings.HasPrefix(v, "=")) || err != nil || n < 1 || n > 1<<31-1 {
			return nil, fmt.Errorf("algorithm %q: want drf-throttling, drf-throttling:max-entries (LocMemCache's MAX_ENTRIES, %d) or drf-throttling:max-entries=N, N from 1", spec, DRFMaxEntries)
		}
		d.cache = &drfCache{keyQueue: newKeyQueue(), max: n}
	}
	devs := []algorithms.Deviation{
		{Name: "float", About: "compares time.time()'s float64 seconds: an entry is popped iff entry <= now - duration in float64, the cache's expiry a float64 sum"},
		{Name: "expiry", About: "drops the whole history, and the key from the cache when next read, once the cache entry set at the key's last admission has expired, last + duration <= time.time() in float64 (without the culls it shows only with float)"},
		{Name: "one-hit", About: "records one entry per request whatever its cost, admitted iff fewer than L are in the window"},
	}
	if d.cache != nil {
		d.iCull = len(devs)
		devs = append(devs, algorithms.Deviation{Name: "cull", About: "the cache holds MAX_ENTRIES keys: a set when it holds that many first culls the least recently used third (len // 3), histories and all"})
	}
	d.SetDeviations(devs...)
	return d, nil
}

func (d *DRFThrottling) Name() string {
	name := "drf-throttling"
	switch {
	case d.cache == nil:
	case d.cache.max == DRFMaxEntries:
		name += ":max-entries"
	default:
		name += ":max-entries=" + itoa(d.cache.max)
	}
	return name + d.Suffix()
}

// MaxEntries is the cache's MAX_ENTRIES with max-entries, 0 without.
func (d *DRFThrottling) MaxEntries() int64 {
	if d.cache == nil {
		return 0
	}
	return d.cache.max
}

func (*DRFThrottling) Twin() string         { return "log" }
func (*DRFThrottling) FixedSize() bool      { return false }
func (*DRFThrottling) CountsRejected() bool { return true }
func (d *DRFThrottling) Warm(id int32) uint64 {
	return d.hist.Key(id).Warm()
}

func (d *DRFThrottling) Grow(n int) {
	d.keys.Grow(n)
	d.hist.Grow(n)
	if d.cache != nil {
		d.cache.grow(n)
	}
}

// Bytes is the entries the key holds, 8 each, and its expiry, 8.
func (d *DRFThrottling) Bytes(id int32) int64 { return d.hist.Key(id).Bytes() }

// Memory returns the largest size of one key and the sum over keys of
// each key's largest size, as the log's Memory.
func (d *DRFThrottling) Memory() (peakPerKey, sumOfPeaks int64) {
	peakPerKey, sumOfPeaks = d.relPeakMax, d.relPeakSum
	for id := range int32(d.keys.Len()) {
		p := d.keys.At(id).peak
		peakPerKey = max(peakPerKey, p)
		sumOfPeaks += p
	}
	return peakPerKey, sumOfPeaks
}

// CouplesKeys reports whether the cache's culls are modelled: a key's
// decision then depends on the other keys' requests (see KeyCoupler).
func (d *DRFThrottling) CouplesKeys() bool { return d.cache != nil && d.OnAt(d.iCull) }

// hits is what a request of cost records: one entry, or its cost without
// one-hit.
func (d *DRFThrottling) hits(cost int64) int64 { return oneHit(d.OnAt(drfOneHit), cost) }

// cutoff is the time at or before which an entry is popped at t: the
// largest ns whose time.time() is at most now - duration in float64; t - W
// without float.
func (d *DRFThrottling) cutoff(t int64) int64 {
	if !d.OnAt(drfFloat) {
		return t - d.rule.W
	}
	if !d.cutOK || d.cutT != t {
		d.cutT, d.cut, d.cutOK = t, PyTimeAtMost(float64(PyTime(t)-d.dur), t-d.rule.W), true
	}
	return d.cut
}

// expired reports whether the cache entry set at set has expired at t:
// time.time() + duration at set, at most time.time() at t.
func (d *DRFThrottling) expired(set, t int64) bool {
	switch {
	case !d.OnAt(drfExpiry):
		return false
	case d.OnAt(drfFloat):
		return float64(PyTime(set)+d.dur) <= PyTime(t)
	}
	return t-set >= d.rule.W
}

// get is cache.get(key, []) and the pops at t: a key expired loses its
// history and leaves the cache; one held moves to the cache's head. It
// returns the key's cache entry and its history.
func (d *DRFThrottling) get(id int32, t int64) (*drfKey, algorithms.Entries) {
	k := d.keys.At(id)
	if k.held && d.expired(k.set, t) {
		d.forget(id)
	} else if k.held && d.CouplesKeys() {
		d.cache.touch(id)
	}
	e := d.hist.Key(id)
	e.Expire(d.cutoff(t))
	return k, e
}

// forget drops key id's cache entry: its history and its place in the
// cache.
func (d *DRFThrottling) forget(id int32) {
	k := d.keys.At(id)
	d.hist.Key(id).Drop()
	k.held = false
	if d.cache != nil {
		d.cache.remove(id)
	}
}

// Decide admits iff the request's entries fit beside those in the window:
// with one-hit, iff len(history) < L.
func (d *DRFThrottling) Decide(id int32, t, cost int64) bool {
	_, e := d.get(id, t)
	n := d.hits(cost)
	return n <= d.rule.L && e.Sum() <= d.rule.L-n
}

// Record is throttle_success: the request's entry inserted and the
// history set in the cache, its expiry from t (with the culls first).
func (d *DRFThrottling) Record(id int32, t, cost int64) {
	k, e := d.get(id, t)
	if n := d.hits(cost); n > 0 {
		e.Add(t, n)
	}
	if d.CouplesKeys() {
		d.cache.set(id, d.forget)
	}
	k.held, k.set = true, t
	k.peak = max(k.peak, e.Bytes())
}

// Estimate returns the cost of the entries in the window, as the log's
// count.
func (d *DRFThrottling) Estimate(id int32, _ int64) algorithms.Rational {
	return algorithms.Whole(d.hist.Key(id).Sum())
}

// Idle: every entry has left the window at t (an expired cache entry
// holds none). With the culls no key is idle: its entry may yet be culled
// in another's place.
func (d *DRFThrottling) Idle(id int32, t int64) bool {
	if d.CouplesKeys() {
		return false
	}
	_, e := d.get(id, t)
	return e.Len() == 0
}

// Release forgets key id; its largest size stays counted in Memory.
func (d *DRFThrottling) Release(id int32) {
	k := d.keys.At(id)
	d.relPeakMax = max(d.relPeakMax, k.peak)
	d.relPeakSum += k.peak
	d.forget(id)
	*k = drfKey{}
}

// drfCache is LocMemCache's keys in the order of their last get or set,
// the most recent at the head (its OrderedDict), and their number.
type drfCache struct {
	keyQueue
	n   int64
	max int64 // MAX_ENTRIES
}

// remove takes key id out of the cache, if it is there.
func (c *drfCache) remove(id int32) {
	if c.in[id] {
		c.release(id)
		c.n--
	}
}

// set is _set's part of the cache: when it holds max keys or more, the
// n // 3 at the tail are culled first (drop forgets each), then key id is
// put (or moved) at the head.
func (c *drfCache) set(id int32, drop func(int32)) {
	if c.n >= c.max {
		for range c.n / 3 {
			drop(c.tail)
		}
	}
	if !c.in[id] {
		c.n++
	}
	c.touch(id) // get's move_to_end(key, last=False), or the new key's place
}
