package summary

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"ratebench/algorithms"
)

// Placements: what a coarse clock cannot tell. A trace whose times are
// whole seconds (or minutes) does not say where inside its second each
// request arrived; replayed as read, every request of one stamp arrives at
// one instant, and an answer resting on that is an artefact of the clock.
// Where the unit is coarser than a rule's spacing W/L or than a hundredth
// of its window, the figures come instead from K placements: K replays of
// the trace, in each every request placed uniformly at random inside its
// stamp's unit, each key's requests in their order (package spread), the
// k-th drawn from seed Seed+k. The runs' figures are those of the first
// placement; each run's Placed holds the counts every placement gives,
// from which the median and the range of over, under and disagreement are
// read, and the verdict's choice must meet the policy in every placement
// (a bound Holds only when it holds in each). Recorded keeps the replay of
// the times as read: its figures and its verdict, for the contrast.

// DefaultPlacements is how many placements compare makes by default on a
// clock too coarse for a rule (-placements).
const DefaultPlacements = 5

// Placements says that the runs' figures rest on Count placements of the
// requests inside their timestamps' unit of UnitNS, drawn from Seed,
// Seed+1, …; Recorded is the replay of the recorded clock.
type Placements struct {
	Count    int      `json:"count"`
	Seed     uint64   `json:"seed"`
	UnitNS   int64    `json:"unit_ns"`
	Recorded Recorded `json:"recorded"`
}

// Recorded is the replay of the times as read, every request of a stamp
// at one instant: each run's decision counts and the verdict they give.
type Recorded struct {
	Runs    []RecordedRun `json:"runs"`
	Verdict *Verdict      `json:"verdict,omitempty"`
}

// RecordedRun is one run's decision counts on the recorded clock.
type RecordedRun struct {
	Rule       string `json:"rule"`
	Count      string `json:"count"`
	Mode       string `json:"mode"`
	Algorithm  string `json:"algorithm"`
	Rejected   int64  `json:"rejected"`
	Over       int64  `json:"over"`
	Under      int64  `json:"under"`
	LogRefused *int64 `json:"log_refused,omitempty"`
}

// Spread is the median and the range of one figure over the placements.
type Spread struct{ Median, Min, Max int64 }

// Varies tells whether the placements give the figure different values.
func (s Spread) Varies() bool { return s.Min != s.Max }

// SpreadOf returns the median (the lower of the two middle values for an
// even count), least and largest of vs; the zero Spread for none.
func SpreadOf(vs []int64) Spread {
	if len(vs) == 0 {
		return Spread{}
	}
	med, lo, hi := middle(vs)
	return Spread{Median: med, Min: lo, Max: hi}
}

// middle returns the median (the lower middle value for an even count),
// the least and the largest of vs (at least one), leaving vs as it is.
func middle[T cmp.Ordered](vs []T) (med, lo, hi T) {
	s := slices.Clone(vs)
	slices.Sort(s)
	return s[(len(s)-1)/2], s[0], s[len(s)-1]
}

// Views returns r as each placement decided, with its log terms: a run per
// placement holding that placement's counts (and r's other figures); r
// alone when it was not placed.
func (r *Run) Views() []*Run {
	p := r.Placed
	if p == nil || len(p.Over) == 0 {
		return []*Run{r}
	}
	out := make([]*Run, len(p.Over))
	for i := range out {
		v := *r
		v.Placed = nil
		v.Rejected, v.Admitted = p.Rejected[i], r.Requests-p.Rejected[i]
		v.Over, v.Under, v.Disagree = p.Over[i], p.Under[i], p.Over[i]+p.Under[i]
		if i < len(p.KeysOver) && i < len(p.KeysUnder) && i < len(p.KeysDisagree) {
			v.KeysDisagree, v.KeysOver, v.KeysUnder = p.KeysDisagree[i], p.KeysOver[i], p.KeysUnder[i]
		}
		if r.Burst != nil && i < len(p.BurstMax) {
			b := *r.Burst
			b.Max = p.BurstMax[i]
			if rules, err := algorithms.ParseRules(r.Rule); err == nil {
				b.Ratio = float64(b.Max) / float64(algorithms.PrimaryRule(rules).L)
			}
			v.Burst = &b
		}
		if r.Requests > 0 {
			v.DisagreeRate, v.OverRate, v.UnderRate = float64(v.Disagree)/float64(r.Requests), float64(v.Over)/float64(r.Requests), float64(v.Under)/float64(r.Requests)
		}
		if i < len(p.LogRefused) {
			v.SetLogTerms(p.LogRefused[i], r.Requests-p.LogRefused[i])
		}
		out[i] = &v
	}
	return out
}

// Place combines the replay of the recorded clock (recorded) and of the
// K placements (placed, in seed order, from seed) into one summary: the
// first placement's runs over the recorded trace's description, each run with the counts of every placement, the
// recorded replay kept beside them, and the verdict drawn again over the
// placements. The summaries must be of the same grid of runs.
func Place(recorded *Summary, placed []*Summary, seed uint64, unitNS int64) (*Summary, error) {
	if len(placed) == 0 {
		return nil, fmt.Errorf("no placement to combine")
	}
	out := *placed[0]
	out.Runs = slices.Clone(placed[0].Runs)
	index := make([]map[experiment]*Run, len(placed))
	for i, s := range placed {
		index[i] = map[experiment]*Run{}
		for j := range s.Runs {
			index[i][experimentOf(&s.Runs[j])] = &s.Runs[j]
		}
	}
	for j := range out.Runs {
		r := &out.Runs[j]
		p := &Placed{}
		for i := range placed {
			o := index[i][experimentOf(r)]
			if o == nil || len(index[i]) != len(out.Runs) {
				return nil, fmt.Errorf("placement %d has not the runs of the first", i+1)
			}
			if o.Requests != r.Requests {
				return nil, fmt.Errorf("placement %d replayed %d requests in %s %s, the first %d", i+1, o.Requests, r.Algorithm, r.Rule, r.Requests)
			}
			p.Rejected, p.Over, p.Under = append(p.Rejected, o.Rejected), append(p.Over, o.Over), append(p.Under, o.Under)
			p.KeysDisagree, p.KeysOver, p.KeysUnder = append(p.KeysDisagree, o.KeysDisagree), append(p.KeysOver, o.KeysOver), append(p.KeysUnder, o.KeysUnder)
			if (o.Burst == nil) != (r.Burst == nil) {
				return nil, fmt.Errorf("placement %d measured %s's burst otherwise than the first", i+1, r.Algorithm)
			}
			if o.Burst != nil {
				p.BurstMax = append(p.BurstMax, o.Burst.Max)
			}
		}
		r.Placed = p
	}
	var rec Recorded
	for i := range recorded.Runs {
		r := &recorded.Runs[i]
		if index[0][experimentOf(r)] == nil || len(recorded.Runs) != len(out.Runs) {
			return nil, fmt.Errorf("the recorded clock's replay has not the runs of the placements")
		}
		rec.Runs = append(rec.Runs, RecordedRun{Rule: r.Rule, Count: r.Count, Mode: r.Mode, Algorithm: r.Algorithm,
			Rejected: r.Rejected, Over: r.Over, Under: r.Under})
	}
	out.Trace = recorded.Trace // the trace as read: its times, resolution and ties
	out.Trace.Placements = &Placements{Count: len(placed), Seed: seed, UnitNS: unitNS, Recorded: rec}
	out.Conclude()
	return &out, nil
}

// RecordedOf returns the recorded clock's counts of run r, nil if there
// were no placements or the run is not among them.
func (s *Summary) RecordedOf(r *Run) *RecordedRun {
	pl := s.Trace.Placements
	if pl == nil {
		return nil
	}
	for i := range pl.Recorded.Runs {
		if o := &pl.Recorded.Runs[i]; (experiment{o.Rule, o.Count, o.Mode, o.Algorithm}) == experimentOf(r) {
			return o
		}
	}
	return nil
}

// Unit returns the placements' unit as a duration.
func (p *Placements) Unit() time.Duration { return time.Duration(p.UnitNS) }

// mergePlacements combines the placements of disjoint parts of the keys:
// the same count, seed and unit in each, the recorded clock's counts
// added run by run. The recorded verdict is drawn again once the runs are
// merged (RecordedVerdict).
func mergePlacements(parts []*Summary) (*Placements, error) {
	first := parts[0].Trace.Placements
	if first == nil {
		for i, p := range parts {
			if p.Trace.Placements != nil {
				return nil, fmt.Errorf("merge: part %d placed its requests, part 0 did not", i)
			}
		}
		return nil, nil
	}
	out := &Placements{Count: first.Count, Seed: first.Seed, UnitNS: first.UnitNS}
	out.Recorded.Runs = slices.Clone(first.Recorded.Runs)
	for i := range out.Recorded.Runs {
		out.Recorded.Runs[i].LogRefused = nil
	}
	var add sums
	for i, p := range parts {
		pl := p.Trace.Placements
		if pl == nil || pl.Count != first.Count || pl.Seed != first.Seed || pl.UnitNS != first.UnitNS {
			return nil, fmt.Errorf("merge: part %d placed its requests otherwise than part 0: not the same replay", i)
		}
		if len(pl.Recorded.Runs) != len(out.Recorded.Runs) {
			return nil, fmt.Errorf("merge: part %d has %d runs on the recorded clock, part 0 %d", i, len(pl.Recorded.Runs), len(out.Recorded.Runs))
		}
		if i == 0 {
			continue
		}
		for j := range pl.Recorded.Runs {
			r, o := &pl.Recorded.Runs[j], &out.Recorded.Runs[j]
			if r.Rule != o.Rule || r.Count != o.Count || r.Mode != o.Mode || r.Algorithm != o.Algorithm {
				return nil, fmt.Errorf("merge: recorded run %d of part %d is %s %s, of part 0 %s %s", j, i, r.Algorithm, r.Rule, o.Algorithm, o.Rule)
			}
			add.add("placements.recorded.rejected", &o.Rejected, r.Rejected)
			add.add("placements.recorded.over", &o.Over, r.Over)
			add.add("placements.recorded.under", &o.Under, r.Under)
		}
	}
	if add.err != nil {
		return nil, fmt.Errorf("merge: %w", add.err)
	}
	return out, nil
}

// recordedRuns returns the runs of s with the recorded clock's counts in
// place of the placements' (their memory and other figures the first
// placement's), their log terms filled: what the recorded verdict is
// drawn from.
func (s *Summary) recordedRuns() []Run {
	out := make([]Run, len(s.Runs))
	for i := range s.Runs {
		r := s.Runs[i]
		r.Placed = nil
		if rec := s.RecordedOf(&s.Runs[i]); rec != nil {
			r.Rejected, r.Admitted, r.Over, r.Under = rec.Rejected, r.Requests-rec.Rejected, rec.Over, rec.Under
			r.Disagree = rec.Over + rec.Under
			if r.Requests > 0 {
				r.DisagreeRate, r.OverRate, r.UnderRate = float64(r.Disagree)/float64(r.Requests), float64(r.Over)/float64(r.Requests), float64(r.Under)/float64(r.Requests)
			}
		}
		out[i] = r
	}
	FillLogTerms(out)
	return out
}

// fillRecorded sets the recorded clock's log refusals run by run and its
// verdict, from its counts and s's runs.
func (s *Summary) fillRecorded() {
	pl := s.Trace.Placements
	if pl == nil {
		return
	}
	runs := s.recordedRuns()
	for i := range runs {
		if rec := s.RecordedOf(&s.Runs[i]); rec != nil && runs[i].LogRefused != nil {
			v := *runs[i].LogRefused
			rec.LogRefused = &v
		}
	}
	pl.Recorded.Verdict = s.verdictOfRuns(runs, s.Config.Budget)
}

// Range is a figure over the placements: its median (the lower middle
// value for an even count) and its least and largest values; OK is false
// when no placement holds it (a share of the log's refusals where the log
// refuses nothing).
type Range struct {
	Median, Min, Max float64
	OK               bool
}

// Varies tells whether the placements give the figure different values.
func (g Range) Varies() bool { return g.OK && g.Min != g.Max }

// RangeOf returns figure fig of r over its placements (Views); for a run
// that was not placed, its own value.
func (r *Run) RangeOf(fig func(v *Run) (float64, bool)) Range {
	var vs []float64
	for _, v := range r.Views() {
		if x, ok := fig(v); ok {
			vs = append(vs, x)
		}
	}
	if len(vs) == 0 {
		return Range{}
	}
	med, lo, hi := middle(vs)
	return Range{Median: med, Min: lo, Max: hi, OK: true}
}

// Text writes the figure by format: its median and, where the placements
// differ, their range in brackets ("0.750% (0.500%–0.750%)"); none where
// no placement holds it.
func (g Range) Text(format func(float64) string, none string) string {
	switch {
	case !g.OK:
		return none
	case g.Varies():
		return format(g.Median) + " (" + format(g.Min) + "–" + format(g.Max) + ")"
	}
	return format(g.Median)
}

// BurstRatio is a run's worst burst ÷ L, for RangeOf; none where the run
// measures no burst.
func BurstRatio(v *Run) (float64, bool) {
	if v.Burst == nil {
		return 0, false
	}
	return v.Burst.Ratio, true
}

// RecordedVerdict is the verdict the recorded clock's counts give under
// budget (the default tolerances when it bounds nothing); nil without
// placements.
func (s *Summary) RecordedVerdict(budget *Budget) *Verdict {
	if s.Trace.Placements == nil || len(s.Runs) == 0 {
		return nil
	}
	return s.verdictOfRuns(s.recordedRuns(), budget)
}

// verdictOfRuns is the verdict runs give in s's place (its trace, config
// and bindings) under budget.
func (s *Summary) verdictOfRuns(runs []Run, budget *Budget) *Verdict {
	if len(runs) == 0 {
		return nil
	}
	return VerdictOf(&Summary{Trace: s.Trace, Config: s.Config, Runs: runs, Bindings: s.Bindings}, budget)
}
