package summary

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"ratebench/algorithms"
)

// Merge combines the summaries of the shards of one replay (compare -shard
// i/n), every shard once, into the summary one replay of all the keys
// gives: every count, histogram, timeline and top-key list is exactly what
// a single pass computes, because each is a sum, a maximum or a top-N over
// keys, and the means are kept as exact sums (RateErrorSums,
// Memory.SumOfPeaks). A summary of the whole replay merges only alone (to
// itself): two of them, or one with a shard, cover some keys twice.
//
// Skipped records are the trace's, not the keys': every shard reads the
// whole trace and skips the same records, so they must agree and are taken
// once, as the records read (trace.records_read) are. The shards of a
// dataset whose count divides its partitions read disjoint parts of it
// instead (trace.dataset): their records read and skipped add up, and the
// examples of skipped records are each shard's first, shard by shard.
func Merge(parts []*Summary) (*Summary, error) {
	if len(parts) == 0 {
		return nil, fmt.Errorf("merge: no summary")
	}
	for i, p := range parts {
		if err := p.Validate(); err != nil {
			return nil, fmt.Errorf("merge: part %d: %w", i, err)
		}
	}
	if err := checkShards(parts); err != nil {
		return nil, err
	}
	s, err := MergeDisjoint(parts)
	if err != nil {
		return nil, err
	}
	s.DropWindows()
	return s, nil
}

// MergeDisjoint merges the summaries of disjoint sets of keys of the same
// trace under the same configuration: the shards Merge has checked, or the
// workers of one replay (which split the keys by hash), which no shard mark
// tells apart: the caller vouches that no key is in two parts. A sum that
// would leave int64 is an error naming its field.
func MergeDisjoint(parts []*Summary) (*Summary, error) {
	first := parts[0]
	out := &Summary{Schema: first.Schema, Config: first.Config, Notes: first.Notes}
	out.Trace = TraceInfo{Path: first.Trace.Path, Format: first.Trace.Format, Fingerprint: first.Trace.Fingerprint,
		TSUnit: first.Trace.TSUnit, TSUnitFrom: first.Trace.TSUnitFrom, Input: first.Trace.Input,
		Skipped: first.Trace.Skipped, SkippedExamples: first.Trace.SkippedExamples, Spread: first.Trace.Spread,
		RecordsRead: first.Trace.RecordsRead}
	dataset, split, err := mergeDataset(parts)
	if err != nil {
		return nil, err
	}
	out.Trace.Dataset = dataset
	if out.Trace.Placements, err = mergePlacements(parts); err != nil {
		return nil, err
	}
	if split {
		out.Trace.RecordsRead, out.Trace.Skipped, out.Trace.SkippedExamples = 0, 0, nil
	}
	cfg, _ := json.Marshal(first.Config)
	skips, _ := json.Marshal(first.Trace.SkippedExamples)
	seen := false
	var add sums
	for i, p := range parts {
		if p.deviationsNotMeasured() != first.deviationsNotMeasured() { // before the schema, which it sets
			return nil, fmt.Errorf("merge: %w", weighedOtherwise(i, first.deviationsNotMeasured()))
		}
		if p.Schema != first.Schema {
			return nil, fmt.Errorf("merge: part %d has schema %q, part 0 %q", i, p.Schema, first.Schema)
		}
		if c, _ := json.Marshal(p.Config); string(c) != string(cfg) {
			return nil, fmt.Errorf("merge: part %d was run with another configuration", i)
		}
		if p.Trace.Path != first.Trace.Path || p.Trace.Format != first.Trace.Format {
			return nil, fmt.Errorf("merge: part %d replayed %q, part 0 %q", i, p.Trace.Path, first.Trace.Path)
		}
		if p.Trace.Fingerprint != first.Trace.Fingerprint {
			return nil, fmt.Errorf("merge: part %d replayed other content than part 0 under the name %q: not the same trace", i, first.Trace.Path)
		}
		if p.Trace.TSUnit != first.Trace.TSUnit {
			return nil, fmt.Errorf("merge: part %d read the timestamps in %q, part 0 in %q: not the same trace", i, p.Trace.TSUnit, first.Trace.TSUnit)
		}
		if !slices.Equal(p.Trace.Input, first.Trace.Input) {
			return nil, fmt.Errorf("merge: part %d read the trace with the flags %q, part 0 with %q: not the same replay", i,
				strings.Join(p.Trace.InputArgs("compare"), " "), strings.Join(first.Trace.InputArgs("compare"), " "))
		}
		if sk, _ := json.Marshal(p.Trace.SkippedExamples); !split && (p.Trace.Skipped != first.Trace.Skipped || string(sk) != string(skips)) {
			return nil, fmt.Errorf("merge: part %d skipped other records than part 0: not the same trace", i)
		}
		if !split && p.Trace.RecordsRead != first.Trace.RecordsRead {
			return nil, fmt.Errorf("merge: part %d read %d records of the trace, part 0 %d: not the same trace", i, p.Trace.RecordsRead, first.Trace.RecordsRead)
		}
		if !sameSpread(p.Trace.Spread, first.Trace.Spread) {
			return nil, fmt.Errorf("merge: part %d spread the requests otherwise than part 0: not the same replay", i)
		}
		if len(p.Runs) != len(first.Runs) {
			return nil, fmt.Errorf("merge: part %d has %d runs, part 0 %d", i, len(p.Runs), len(first.Runs))
		}
		out.Partial = out.Partial || p.Partial
		t := p.Trace
		add.add("trace.requests", &out.Trace.Requests, t.Requests)
		add.add("trace.cost", &out.Trace.Cost, t.Cost)
		add.add("trace.keys", &out.Trace.Keys, t.Keys)
		mergeResolution(&out.Trace, t, &add)
		if split {
			add.add("trace.records_read", &out.Trace.RecordsRead, t.RecordsRead)
			add.add("trace.skipped", &out.Trace.Skipped, t.Skipped)
			out.Trace.SkippedExamples = append(out.Trace.SkippedExamples, t.SkippedExamples...)
		}
		if t.Requests > 0 {
			if !seen || t.StartNS < out.Trace.StartNS {
				out.Trace.StartNS = t.StartNS
			}
			out.Trace.EndNS = max(out.Trace.EndNS, t.EndNS)
			seen = true
		}
	}
	if add.err != nil {
		return nil, fmt.Errorf("merge: %w", add.err)
	}
	for _, l := range summaryResults {
		if err := l.merge(out, parts); err != nil {
			return nil, fmt.Errorf("merge: %w", err)
		}
	}
	for j := range first.Runs {
		runs := make([]*Run, len(parts))
		for i, p := range parts {
			runs[i] = &p.Runs[j]
			r, f := runs[i], runs[0]
			if r.Rule != f.Rule || r.Count != f.Count || r.Mode != f.Mode || r.Algorithm != f.Algorithm {
				return nil, fmt.Errorf("merge: run %d of part %d is %q, of part 0 %q", j, i, r.id(), f.id())
			}
		}
		r, err := mergeRuns(runs, first.Config.TopKeys)
		if err != nil {
			return nil, fmt.Errorf("merge: runs[%d] (%s): %w", j, runs[0].id(), err)
		}
		out.Runs = append(out.Runs, r)
	}
	FillLogTerms(out.Runs)
	out.fillRecorded()
	if first.Verdict != nil { // parts written with their verdict: the merge has one too
		out.Verdict = VerdictOf(out, out.Config.Budget)
	}
	out.Schema = SchemaOf(out)
	return out, nil
}

// DropWindows removes the memory per window from the runs of a summary of
// the whole replay, which has what it gives in the timeline.
func (s *Summary) DropWindows() {
	for i := range s.Runs {
		s.Runs[i].Memory.Windows = nil
	}
	s.Schema = SchemaOf(s)
}

func (r *Run) id() string {
	return fmt.Sprintf("%s %s count=%s mode=%s", r.Algorithm, r.Rule, r.Count, r.Mode)
}

// mergeRuns combines one run of every part: its counts, each of its
// figures (runFigures) and its top keys.
func mergeRuns(runs []*Run, topN int) (Run, error) {
	f := runs[0]
	rules, err := algorithms.ParseRules(f.Rule)
	if err != nil {
		return Run{}, err
	}
	out := Run{Rule: f.Rule, Count: f.Count, Mode: f.Mode, Algorithm: f.Algorithm}
	var add sums
	m := &merging{rule: algorithms.PrimaryRule(rules), first: f, sums: &add}
	for i, r := range runs {
		add.add("requests", &out.Requests, r.Requests)
		add.add("admitted", &out.Admitted, r.Admitted)
		add.add("rejected", &out.Rejected, r.Rejected)
		add.add("admitted_cost", &out.AdmittedCost, r.AdmittedCost)
		add.add("rejected_cost", &out.RejectedCost, r.RejectedCost)
		add.add("over", &out.Over, r.Over)
		add.add("under", &out.Under, r.Under)
		add.add("keys", &out.Keys, r.Keys)
		add.add("keys_disagree", &out.KeysDisagree, r.KeysDisagree)
		add.add("keys_over", &out.KeysOver, r.KeysOver)
		add.add("keys_under", &out.KeysUnder, r.KeysUnder)
		m.part = i
		for _, fig := range runFigures {
			if err := fig.merge(&out, r, m); err != nil {
				return Run{}, err
			}
		}
		out.TopKeys = append(out.TopKeys, r.TopKeys...)
	}
	if add.err != nil {
		return Run{}, add.err
	}
	out.Disagree = out.Over + out.Under
	if out.Requests > 0 {
		out.DisagreeRate = float64(out.Disagree) / float64(out.Requests)
		out.OverRate = float64(out.Over) / float64(out.Requests)
		out.UnderRate = float64(out.Under) / float64(out.Requests)
	}
	out.closeMemory()
	SortTopKeys(out.TopKeys)
	if len(out.TopKeys) > topN {
		out.TopKeys = out.TopKeys[:topN]
	}
	if out.TopKeys == nil {
		out.TopKeys = []KeyStat{}
	}
	return out, nil
}

// TrimZeros drops the trailing zeros of a state series: a zero there is an
// end nothing was sampled at, and how many of those a series carries
// depends on when its bins widened, so they are cut for one canonical form.
func TrimZeros(s []int64) []int64 {
	for len(s) > 0 && s[len(s)-1] == 0 {
		s = s[:len(s)-1]
	}
	return s
}

// checkShards accepts parts that are all shards of one count, each once
// and none missing, or none of which is a shard (the workers of a replay).
func checkShards(parts []*Summary) error {
	n := 0
	if s := parts[0].Shard; s != nil {
		n = s.Count
	}
	seen := make([]bool, n)
	for i, p := range parts {
		switch {
		case p.Shard != nil && n == 0:
			return fmt.Errorf("merge: part %d is shard %v and part 0 a whole replay, which holds that shard's keys already", i, p.Shard)
		case p.Shard == nil && n != 0:
			return fmt.Errorf("merge: part %d is a whole replay and part 0 shard %v, whose keys the whole holds already", i, parts[0].Shard)
		case p.Shard == nil && i > 0:
			return fmt.Errorf("merge: part %d and part 0 are both a whole replay, not a shard: together they count every key twice", i)
		case p.Shard == nil:
			continue
		case p.Shard.Count != n || p.Shard.Index < 0 || p.Shard.Index >= n:
			return fmt.Errorf("merge: part %d is shard %v, part 0 is one of %d", i, p.Shard, n)
		case seen[p.Shard.Index]:
			return fmt.Errorf("merge: shard %v given twice", p.Shard)
		}
		seen[p.Shard.Index] = true
	}
	for i, ok := range seen {
		if !ok {
			return fmt.Errorf("merge: shard %d/%d is missing", i, n)
		}
	}
	return nil
}

// mergeEach merges the results of the parts that of returns, index by
// index, with merge: the simulations (closed loop, deployments) every part
// ran over its own keys. An error names the result by its field and index.
func mergeEach[T any](parts []*Summary, of func(*Summary) []T, merge func([]T) (T, error), what, field string) ([]T, error) {
	n := len(of(parts[0]))
	if n == 0 {
		return nil, nil
	}
	out := make([]T, n)
	for i := range n {
		rs := make([]T, len(parts))
		for j, p := range parts {
			if len(of(p)) != n {
				return nil, fmt.Errorf("part %d has %d %s results, part 0 %d", j, len(of(p)), what, n)
			}
			rs[j] = of(p)[i]
		}
		r, err := merge(rs)
		if err != nil {
			return nil, fmt.Errorf("%s[%d]: %w", field, i, err)
		}
		out[i] = r
	}
	return out, nil
}
