package live

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"time"

	"ratebench/algorithms"
	_ "ratebench/algorithms/products" // every product's model, for Target.Model's spec
	"ratebench/summary"
)

// Run replays tr through target's software, configured for rule r (at
// o.Speed when it runs on its own clock), from o's clients in the trace's
// order, and sets its decisions beside its model, on the times it decided
// at in the order it decided and (on its own clock) on the trace's, and
// beside the exact log on the trace's times with rule r. What Start
// started is stopped before Run returns, whatever happens.
func Run(ctx context.Context, target Target, r algorithms.Rule, tr *Trace, o Options) (res *summary.Live, err error) {
	if len(tr.T) == 0 {
		return nil, errors.New("live: the trace has no requests")
	}
	if err := CheckOptions(target, o); err != nil {
		return nil, err
	}
	version, err := target.Version(ctx, o)
	if err != nil {
		return nil, err
	}
	spec, mr, err := ModelOf(target, r, o) // before the software starts
	if err != nil {
		return nil, err
	}
	res = &summary.Live{Schema: summary.LiveSchemaVersion, Target: target.Name, Software: version,
		Rule: r.String(), Clock: "driven", Clients: o.clients(), ModelSpec: spec, ModelRule: mr.String()}
	if o.Variant != "" {
		res.Target += ":" + o.Variant
	}
	if !target.Driven {
		res.Clock, res.Speed = "real", speedString(o.Speed)
	}
	n := len(tr.T)
	res.Trace.Requests, res.Trace.Keys, res.Trace.FirstNS, res.Trace.LastNS = int64(n), tr.Keys, tr.T[0], tr.T[n-1]

	s, err := target.Start(ctx, mr, tr, o)
	if err != nil {
		return nil, err
	}
	defer func() {
		if cerr := s.Close(); cerr != nil && err == nil {
			res, err = nil, fmt.Errorf("live %s: stopping it: %w", target.Name, cerr)
		}
	}()
	rp, err := replay(ctx, target, s, tr, o)
	if err != nil {
		return nil, err
	}
	if err := s.Settle(ctx, rp.d); err != nil {
		return nil, fmt.Errorf("live %s: %w", target.Name, err)
	}
	a := &Analysis{Trace: tr, Rule: mr, Spec: spec, Real: make([]bool, n), At: make([]int64, n), Order: decisionOrder(rp.d),
		Scaled: rp.scaled, Sent: rp.sent, DurationNS: rp.timing.DurationNS, Result: res}
	var blocks map[int]int64 // the blocks the software set after their refusals
	for i, d := range rp.d {
		a.Real[i], a.At[i] = d.Admit, d.At
		if d.Block {
			if blocks == nil {
				blocks = map[int]int64{}
			}
			blocks[i] = d.BlockAt
		}
		if d.Admit {
			res.Admitted++
		} else {
			res.Refused++
		}
	}
	if a.Model, a.Limiter, err = DecideInOrder(spec, mr, tr, a.Order, a.At, blocks); err != nil {
		return nil, err
	}
	res.Model = a.Agreement(spec, "the times it decided at", a.Model)
	res.Differences = differences(a.Real, a.Model, tr, a.At)
	onTrace := a.Model
	if !target.Driven {
		if a.Intended, err = a.Decide(spec, nil, a.Scaled); err != nil {
			return nil, err
		}
		in := a.Agreement(spec, "the trace's times at speed "+res.Speed, a.Intended)
		res.Intended, onTrace = &in, a.Intended
	}
	exact, err := Decide("log", r, tr, tr.T)
	if err != nil {
		return nil, err
	}
	res.Log = Agreement("log", "the trace's times", a.Real, exact, tr)
	res.Log.Classes = logClasses(a.Real, exact, onTrace)
	res.Timing = rp.timing
	if req := rp.timing.RequestedPerS; req > 0 {
		asked := time.Duration(float64(n-1) / req * 1e9)
		if took := time.Duration(rp.timing.DurationNS); took > asked+asked/4+50*time.Millisecond {
			res.Notes = append(res.Notes, fmt.Sprintf("the replay took %v for the %v its pace asked for: it fell behind the trace's pace at speed %s "+
				"(its model fed the times the software decided at still agrees, but the trace's timing is lost); lower -speed",
				took.Round(time.Millisecond), asked.Round(time.Millisecond), res.Speed))
		}
	}
	if err := s.Analyze(ctx, a); err != nil {
		return nil, fmt.Errorf("live %s: %w", target.Name, err)
	}
	return res, nil
}

// CheckOptions says why target cannot be replayed with o's clients.
func CheckOptions(target Target, o Options) error {
	if o.Clients < 0 || o.Clients > MaxClients {
		return fmt.Errorf("clients %d: want 1 to %d", o.Clients, MaxClients)
	}
	if o.clients() > 1 && !target.Clients {
		return fmt.Errorf("live %s: its software is replayed by one client, in the trace's order, not %d", target.Name, o.Clients)
	}
	return nil
}

// MaxClients bounds Options.Clients.
const MaxClients = 1024

// decisionOrder returns the requests in the order the software decided
// them: by Order, and at equal Order in the trace's.
func decisionOrder(d []Decision) []int {
	order := make([]int, len(d))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(x, y int) int { return cmp.Compare(d[x].Order, d[y].Order) })
	return order
}

// ModelOf returns the spec of the model of target's software for rule r,
// and the rule it runs under: r, or for software on its own clock r at
// o.Speed (Target.Scale, ScaleRule by default). An error says why the
// software cannot run so (the rule at that speed, a variant it does not
// take, a model that refuses the rule): Run checks it before the software
// starts, and a caller may before it reads the trace.
func ModelOf(target Target, r algorithms.Rule, o Options) (spec string, mr algorithms.Rule, err error) {
	mr = r
	if !target.Driven {
		scale := target.Scale
		if scale == nil {
			scale = ScaleRule
		}
		if mr, err = scale(r, o.Speed); err != nil {
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

// speedString writes a speed as a whole number or fraction ("1", "1/4").
func speedString(s *big.Rat) string {
	if s == nil {
		return "1"
	}
	return s.RatString()
}
