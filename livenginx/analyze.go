package livenginx

import (
	"cmp"
	"fmt"
	"slices"

	"ratebench/algorithms"
	"ratebench/summary"
)

// The live replay's results are summary's types, so that the report can
// show them.
type (
	Result    = summary.LiveNginx
	TraceInfo = summary.LiveTrace
	Setup     = summary.LiveSetup
	Agreement = summary.LiveAgreement
	Class     = summary.LiveClass
	ClockInfo = summary.LiveClock
	Timing    = summary.LiveTiming
)

// SchemaVersion is the version of live.json's layout.
const SchemaVersion = summary.LiveSchemaVersion

// ModelSpec is the model of the nginx a replay configures: the scaled
// rate, the burst, and the zone's expiry of idle nodes (which real nginx
// always does).
func ModelSpec(rate string, burst int64) string {
	return fmt.Sprintf("nginx:rate=%s:burst=%d:zone", rate, burst)
}

// runModel replays the requests in order through spec for rule r at
// times, each with its cost, recording what it admits, and returns each
// request's decision.
func runModel(spec string, r algorithms.Rule, tr *Trace, order []int, times []int64) ([]bool, error) {
	l, err := algorithms.New(spec, r)
	if err != nil {
		return nil, err
	}
	l.Grow(tr.Keys)
	out := make([]bool, len(tr.T))
	for _, i := range order {
		id := tr.Key[i]
		if ok := l.Decide(id, times[i], tr.CostOf(i)); ok {
			l.Record(id, times[i], tr.CostOf(i))
			out[i] = true
		}
	}
	return out, nil
}

// Analyze compares what nginx decided with its model, fed nginx's own
// clock, its wall clock and the trace's times, and with the exact log.
func Analyze(cfg Config, raw *Raw, info TraceInfo) (*Result, error) {
	tr := raw.Trace
	n := len(tr.T)
	burst := cfg.burst()
	spec := ModelSpec(raw.Rate, burst)
	res := &Result{Schema: SchemaVersion, Trace: info,
		Setup: Setup{Rule: cfg.Rule.String(), Speed: cfg.SpeedString(), Clients: cfg.Clients, NginxRate: raw.Rate, Burst: burst,
			NoDelay: cfg.NoDelay, Delay: cfg.Delay, ModelSpec: spec, Nginx: raw.Version}}
	res.Trace.Requests, res.Trace.Keys = int64(n), tr.Keys
	res.Trace.FirstNS, res.Trace.LastNS = tr.T[0], tr.T[n-1]

	real, order, err := answers(raw, res)
	if err != nil {
		return nil, err
	}
	c := decisionTimes(cfg, raw, &res.Clock)
	if err := compareModels(cfg, spec, raw, c, real, order, res); err != nil {
		return nil, err
	}
	res.Timing = timing(raw, c.scaled)
	return res, nil
}

// answers reads nginx's answers from its log, which must match the
// statuses the client read: each request's decision, nginx's order of
// decision, and the counts admitted and refused (into res).
func answers(raw *Raw, res *Result) (real []bool, order []int, err error) {
	n := len(raw.Trace.T)
	real = make([]bool, n)
	seen := make([]bool, n)
	order = make([]int, 0, n)
	for _, l := range raw.Logged {
		if l.ID < 0 || l.ID >= n || seen[l.ID] {
			return nil, nil, fmt.Errorf("nginx's access log, line %d: request %d is unknown or logged twice", l.Line, l.ID)
		}
		seen[l.ID] = true
		if l.Status != raw.Sent[l.ID].Status {
			return nil, nil, fmt.Errorf("nginx's access log, line %d: status %d, but the client read %d", l.Line, l.Status, raw.Sent[l.ID].Status)
		}
		switch l.Status {
		case 200:
			real[l.ID] = true
			res.Admitted++
		case 429:
			res.Refused++
		default:
			return nil, nil, fmt.Errorf("nginx's access log, line %d: status %d, want 200 or 429", l.Line, l.Status)
		}
		order = append(order, l.ID)
	}
	return real, order, nil
}

// clocks are each request's time on the clocks its model is fed.
type clocks struct {
	nginxMS []int64 // nginx's ngx_current_msec at its decision, reconstructed
	mono    []int64 // the same, in ns
	wall    []int64 // nginx's $msec at its decision, in ns
	scaled  []int64 // the trace's time, scaled, from the start of the replay
}

// decisionTimes reconstructs nginx's clock at each decision (see
// reconstruct, which fills ci) and sets it beside $msec and the trace's
// scaled times.
func decisionTimes(cfg Config, raw *Raw, ci *ClockInfo) clocks {
	tr := raw.Trace
	n := len(tr.T)
	c := clocks{nginxMS: reconstruct(raw, ci), mono: make([]int64, n), wall: make([]int64, n), scaled: make([]int64, n)}
	for _, l := range raw.Logged {
		c.mono[l.ID] = c.nginxMS[l.ID] * 1e6
		c.wall[l.ID] = l.MsecMS * 1e6
	}
	for i, t := range tr.T {
		c.scaled[i] = int64(cfg.offset(t, tr.T[0]))
	}
	return c
}

// compareModels sets nginx's decisions beside its model's in nginx's order
// on nginx's clock and on $msec, its model's in the trace's order on the
// trace's scaled times, and the exact log's on the trace's own times, with
// the classes of the disagreements (into res).
func compareModels(cfg Config, spec string, raw *Raw, c clocks, real []bool, order []int, res *Result) error {
	tr := raw.Trace
	traceOrder := make([]int, len(tr.T))
	for i := range traceOrder {
		traceOrder[i] = i
	}

	model, err := runModel(spec, cfg.Rule, tr, order, c.mono)
	if err != nil {
		return err
	}
	res.Model = agreement(spec, "nginx's clock: ngx_current_msec, from $connection_time", real, model)
	res.Model.Classes = classifyModel(spec, cfg.Rule, tr, order, c.mono, real, model, raw, c.nginxMS)

	modelWall, err := runModel(spec, cfg.Rule, tr, order, c.wall)
	if err != nil {
		return err
	}
	res.ModelWall = agreement(spec, "nginx's $msec (the wall clock)", real, modelWall)

	intended, err := runModel(spec, cfg.Rule, tr, traceOrder, c.scaled)
	if err != nil {
		return err
	}
	res.Intended = agreement(spec, "the trace's times, scaled", real, intended)
	res.Intended.Classes = classifyIntended(tr, order, c.nginxMS, c.scaled, real, intended, &res.Clock)

	logDec, err := runModel("log", cfg.Rule, tr, traceOrder, tr.T)
	if err != nil {
		return err
	}
	res.Log = agreement("log", "the trace's times, rule "+cfg.Rule.String(), real, logDec)
	res.Log.Classes = classifyLog(real, intended, logDec)
	return nil
}

// classifyLog explains each disagreement of nginx with the log: by
// nginx's algorithm when its model on the trace's times (intended)
// decides as nginx did, else by the replay's timing.
func classifyLog(real, intended, logDec []bool) []Class {
	byModel := Class{Name: "nginx's algorithm", Meaning: "its model on the trace's times decides as nginx did: a deviation of nginx's limit_req from the log"}
	byTiming := Class{Name: "the replay's timing", Meaning: "its model on the trace's times decides as the log: nginx saw the request at another time"}
	for i := range real {
		if real[i] == logDec[i] {
			continue
		}
		c := &byTiming
		if intended[i] == real[i] {
			c = &byModel
		}
		if c.Count == 0 {
			c.First = i + 1
		}
		c.Count++
	}
	var out []Class
	for _, c := range []Class{byModel, byTiming} {
		if c.Count > 0 {
			out = append(out, c)
		}
	}
	return out
}

// timing sums how late the requests were sent and how long their answers
// took, and the rates asked for (scaled) and achieved.
func timing(raw *Raw, scaled []int64) Timing {
	var tm Timing
	n := len(raw.Sent)
	var late, lat summary.Durations
	for _, s := range raw.Sent {
		late.Add(max(s.Send-s.Due, 0))
		lat.Add(max(s.Recv-s.Send, 0))
	}
	tm.Late, tm.Latency = late.Summary(), lat.Summary()
	tm.DurationNS = raw.Sent[n-1].Recv - raw.Sent[0].Send
	if n > 1 {
		if span := scaled[n-1]; span > 0 {
			tm.RequestedPerS = float64(n-1) / (float64(span) / 1e9)
		}
		if span := raw.Sent[n-1].Send - raw.Sent[0].Send; span > 0 {
			tm.AchievedPerS = float64(n-1) / (float64(span) / 1e9)
		}
	}
	return tm
}

func agreement(against, times string, real, other []bool) Agreement {
	a := Agreement{Against: against, Times: times}
	for i := range real {
		switch {
		case real[i] == other[i]:
			a.Agree++
		case real[i]:
			a.NginxOnly++
		default:
			a.OtherOnly++
		}
	}
	return a
}

// reconstruct returns, per request, ngx_current_msec at its decision.
func reconstruct(raw *Raw, ci *ClockInfo) []int64 {
	n := len(raw.Sent)
	out := make([]int64, n)
	byConn := map[int64][]Logged{}
	var conns []int64
	for _, l := range raw.Logged {
		if _, ok := byConn[l.Conn]; !ok {
			conns = append(conns, l.Conn)
		}
		byConn[l.Conn] = append(byConn[l.Conn], l)
	}
	ci.NginxConnections = len(conns)
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
			s := raw.Sent[l.ID]
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
			s := raw.Sent[l.ID]
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
func classifyModel(spec string, r algorithms.Rule, tr *Trace, order []int, mono []int64, real, model []bool, raw *Raw, nginxMS []int64) []Class {
	classes := []Class{
		{Name: "outside the bracket", Meaning: "nginx's clock, as reconstructed, falls outside the milliseconds between the request's send and its answer"},
		{Name: "millisecond boundary", Meaning: "the model agrees if nginx's clock had read 1 ms earlier or later: the request crossed a millisecond between send and decision"},
		{Name: "not examined", Meaning: "beyond the first disagreements, which are replayed again one by one"},
		{Name: "unexplained", Meaning: "none of the above: nginx's limit_req and its model differ"},
	}
	examined := 0
	add := func(k, i int) {
		if classes[k].Count == 0 {
			classes[k].First = i + 1
		}
		classes[k].Count++
	}
	for i := range real {
		if real[i] == model[i] {
			continue
		}
		s := raw.Sent[i]
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
			times := slices.Clone(mono)
			times[i] += d
			dec, err := runModel(spec, r, tr, order, times)
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
	return nonEmpty(classes)
}

// classifyIntended explains each disagreement of nginx with its model on
// the trace's scaled times, and counts how the replay moved requests.
func classifyIntended(tr *Trace, order []int, nginxMS, scaled []int64, real, intended []bool, ci *ClockInfo) []Class {
	n := len(tr.T)
	classes := []Class{
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
	add := func(k, i int) {
		if classes[k].Count == 0 {
			classes[k].First = i + 1
		}
		classes[k].Count++
	}
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
	return nonEmpty(classes)
}

func nonEmpty(cs []Class) []Class {
	var out []Class
	for _, c := range cs {
		if c.Count > 0 {
			out = append(out, c)
		}
	}
	return out
}
