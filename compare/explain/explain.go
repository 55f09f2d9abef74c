// Package explain tells why one key was decided otherwise: its requests,
// replayed through the exact log and the candidate algorithms
// (compare.KeyReplay), their disagreements counted and the first listed,
// and its requests over a span of time kept for a figure (report.KeyView).
//
// The span shown is, by default, Windows windows of the rule on each side
// of the key's first disagreement (the key's first 2×Windows windows if it
// has none), or what From and To say. Only the requests that can be in it
// are kept while the trace streams by, so memory follows the key's
// requests in the span, not the trace. Times are int64 nanoseconds: every
// sum of a time and a span saturates rather than wraps, and the span ends
// at Latest(W) at the latest, so that stepping through it window by window
// cannot overflow.
package explain

import (
	"fmt"
	"math"
	"time"

	"ratebench/compare"
	"ratebench/report"
	"ratebench/traces"
)

// Windows is how many windows of the rule the span shows on each side of
// the key's first disagreement, by default.
const Windows = 2

// Bound is a bound of the span shown: an absolute time, or an offset from
// the key's first request.
type Bound struct {
	Set      bool
	Absolute bool
	NS       int64
}

// ParseBound reads a bound: a duration after the key's first request
// (90s, 5m) or an RFC 3339 time; "" is no bound.
func ParseBound(v string) (Bound, error) {
	if v == "" {
		return Bound{}, nil
	}
	if d, err := time.ParseDuration(v); err == nil {
		return Bound{Set: true, NS: int64(d)}, nil
	}
	if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
		if t.Before(time.Unix(0, math.MinInt64)) || t.After(time.Unix(0, math.MaxInt64)) {
			return Bound{}, fmt.Errorf("%q is outside the times a trace holds (%s to %s)", v, fmtTime(math.MinInt64), fmtTime(math.MaxInt64))
		}
		return Bound{Set: true, Absolute: true, NS: t.UnixNano()}, nil
	}
	return Bound{}, fmt.Errorf("%q: want a duration after the key's first request (90s, 5m) or an RFC 3339 time (2024-01-01T00:01:30Z)", v)
}

func (b Bound) at(origin int64) int64 {
	if b.Absolute {
		return b.NS
	}
	return addSat(origin, b.NS)
}

// Latest is the latest time a span of windows of w may reach: one window
// short of the largest time, so that a step of w past it stays a time.
func Latest(w int64) int64 { return math.MaxInt64 - max(w, 0) }

// addSat is a+b, saturated at the ends of int64.
func addSat(a, b int64) int64 {
	switch {
	case b > 0 && a > math.MaxInt64-b:
		return math.MaxInt64
	case b < 0 && a < math.MinInt64-b:
		return math.MinInt64
	}
	return a + b
}

// Options are what an explanation shows.
type Options struct {
	Key        string
	Algorithms []string // beside the log, as compare.KeyReplay names them
	W          int64    // the (primary) rule's window
	From, To   Bound
	MaxList    int // disagreements listed at most
}

// Explanation gathers, while the trace streams by, what explain shows of
// one key: its totals, its first disagreements, and its requests in the
// span shown.
type Explanation struct {
	opt Options

	requests     int64
	origin, last int64
	over, under  []int64
	listed       []disagreement
	more         int64
	firstDis     int64 // time of the first disagreement, if seen
	seenDis      bool
	kept         []compare.KeyDecision // the requests in the span shown
	head, recent []compare.KeyDecision // before the first disagreement (see keep)
	started      bool                  // kept holds the span around the first disagreement
}

type disagreement struct {
	d   compare.KeyDecision
	alg int
}

// New starts an explanation.
func New(opt Options) *Explanation {
	return &Explanation{opt: opt, over: make([]int64, len(opt.Algorithms)), under: make([]int64, len(opt.Algorithms))}
}

// Replay reads r, replays the requests of the key through kr and returns
// the explanation; an error names the trace's position.
func Replay(r traces.Reader, kr *compare.KeyReplay, opt Options) (*Explanation, error) {
	opt.Algorithms = kr.Algorithms()
	e := New(opt)
	for r.Scan() {
		q := r.Request()
		if string(q.Key) != opt.Key {
			continue
		}
		d, err := kr.Add(q.T, q.Cost)
		if err != nil {
			return nil, &traces.ParseError{Pos: r.Pos(), Msg: err.Error(), Err: err}
		}
		e.Add(d)
	}
	if err := r.Err(); err != nil {
		return nil, err
	}
	return e, nil
}

// Requests is the number of the key's requests seen.
func (e *Explanation) Requests() int64 { return e.requests }

// Add takes the key's next request.
func (e *Explanation) Add(d compare.KeyDecision) {
	if e.requests == 0 {
		e.origin = d.T
	}
	e.requests++
	e.last = d.T
	dis := false
	for i, a := range d.Admit {
		if a == d.Log {
			continue
		}
		dis = true
		if a {
			e.over[i]++
		} else {
			e.under[i]++
		}
		if len(e.listed) < e.opt.MaxList {
			e.listed = append(e.listed, disagreement{d, i})
		} else {
			e.more++
		}
	}
	if dis && !e.seenDis {
		e.seenDis, e.firstDis = true, d.T
	}
	e.keep(d)
}

// before is the span shown before the first disagreement by default.
func (e *Explanation) before() int64 {
	if e.opt.W > math.MaxInt64/Windows {
		return math.MaxInt64
	}
	return Windows * e.opt.W
}

// keep holds d if it may be in the span shown, and lets go of what can no
// longer be: before the first disagreement, the requests of the last
// windows (where the span starts if one comes) and those of the key's
// first windows (the span if none comes).
func (e *Explanation) keep(d compare.KeyDecision) {
	before := e.before()
	switch {
	case e.opt.From.Set || e.opt.To.Set:
		lo, hi := e.bounds()
		if d.T >= lo && d.T <= hi {
			e.kept = append(e.kept, d)
		}
	case !e.seenDis:
		if d.T <= addSat(e.origin, addSat(before, before)) {
			e.head = append(e.head, d)
		}
		e.recent = append(e.recent, d)
		e.recent = e.recent[e.firstAfter(e.recent, addSat(d.T, -before)):]
	case !e.started:
		// The first disagreement: the span starts in the windows before it.
		e.kept = append(e.recent[e.firstAfter(e.recent, addSat(d.T, -before)):], d)
		e.head, e.recent, e.started = nil, nil, true
	case d.T <= addSat(e.firstDis, before):
		e.kept = append(e.kept, d)
	}
}

// firstAfter is the index of the first of ds at t or later.
func (e *Explanation) firstAfter(ds []compare.KeyDecision, t int64) int {
	i := 0
	for i < len(ds) && ds[i].T < t {
		i++
	}
	return i
}

// bounds is the span given by From and To, once the origin is known; a
// bound not given is the key's first (or last) request.
func (e *Explanation) bounds() (int64, int64) {
	lo, hi := e.origin, int64(math.MaxInt64)
	if e.opt.From.Set {
		lo = e.opt.From.at(e.origin)
	}
	if e.opt.To.Set {
		hi = e.opt.To.at(e.origin)
	}
	return lo, hi
}

// Span is the span shown once the trace is read. A span that From or To
// puts past Latest(W) is an error naming the flag; the default span ends
// there at the latest.
func (e *Explanation) Span() (int64, int64, error) {
	before, latest := e.before(), Latest(e.opt.W)
	var lo, hi int64
	switch {
	case e.opt.From.Set || e.opt.To.Set:
		lo, hi = e.bounds()
		if !e.opt.To.Set {
			hi = e.last
		}
		hi = max(hi, lo)
		for _, b := range []struct {
			name string
			b    Bound
			t    int64
		}{{"-from", e.opt.From, lo}, {"-to", e.opt.To, hi}} {
			if b.b.Set && b.t > latest {
				return 0, 0, fmt.Errorf("%s puts the span's end at %s, past the latest time it can show, %s (a window before the last time a trace can hold)", b.name, fmtTime(b.t), fmtTime(latest))
			}
		}
	case e.seenDis:
		lo, hi = max(addSat(e.firstDis, -before), e.origin), min(addSat(e.firstDis, before), e.last)
	default:
		e.kept = e.head
		lo, hi = e.origin, min(addSat(e.origin, addSat(before, before)), e.last)
	}
	return min(lo, latest), min(hi, latest), nil
}

// View is the figure's view of the span lo..hi (from Span) under the rule
// (L of the primary rule), count policy and mode.
func (e *Explanation) View(rule, count, mode string, l, lo, hi int64) *report.KeyView {
	v := &report.KeyView{Key: e.opt.Key, Rule: rule, Count: count, Mode: mode, L: l, W: e.opt.W,
		Origin: e.origin, From: lo, To: hi, Algorithms: e.opt.Algorithms}
	for _, d := range e.kept {
		if d.T >= lo && d.T <= hi {
			v.Requests = append(v.Requests, report.KeyRequest{T: d.T, Cost: d.Cost, Log: d.Log, Exact: d.Exact, Admit: d.Admit, Estimate: d.Estimate})
		}
	}
	return v
}

func fmtTime(ns int64) string { return time.Unix(0, ns).UTC().Format(time.RFC3339Nano) }
