package live

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"time"

	"ratebench/algorithms"
	_ "ratebench/algorithms/products" // every product's model, for Target.Model's spec
	"ratebench/summary"
)

// Run replays tr through target's software, configured for rule r (at
// o.Speed when it runs on its own clock), one request at a time in the
// trace's order, and sets its decisions beside its model, on the times it
// decided at and (on its own clock) on the trace's, and beside the exact
// log on the trace's times with rule r. What Start started is stopped
// before Run returns, whatever happens.
func Run(ctx context.Context, target Target, r algorithms.Rule, tr *Trace, o Options) (res *summary.LiveProduct, err error) {
	if len(tr.T) == 0 {
		return nil, errors.New("live: the trace has no requests")
	}
	version, err := target.Version(ctx, o)
	if err != nil {
		return nil, err
	}
	spec, mr, err := ModelOf(target, r, o) // before the software starts
	if err != nil {
		return nil, err
	}
	res = &summary.LiveProduct{Schema: summary.LiveProductSchemaVersion, Product: target.Name, Software: version,
		Rule: r.String(), Clock: "driven", ModelSpec: spec, ModelRule: mr.String()}
	if !target.Driven {
		res.Clock, res.Speed = "real", speedString(o.Speed)
	}
	n := len(tr.T)
	res.Trace.Requests, res.Trace.Keys, res.Trace.FirstNS, res.Trace.LastNS = int64(n), tr.Keys, tr.T[0], tr.T[n-1]

	real, at, dur, err := replay(ctx, target, mr, tr, o)
	if err != nil {
		return nil, err
	}
	res.DurationNS = dur
	for _, a := range real {
		if a {
			res.Admitted++
		} else {
			res.Refused++
		}
	}
	model, err := Decide(spec, mr, tr, at)
	if err != nil {
		return nil, err
	}
	res.Model = agreement(spec, "the times it decided at", real, model, tr)
	res.Differences = differences(real, model, tr, at)
	onTrace := model
	if !target.Driven {
		scaled := make([]int64, n)
		p := NewPacer(o.Speed)
		p.first = tr.T[0]
		for i, t := range tr.T {
			scaled[i] = p.Due(t)
		}
		if onTrace, err = Decide(spec, mr, tr, scaled); err != nil {
			return nil, err
		}
		a := agreement(spec, "the trace's times at speed "+res.Speed, real, onTrace, tr)
		res.Intended = &a
	}
	exact, err := Decide("log", r, tr, tr.T)
	if err != nil {
		return nil, err
	}
	res.Log = agreement("log", "the trace's times", real, exact, tr)
	res.Log.Classes = logClasses(real, exact, onTrace)
	return res, nil
}

// ModelOf returns the spec of the model of target's software for rule r,
// and the rule it runs under: r, or for software on its own clock r at
// o.Speed (ScaleRule). An error says why the software cannot run so (the
// rule at that speed, a variant it does not take, a model that refuses
// the rule): Run checks it before the software starts, and a caller may
// before it reads the trace.
func ModelOf(target Target, r algorithms.Rule, o Options) (spec string, mr algorithms.Rule, err error) {
	mr = r
	if !target.Driven {
		if mr, err = ScaleRule(r, o.Speed); err != nil {
			return "", mr, err
		}
	}
	spec, err = target.Model(mr, o)
	if err == nil {
		if _, err = algorithms.New(spec, mr); err != nil {
			err = fmt.Errorf("live %s: its model: %w", target.Name, err)
		}
	}
	if err != nil && mr != r {
		err = fmt.Errorf("the rule %s at speed %s is %s on the software's clock: %w", r, speedString(o.Speed), mr, err)
	}
	return spec, mr, err
}

// replay asks the software for each request's decision.
func replay(ctx context.Context, target Target, r algorithms.Rule, tr *Trace, o Options) (real []bool, at []int64, dur int64, err error) {
	s, err := target.Start(ctx, r, o)
	if err != nil {
		return nil, nil, 0, err
	}
	defer func() {
		if cerr := s.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("live %s: stopping it: %w", target.Name, cerr)
		}
	}()
	n := len(tr.T)
	real, at = make([]bool, n), make([]int64, n)
	start := time.Now()
	for i, t := range tr.T {
		if err := ctx.Err(); err != nil {
			return nil, nil, 0, err
		}
		a, when, err := s.Decide(ctx, KeyName(tr.Key[i]), t)
		if err != nil {
			return nil, nil, 0, fmt.Errorf("live %s: request %d (key %s at %d ns): %w", target.Name, i+1, KeyName(tr.Key[i]), t, err)
		}
		if target.Driven && when != t {
			return nil, nil, 0, fmt.Errorf("live %s: request %d: the software's clock is driven, yet it says it decided at %d ns, not the request's %d ns", target.Name, i+1, when, t)
		}
		if i > 0 && when < at[i-1] {
			return nil, nil, 0, fmt.Errorf("live %s: request %d: decided at %d ns, before the previous request's %d ns", target.Name, i+1, when, at[i-1])
		}
		real[i], at[i] = a, when
	}
	return real, at, int64(time.Since(start)), nil
}

// Decide replays tr through spec for rule r at times, each request with
// its cost, counting requests as the product does (every request, or the
// admitted ones), and returns each request's decision.
func Decide(spec string, r algorithms.Rule, tr *Trace, times []int64) ([]bool, error) {
	l, err := algorithms.New(spec, r)
	if err != nil {
		return nil, err
	}
	l.Grow(tr.Keys)
	every := algorithms.CountsEvery(l)
	out := make([]bool, len(tr.T))
	for i, id := range tr.Key {
		ok := l.Decide(id, times[i], tr.CostOf(i))
		if ok || every {
			l.Record(id, times[i], tr.CostOf(i))
		}
		out[i] = ok
	}
	return out, nil
}

// agreement counts where real and other agree, classifying the
// disagreements by whether an earlier one of the same key precedes them.
func agreement(against, times string, real, other []bool, tr *Trace) summary.ProductAgreement {
	a := summary.ProductAgreement{Against: against, Times: times}
	seen := make([]bool, tr.Keys)
	first, follow := summary.LiveClass{Name: "first of its key", Meaning: "the key's first request decided differently"},
		summary.LiveClass{Name: "after one of its key", Meaning: "an earlier request of the same key was decided differently, so the two states differ"}
	for i := range real {
		switch {
		case real[i] == other[i]:
			a.Agree++
			continue
		case real[i]:
			a.SoftwareOnly++
		default:
			a.OtherOnly++
		}
		c := &first
		if seen[tr.Key[i]] {
			c = &follow
		}
		seen[tr.Key[i]] = true
		if c.Count++; c.Count == 1 {
			c.First = i + 1
		}
	}
	for _, c := range []summary.LiveClass{first, follow} {
		if c.Count > 0 {
			a.Classes = append(a.Classes, c)
		}
	}
	return a
}

// logClasses explains the software's disagreements with the exact log:
// the product's algorithm when its model on the trace's times decides as
// the software did, the replay's timing otherwise.
func logClasses(real, exact, model []bool) []summary.LiveClass {
	alg := summary.LiveClass{Name: "the product's algorithm", Meaning: "its model on the trace's times decides as the software did"}
	timing := summary.LiveClass{Name: "the replay's timing", Meaning: "its model on the trace's times decides as the log: the software saw other times"}
	for i := range real {
		if real[i] == exact[i] {
			continue
		}
		c := &timing
		if model[i] == real[i] {
			c = &alg
		}
		if c.Count++; c.Count == 1 {
			c.First = i + 1
		}
	}
	var out []summary.LiveClass
	for _, c := range []summary.LiveClass{alg, timing} {
		if c.Count > 0 {
			out = append(out, c)
		}
	}
	return out
}

// differences lists the first requests the software and its model decide
// differently.
func differences(real, model []bool, tr *Trace, at []int64) []summary.LiveDifference {
	var out []summary.LiveDifference
	for i := range real {
		if real[i] != model[i] && len(out) < summary.MaxLiveDifferences {
			out = append(out, summary.LiveDifference{Request: i + 1, Key: KeyName(tr.Key[i]), TraceNS: tr.T[i], AtNS: at[i], Software: real[i], Model: model[i]})
		}
	}
	return out
}

// speedString writes a speed as a whole number or fraction ("1", "1/4").
func speedString(s *big.Rat) string {
	if s == nil {
		return "1"
	}
	return s.RatString()
}
