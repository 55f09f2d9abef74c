package nginx

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"ratebench/live"
	"ratebench/summary"
)

// clockInfo tells how the client's times and nginx's clock relate.
type clockInfo = summary.LiveClock

// Settle reads nginx's access log once it holds a line for every
// request, and completes each decision with it: the answer (which must be
// the status the client read), nginx's clock at the decision,
// reconstructed (see reconstruct), and the line, nginx's order.
func (s *session) Settle(ctx context.Context, d []live.Decision) error {
	logged, err := waitForLog(s.srv, len(d))
	if err != nil {
		return err
	}
	real, err := answers(s.sent, logged)
	if err != nil {
		return err
	}
	s.ci = &clockInfo{}
	s.nginxMS = reconstruct(s.sent, logged, s.ci)
	s.wall = make([]int64, len(d))
	for _, l := range logged {
		d[l.ID] = live.Decision{Admit: real[l.ID], At: s.nginxMS[l.ID] * 1e6, Order: int64(l.Line)}
		s.wall[l.ID] = l.MsecMS * 1e6
	}
	return nil
}

// Analyze says what nginx was configured with, sets nginx beside its
// model fed $msec (the wall clock of the same instant), and explains the
// disagreements with its model fed nginx's clock and the trace's times by
// their likely causes (a decision outside its bracket, a millisecond
// boundary, reordering among connections, an earlier disagreement of its
// key, lateness).
func (s *session) Analyze(_ context.Context, a *live.Analysis) error {
	res := a.Result
	res.Setup = s.limit.setup()
	res.Model.Times = "nginx's clock: ngx_current_msec, from $connection_time"
	res.Model.Classes = classifyModel(a, s.sent, s.nginxMS)
	wall, err := a.Decide(a.Spec, a.Order, s.wall)
	if err != nil {
		return err
	}
	res.Views = append(res.Views, a.Agreement(a.Spec, "nginx's $msec (the wall clock)", wall))
	if res.Intended != nil {
		res.Intended.Classes = classifyIntended(a.Trace, a.Order, s.nginxMS, a.Scaled, a.Real, a.Intended, s.ci)
	}
	res.DecisionClock = s.ci
	return nil
}

// answers reads nginx's answers from its log, which must match the
// statuses the client read: each request's decision.
func answers(sent []sent, logged []Logged) (real []bool, err error) {
	n := len(sent)
	real = make([]bool, n)
	seen := make([]bool, n)
	for _, l := range logged {
		if l.ID < 0 || l.ID >= n || seen[l.ID] {
			return nil, fmt.Errorf("nginx's access log, line %d: request %d is unknown or logged twice", l.Line, l.ID)
		}
		seen[l.ID] = true
		if l.Status != sent[l.ID].Status {
			return nil, fmt.Errorf("nginx's access log, line %d: status %d, but the client read %d", l.Line, l.Status, sent[l.ID].Status)
		}
		switch l.Status {
		case 200:
			real[l.ID] = true
		case 429:
		default:
			return nil, fmt.Errorf("nginx's access log, line %d: status %d, want 200 or 429", l.Line, l.Status)
		}
	}
	return real, nil
}

// reconstruct returns, per request, ngx_current_msec at its decision:
// per connection, the connection's start plus $connection_time, the
// start the offset that puts the most decisions inside their request's
// send..answer bracket (ci counts those outside it).
func reconstruct(sent []sent, logged []Logged, ci *clockInfo) []int64 {
	n := len(sent)
	out := make([]int64, n)
	byConn := map[int64][]Logged{}
	var conns []int64
	for _, l := range logged {
		if _, ok := byConn[l.Conn]; !ok {
			conns = append(conns, l.Conn)
		}
		byConn[l.Conn] = append(byConn[l.Conn], l)
	}
	ci.Connections = len(conns)
	for _, c := range conns {
		ls := byConn[c]
		// Each request puts the start in [lo - ct, hi - ct]; take the
		// point in the most intervals (the lowest such).
		type ev struct {
			at    int64
			delta int
		}
		evs := make([]ev, 0, 2*len(ls))
		for _, l := range ls {
			s := sent[l.ID]
			lo, hi := floorMS(s.Send)-l.ConnMS, floorMS(s.Recv)-l.ConnMS
			evs = append(evs, ev{lo, 1}, ev{hi + 1, -1})
		}
		slices.SortFunc(evs, func(a, b ev) int {
			if a.at != b.at {
				return cmp.Compare(a.at, b.at)
			}
			return a.delta - b.delta
		})
		best, bestAt, cur := -1, int64(0), 0
		for _, e := range evs {
			cur += e.delta
			if cur > best {
				best, bestAt = cur, e.at
			}
		}
		for _, l := range ls {
			m := bestAt + l.ConnMS
			out[l.ID] = m
			s := sent[l.ID]
			if m < floorMS(s.Send) || m > floorMS(s.Recv) {
				ci.OutsideBracket++
			}
		}
	}
	return out
}

func floorMS(ns int64) int64 {
	q := ns / 1e6
	if ns%1e6 < 0 {
		q--
	}
	return q
}

// maxExamined bounds the disagreements with the model that are each
// replayed again to be explained.
const maxExamined = 50

// classifyModel explains each disagreement of nginx with its model fed
// nginx's clock.
func classifyModel(a *live.Analysis, sent []sent, nginxMS []int64) []summary.LiveClass {
	classes := []summary.LiveClass{
		{Name: "outside the bracket", Meaning: "nginx's clock, as reconstructed, falls outside the milliseconds between the request's send and its answer"},
		{Name: "millisecond boundary", Meaning: "the model agrees if nginx's clock had read 1 ms earlier or later: the request crossed a millisecond between send and decision"},
		{Name: "not examined", Meaning: "beyond the first disagreements, which are replayed again one by one"},
		{Name: "unexplained", Meaning: "none of the above: nginx's limit_req and its model differ"},
	}
	examined := 0
	add := func(k, i int) { classes[k].Add(i) }
	real, model := a.Real, a.Model
	for i := range real {
		if real[i] == model[i] {
			continue
		}
		s := sent[i]
		if m := nginxMS[i]; m < floorMS(s.Send) || m > floorMS(s.Recv) {
			add(0, i)
			continue
		}
		if examined >= maxExamined {
			add(2, i)
			continue
		}
		examined++
		flipped := false
		for _, d := range []int64{-1e6, 1e6} {
			times := slices.Clone(a.At)
			times[i] += d
			dec, err := a.Decide(a.Spec, a.Order, times)
			if err == nil && dec[i] == real[i] {
				flipped = true
				break
			}
		}
		if flipped {
			add(1, i)
		} else {
			add(3, i)
		}
	}
	return summary.NonEmptyClasses(classes...)
}

// classifyIntended explains each disagreement of nginx with its model on
// the trace's scaled times, and counts how the replay moved requests.
func classifyIntended(tr *live.Trace, order []int, nginxMS, scaled []int64, real, intended []bool, ci *clockInfo) []summary.LiveClass {
	n := len(tr.T)
	classes := []summary.LiveClass{
		{Name: "reordered", Meaning: "nginx decided it in another order than the trace's, within its key (concurrent connections)"},
		{Name: "after a disagreement", Meaning: "an earlier request of its key was already decided differently, so the bucket differs"},
		{Name: "millisecond boundary", Meaning: "its gap to its key's previous request is 1 ms off in nginx's clock: a millisecond boundary fell elsewhere than in the trace's times"},
		{Name: "late", Meaning: "its gap to its key's previous request is more than 1 ms off in nginx's clock: the request was sent or decided late"},
		{Name: "earlier gap moved", Meaning: "an earlier request of its key was seen at another time than the trace's, which changed the bucket without changing that decision"},
		{Name: "unexplained", Meaning: "none of the above"},
	}
	// Per key, the previous request in the trace and in nginx's order.
	prevTrace := make([]int, n)
	prevNginx := make([]int, n)
	last := make([]int, tr.Keys)
	for k := range last {
		last[k] = -1
	}
	for i := range n {
		prevTrace[i] = last[tr.Key[i]]
		last[tr.Key[i]] = i
	}
	for k := range last {
		last[k] = -1
	}
	for _, i := range order {
		prevNginx[i] = last[tr.Key[i]]
		last[tr.Key[i]] = i
	}
	moved := make([]int64, n) // gap in nginx's clock minus gap in the trace's ms
	for i := range n {
		if p := prevTrace[i]; p >= 0 {
			moved[i] = (nginxMS[i] - nginxMS[p]) - (floorMS(scaled[i]) - floorMS(scaled[p]))
		}
		if prevTrace[i] != prevNginx[i] {
			ci.Reordered++
		} else if moved[i] != 0 {
			ci.Moved++
		}
	}
	bad := make([]bool, tr.Keys)
	movedKey := make([]bool, tr.Keys) // an earlier request of the key moved
	add := func(k, i int) { classes[k].Add(i) }
	for i := range n {
		key := tr.Key[i]
		if real[i] == intended[i] {
			movedKey[key] = movedKey[key] || moved[i] != 0
			continue
		}
		switch {
		case prevTrace[i] != prevNginx[i]:
			add(0, i)
		case bad[key]:
			add(1, i)
		case moved[i] == 1 || moved[i] == -1:
			add(2, i)
		case moved[i] != 0:
			add(3, i)
		case movedKey[key]:
			add(4, i)
		default:
			add(5, i)
		}
		bad[key] = true
	}
	return summary.NonEmptyClasses(classes...)
}
