package generators

import (
	"fmt"
	"math"
	"strconv"
	"time"
)

// The limits every generated trace keeps to, so that no parameter, however
// large or small, makes the generator exhaust the machine or spin without
// producing a request.
const (
	// MaxRate is the most requests per second any one source may average,
	// at any phase of its scenario: one per ns. Faster, its timestamps
	// collapse onto the same ns, and a chunk of one ns never ends.
	MaxRate = 1e9
	// MaxKeys is the most keys a trace can have: a key's index is an int32.
	MaxKeys = math.MaxInt32
	// MaxSendingKeys is the most keys that can send requests: the smaller
	// of keys and requests. The generator keeps the state of each (a
	// random stream and a clock, a few hundred bytes).
	MaxSendingKeys = 10_000_000
	// MaxPending is the most timestamps the sources of a trace may hold at
	// once: the bursts of boundary and early, drawn a window edge at a
	// time, and the pending attempts of retry's spikes (8 bytes each).
	MaxPending = 1 << 26
	// maxSeconds is the longest period a parameter in seconds may have:
	// about 285 years, the span of int64 ns.
	maxSeconds = 9e9
)

// maxWhole is the largest whole-number parameter: a count of requests.
const maxWhole = 1 << 62

// Range describes the values p accepts, for -list and error messages.
func (p Param) Range() string {
	kind := "a number"
	if p.Whole {
		kind = "a whole number"
	}
	switch {
	case p.Min == -noMax && p.Max == noMax:
		return "any finite number"
	case p.Max == noMax:
		return fmt.Sprintf("%s, at least %s", kind, ftoa(p.Min))
	}
	return fmt.Sprintf("%s from %s to %s", kind, ftoa(p.Min), ftoa(p.Max))
}

// check refuses f for p: not finite, outside [Min, Max], or not whole.
func (p Param) check(f float64) error {
	if !(f >= p.Min && f <= p.Max) || p.Whole && f != math.Trunc(f) {
		return fmt.Errorf("must be %s", p.Range())
	}
	return nil
}

func ftoa(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// The checks of the common parameters, each returning why a value is
// refused ("" when it is not). The zero values that mean a default are
// refused too: a caller that reads zero as "not given" checks only what was
// given.

func badRequests(n int64) string {
	if n < 1 {
		return "must be a whole number, at least 1"
	}
	return ""
}

func badKeys(n int64) string {
	if n < 1 || n > MaxKeys {
		return fmt.Sprintf("must be a whole number from 1 to %d", MaxKeys)
	}
	return ""
}

func badRate(r float64) string {
	if !(r > 0 && r <= MaxRate) {
		return "must be a number above 0 and at most 1e9, in requests per second per key " +
			"(more than one per ns and the timestamps collapse onto the same ns)"
	}
	return ""
}

// badWindow refuses a window that is not positive or that passes the end
// of int64 time from start: there would be no window edge to aim at.
func badWindow(w time.Duration, start int64) string {
	if w <= 0 || int64(w) > never-start {
		return fmt.Sprintf("must be above 0 and at most %v (the time left before the end of int64 ns time, in 2262)",
			time.Duration(never-start).Truncate(time.Hour))
	}
	return ""
}

func badDuration(d time.Duration) string {
	if d < 0 {
		return "must not be negative (0: no limit)"
	}
	return ""
}

func badSeed(s uint64) string {
	if s == 0 {
		return "must be at least 1"
	}
	return ""
}

// CheckFlags checks the common parameters as a command line gives them,
// every field explicit: unlike New, which reads a zero field as its
// default, it refuses a zero (and -duration 0, no limit, is accepted).
func CheckFlags(p Params) error {
	for _, c := range []struct{ flag, value, bad string }{
		{"requests", strconv.FormatInt(p.Requests, 10), badRequests(p.Requests)},
		{"keys", strconv.Itoa(p.Keys), badKeys(int64(p.Keys))},
		{"rate", ftoa(p.Rate), badRate(p.Rate)},
		{"window", p.Window.String(), badWindow(p.Window, DefaultStart)},
		{"duration", p.Duration.String(), badDuration(p.Duration)},
		{"seed", strconv.FormatUint(p.Seed, 10), badSeed(p.Seed)},
	} {
		if c.bad != "" {
			return fmt.Errorf("-%s %s: %s", c.flag, c.value, c.bad)
		}
	}
	return nil
}

// check refuses p, defaults filled in, when a common parameter is out of
// range.
func (p Params) check() error {
	if p.Start < 0 {
		return fmt.Errorf("start %d: must not be before 1970", p.Start)
	}
	for _, c := range []struct{ name, value, bad string }{
		{"requests", strconv.FormatInt(p.Requests, 10), badRequests(p.Requests)},
		{"keys", strconv.Itoa(p.Keys), badKeys(int64(p.Keys))},
		{"rate", ftoa(p.Rate), badRate(p.Rate)},
		{"window", p.Window.String(), badWindow(p.Window, p.Start)},
		{"duration", p.Duration.String(), badDuration(p.Duration)},
	} {
		if c.bad != "" {
			return fmt.Errorf("%s=%s: %s", c.name, c.value, c.bad)
		}
	}
	return nil
}

// limited returns the end of the trace that p's Duration sets, and whether
// it comes before the end of int64 time.
func (p Params) limited() (int64, bool) {
	if p.Duration > 0 && int64(p.Duration) < never-p.Start {
		return p.Start + int64(p.Duration), true
	}
	return never, false
}

// load is what a scenario's parameters imply for one of its sources.
type load struct {
	mean    float64 // long-run requests per second
	pending float64 // timestamps it holds at once, at most
	held    string  // what they are, for an error message
}

// plan checks what the parameters imply for the whole trace, before a
// source is built: that its requests fit before the end of int64 time,
// that the sending keys and the timestamps held at once stay bounded, and
// each scenario's own limits (no source above MaxRate, no burst above the
// requests). It returns the long-run rate of the whole trace, requests per
// second.
func plan(p Params, parts []part) (float64, error) {
	sending := min(int64(p.Keys), p.Requests)
	if sending > MaxSendingKeys {
		return 0, fmt.Errorf("keys=%d with requests=%d: %d keys can send, more than the %d the generator keeps the state of; "+
			"give fewer keys or fewer requests", p.Keys, p.Requests, sending, MaxSendingKeys)
	}
	loads := make([]load, len(parts))
	total := 0.0 // requests per second, all keys
	for i, pt := range parts {
		if pt.keys == 0 {
			continue
		}
		pp := p
		pp.Keys = pt.keys // a scenario sees the keys of its own part of a mix
		l, err := pt.sc.load(pp, pt.v)
		if err != nil {
			return 0, fmt.Errorf("%s: %v", pt.sc.Name, err)
		}
		loads[i] = l
		total += float64(pt.keys) * l.mean
	}
	left := float64(never - p.Start) // ns
	if _, ok := p.limited(); !ok {
		if span := float64(p.Requests) / total * 1e9; !(span <= left) {
			return 0, fmt.Errorf("requests=%d at about %.4g requests per second from all %d keys would take %s, past the end of int64 ns time "+
				"(%.4g s away, in 2262): give at least %.4g requests per second in all (a higher rate, more keys or larger bursts), "+
				"fewer requests, or a duration", p.Requests, total, p.Keys, seconds(span/1e9), left/1e9, float64(p.Requests)/(left/1e9))
		}
	}
	pending := 0.0
	for i, pt := range parts {
		keys := float64(min(int64(pt.keys), p.Requests)) // the keys that can send
		pending += keys * loads[i].pending
		if !(pending <= MaxPending) {
			return 0, fmt.Errorf("%s: %s, %.4g over %d keys: more than the %d timestamps the generator holds at once; "+
				"give smaller bursts (or fewer retries), or fewer keys", pt.sc.Name, loads[i].held, keys*loads[i].pending, int64(keys), MaxPending)
		}
	}
	return total, nil
}

// seconds writes s seconds, "forever" when s is infinite.
func seconds(s float64) string {
	if math.IsInf(s, 1) {
		return "forever"
	}
	return fmt.Sprintf("%.4g s", s)
}

// checkPeak refuses a source rate above MaxRate; what says where it comes
// from.
func checkPeak(what string, rate float64) error {
	if !(rate <= MaxRate) {
		return fmt.Errorf("%s: a source would send %.4g requests per second, more than 1e9 (one per ns; faster, "+
			"the timestamps collapse onto the same ns)", what, rate)
	}
	return nil
}

// checkBurst refuses a burst above the trace's requests; what names it.
func checkBurst(what string, burst float64, p Params) error {
	if !(burst <= float64(p.Requests)) {
		return fmt.Errorf("%s: a burst of %.4g requests, more than the %d of the whole trace; a burst can be at most requests",
			what, burst, p.Requests)
	}
	return nil
}

// noMax is the Max of a parameter with no upper bound of its own.
const noMax = math.MaxFloat64

// steady is the load of a source whose long-run rate is the rate, with
// nothing held and no limit past the common ones.
func steady(p Params, _ values) (load, error) { return load{mean: p.Rate}, nil }
