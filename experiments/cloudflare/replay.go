package cloudflare

import (
	"context"
	"errors"
	"fmt"

	"ratebench/algorithms"
	"ratebench/compare"
	"ratebench/compare/resultsdir"
	"ratebench/generators"
	"ratebench/summary"
)

// replayPoint replays p's population through the engine (Engine.Replay,
// which stops when ctx is cancelled): the reference is the log behind p's
// timeout (log:block=D; the plain log without one), the candidate p's
// algorithm behind the same timeout, every request counted. The point is
// a projection of the candidate's run and the log's, with the
// population's weight against the rule (traffic), tallied as the engine
// reads the population.
func replayPoint(ctx context.Context, p Point, pop Population) (summary.SearchPoint, error) {
	gen, err := generators.New(pop.spec(p), generators.Params{})
	if err != nil {
		return summary.SearchPoint{}, err
	}
	ref, cand := p.specs()
	eng, err := compare.New(compare.Config{Reference: ref, Rules: []algorithms.Rule{p.Rule}, Algorithms: []string{cand},
		Counts: []compare.Count{compare.CountAll}, Modes: []compare.Mode{compare.Independent}, TopKeys: 1})
	if err != nil {
		return summary.SearchPoint{}, err
	}
	r := &tallied{Generator: gen, tr: newTraffic(gen.Keys())}
	if err := eng.Replay(ctx, r); err != nil {
		if errors.Is(err, compare.ErrInterrupted) {
			return summary.SearchPoint{}, context.Canceled
		}
		return summary.SearchPoint{}, err
	}
	s := eng.Summary(summary.TraceInfo{Path: resultsdir.GenPrefix + pop.spec(p), Format: "generated"})
	res := pairResult(&s.Runs[1], &s.Runs[0], int64(gen.Keys()))
	res.Span, res.Load, res.NearShare = r.tr.weight(p.Rule)
	return searchPoint(p, res), nil
}

// tallied is a population's reader that counts each request in its
// traffic as the engine reads it.
type tallied struct {
	*generators.Generator
	tr  *traffic
	err error // the tally's, which stops the reader
}

// Scan reads the next request and counts it.
func (r *tallied) Scan() bool {
	if r.err != nil || !r.Generator.Scan() {
		return false
	}
	t, _ := r.TimeCost()
	r.err = r.tr.add(r.KeyIndex(), t)
	return r.err == nil
}

// Err is the tally's error, else the population's.
func (r *tallied) Err() error {
	if r.err != nil {
		return r.err
	}
	return r.Generator.Err()
}

// specs returns the specs p replays: the reference, the log behind p's
// timeout (log:block=D; the plain log without one), and the candidate,
// p's algorithm (the counter if none) behind the same timeout.
func (p Point) specs() (ref, cand string) {
	ref, cand = "log", p.Alg
	if cand == "" {
		cand = "counter"
	}
	if p.Block != "" {
		suffix := ":block"
		if p.Block != "window" {
			suffix += "=" + p.Block
		}
		ref, cand = ref+suffix, cand+suffix
	}
	return ref, cand
}

// pairResult projects the candidate's run and the log's onto a point's
// figures, over a population of the given number of sources (sending or
// not).
func pairResult(run, log *summary.Run, sources int64) summary.PairResult {
	res := summary.PairResult{Requests: run.Requests, Keys: sources, RefRefused: log.Rejected,
		Over: run.Over, Under: run.Under, KeysOver: run.KeysOver, KeysUnder: run.KeysUnder,
		KeysBoth: run.KeysOver + run.KeysUnder - run.KeysDisagree, Disagree: run.Disagree, DisagreeRate: run.DisagreeRate, MeanGap: -1}
	if b := run.Burst; b != nil {
		res.BurstRatio, res.KeysBurstOverL = b.Ratio, b.KeysOverL
	}
	if re := run.RateError; re != nil {
		res.MeanGap = re.MeanRel
	}
	return res
}

// traffic counts a population's requests per source, and its span.
type traffic struct {
	perKey      []int64
	requests    int64
	first, last int64
}

func newTraffic(sources int) *traffic { return &traffic{perKey: make([]int64, sources)} }

// add counts a request of source id at t.
func (tr *traffic) add(id int32, t int64) error {
	if id < 0 || int(id) >= len(tr.perKey) {
		return fmt.Errorf("request %d: source %d outside the population's %d sources", tr.requests+1, id, len(tr.perKey))
	}
	if tr.requests == 0 {
		tr.first = t
	}
	tr.last = t
	tr.requests++
	tr.perKey[id]++
	return nil
}

// weight returns the population's span in seconds and its weight against
// rule: Load, each source's mean count per window (its requests × W / the
// span) divided by L, averaged over requests (a source weighs by its
// requests), and NearShare, the share of requests from sources whose mean
// count per window is at least half of L. All three are 0 over a span of 0.
func (tr *traffic) weight(rule algorithms.Rule) (span, load, near float64) {
	d := tr.last - tr.first
	if d <= 0 || tr.requests == 0 {
		return 0, 0, 0
	}
	for _, c := range tr.perKey {
		mu := float64(c) * float64(rule.W) / float64(d) / float64(rule.L)
		load += float64(c) * mu
		if 2*mu >= 1 {
			near += float64(c)
		}
	}
	return float64(d) / 1e9, load / float64(tr.requests), near / float64(tr.requests)
}
