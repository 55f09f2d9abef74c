package compare

import (
	"fmt"
	"math"

	"ratebench/algorithms"
)

// KeyReplay replays the requests of one key through the reference log and
// candidate algorithms under one rule (or layered rules), count policy and
// mode, deciding and recording each request exactly as the engine's runs
// do (group.add), and tells every request's decisions: the picture of why
// an algorithm decided otherwise than the log for that key.
type KeyReplay struct {
	rule   algorithms.Rule // the primary rule
	ref    *algorithms.Log
	guards []*algorithms.Log   // the logs of the other layers
	block  *algorithms.Blocked // the reference's refusal cache, nil without one
	count  Count
	mode   Mode
	cands  []keyCandidate
	last   int64
}

type keyCandidate struct {
	spec      string
	lim       algorithms.Limiter
	est       algorithms.Estimator
	recordAll bool
}

// KeyDecision is one request of the key and what each decided.
type KeyDecision struct {
	T, Cost int64
	// Log is the reference's decision; Exact the cost in (t-W, t] it held
	// before the request (of the primary rule).
	Log   bool
	Exact int64
	// Admit is each algorithm's decision, in the order they were named;
	// Estimate its estimate of the cost in (t-W, t] before the request
	// (the window algorithms), NaN for one that has none.
	Admit    []bool
	Estimate []float64
}

// NewKeyReplay returns a replay of one key under the rules (one, or the
// layers of a layered rule), of the candidate specs against the reference
// (Config.Reference: "log", or "log:block=D"; "" is "log"), under the
// count policy and mode. Under
// count all the window algorithms record every request whatever the mode,
// as the engine's runs do.
func NewKeyReplay(rules []algorithms.Rule, reference string, specs []string, count Count, mode Mode) (*KeyReplay, error) {
	if len(rules) == 0 {
		return nil, fmt.Errorf("no rule")
	}
	if count != CountAccepted && count != CountAll {
		return nil, fmt.Errorf("unknown count policy %q (want accepted or all)", count)
	}
	if mode != Independent && mode != Shadow {
		return nil, fmt.Errorf("unknown mode %q (want independent or shadow)", mode)
	}
	r := algorithms.PrimaryRule(rules)
	if reference == "" {
		reference = "log"
	}
	log, block, err := ReferenceOf(reference, r)
	if err != nil {
		return nil, err
	}
	k := &KeyReplay{rule: r, ref: log, block: block, count: count, mode: mode, last: -1}
	stateOf(log, block).Grow(1)
	for _, l := range rules {
		if l != r {
			g := algorithms.NewLog(l)
			g.Grow(1)
			k.guards = append(k.guards, g)
		}
	}
	for _, spec := range specs {
		lim, err := algorithms.New(spec, r)
		if len(rules) > 1 {
			lim, err = algorithms.NewLayered(spec, rules)
		}
		if err != nil {
			return nil, err
		}
		if algorithms.CouplesKeys(lim) {
			return nil, fmt.Errorf("%s couples keys (a key's decision depends on the others' requests): one key's requests alone cannot replay it; leave it out", lim.Name())
		}
		lim.Grow(1)
		c := keyCandidate{spec: lim.Name(), lim: lim, recordAll: recordsAll(lim, count)}
		if est, ok := lim.(algorithms.Estimator); ok {
			c.est = est
		}
		k.cands = append(k.cands, c)
	}
	return k, nil
}

// Algorithms returns the candidates' canonical names, in order.
func (k *KeyReplay) Algorithms() []string {
	out := make([]string, len(k.cands))
	for i, c := range k.cands {
		out[i] = c.spec
	}
	return out
}

// Add replays the key's next request. Its time may not go back before the
// key's previous one (the error says so, as the engine's does).
func (k *KeyReplay) Add(t, cost int64) (KeyDecision, error) {
	if err := checkRequest(t, cost); err != nil {
		return KeyDecision{}, err
	}
	if t < k.last {
		return KeyDecision{}, &OrderError{T: t, Prev: k.last}
	}
	k.last = t
	d := KeyDecision{T: t, Cost: cost, Admit: make([]bool, len(k.cands)), Estimate: make([]float64, len(k.cands))}
	ref, exact := decideReference(k.ref, k.guards, k.block, k.count == CountAll, 0, t, cost)
	d.Log, d.Exact = ref, exact
	for i, c := range k.cands {
		admit := c.lim.Decide(0, t, cost)
		d.Estimate[i] = math.NaN()
		if c.est != nil {
			e := c.est.Estimate(0, t)
			d.Estimate[i] = float64(e.Whole) + float64(e.Frac)/float64(e.Den)
		}
		if records(admit, ref, c.recordAll, k.mode) {
			c.lim.Record(0, t, cost)
		}
		d.Admit[i] = admit
	}
	return d, nil
}
