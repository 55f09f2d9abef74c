package compare

import (
	"fmt"

	"ratebench/algorithms"
	"ratebench/summary"
	"ratebench/traces"
)

// KeyedReader is a trace whose keys are already numbered 0..Keys()-1, as a
// generator's are: the pair replay needs no key table.
type KeyedReader interface {
	Scan() bool
	Request() traces.Request
	KeyIndex() int32
	Keys() int
	Err() error
}

// Pair is a mechanism put to the test of the pair replay: the exact log
// and a candidate, both behind the same refusal cache (Block: "" for none,
// "window" for till the window's end, or a duration), under one counting
// policy.
type Pair struct {
	Rule      algorithms.Rule
	Candidate string // the candidate's spec, "counter" by default
	Block     string
	Count     Count
}

// ReplayPair replays r through the log and p.Candidate, each behind the
// refusal cache p.Block, and counts where their decisions differ. Under
// count all both record every request, so the candidate's estimate is
// measured against the log's exact count of the same history; under count
// accepted each records what it admitted (a product that counts every
// request, as Envoy's service does, records every request whatever the
// policy, as in the engine's runs).
func ReplayPair(r KeyedReader, p Pair) (summary.PairResult, error) {
	var res summary.PairResult
	cand := p.Candidate
	if cand == "" {
		cand = "counter"
	}
	if p.Count == "" {
		p.Count = CountAll
	}
	if p.Count != CountAll && p.Count != CountAccepted {
		return res, fmt.Errorf("unknown count policy %q (want all or accepted)", p.Count)
	}
	inner, err := algorithms.New(cand, p.Rule)
	if err != nil {
		return res, err
	}
	est, _ := inner.(algorithms.Estimator)
	refSpec, lim := "log", algorithms.Limiter(inner)
	if p.Block != "" {
		if refSpec = "log:block"; p.Block != "window" {
			refSpec += "=" + p.Block
		}
		if lim, err = algorithms.NewBlocked(inner, p.Rule, p.Block); err != nil {
			return res, err
		}
	}
	log, block, err := ReferenceOf(refSpec, p.Rule) // the engine's reference, decided by its step
	if err != nil {
		return res, err
	}
	all := p.Count == CountAll
	// The candidate records what the engine's runs record (recordsAll):
	// every request under count all, or always for a product that counts
	// every request whatever it decides (CountsEvery).
	candAll := recordsAll(lim, p.Count)
	if !all || !candAll {
		est = nil // the histories differ
	}
	admitted := algorithms.NewLog(p.Rule) // the candidate's admissions, for its burst
	n := r.Keys()
	if block != nil {
		block.Grow(n) // and the log behind it
	} else {
		log.Grow(n)
	}
	lim.Grow(n)
	admitted.Grow(n)
	over, under, burst := make([]bool, n), make([]bool, n), make([]bool, n)
	var gaps *summary.RateErrors
	if est != nil {
		gaps = summary.NewRateErrors(p.Rule.L)
	}
	var maxBurst int64
	perKey := make([]int64, n)
	first, last := int64(0), int64(0)
	for r.Scan() {
		q := r.Request()
		id := r.KeyIndex()
		if int(id) >= n || id < 0 {
			return res, fmt.Errorf("request %d: source %d outside the trace's %d sources", res.Requests+1, id, n)
		}
		if res.Requests == 0 {
			first = q.T
		}
		last = q.T
		res.Requests++
		perKey[id]++
		a, exact := decideReference(log, nil, block, all, id, q.T, q.Cost)
		b := lim.Decide(id, q.T, q.Cost)
		if gaps != nil {
			// A blocked source's request does not reach the candidate:
			// bring it to t (Decide only advances the state) to read it.
			inner.Decide(id, q.T, q.Cost)
			gaps.Add(est.Estimate(id, q.T), exact)
		}
		if b || candAll {
			lim.Record(id, q.T, q.Cost)
		}
		if !a {
			res.RefRefused++
		}
		switch {
		case b && !a:
			res.Over++
			over[id] = true
		case a && !b:
			res.Under++
			under[id] = true
		}
		if b {
			admitted.Decide(id, q.T, q.Cost)
			held := admitted.Sum(id) + q.Cost
			admitted.Record(id, q.T, q.Cost)
			maxBurst = max(maxBurst, held)
			if held > p.Rule.L {
				burst[id] = true
			}
		}
	}
	if err := r.Err(); err != nil {
		return res, err
	}
	for i := range n {
		if over[i] {
			res.KeysOver++
		}
		if under[i] {
			res.KeysUnder++
		}
		if over[i] && under[i] {
			res.KeysBoth++
		}
		if burst[i] {
			res.KeysBurstOverL++
		}
	}
	res.Keys = int64(n)
	if span := last - first; span > 0 && res.Requests > 0 {
		res.Span = float64(span) / 1e9
		var load, near float64
		for _, c := range perKey {
			mu := float64(c) * float64(p.Rule.W) / float64(span) / float64(p.Rule.L)
			load += float64(c) * mu
			if 2*mu >= 1 {
				near += float64(c)
			}
		}
		res.Load = load / float64(res.Requests)
		res.NearShare = near / float64(res.Requests)
	}
	res.Disagree = res.Over + res.Under
	if res.Requests > 0 {
		res.DisagreeRate = float64(res.Disagree) / float64(res.Requests)
	}
	res.BurstRatio = float64(maxBurst) / float64(p.Rule.L)
	res.MeanGap = -1
	if gaps != nil {
		if re := gaps.RateError(); re != nil {
			res.MeanGap = re.MeanRel
		}
	}
	return res, nil
}
