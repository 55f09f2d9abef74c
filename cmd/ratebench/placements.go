package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"runtime"

	"ratebench/compare"
	"ratebench/compare/spread"
	"ratebench/internal/escape"
	"ratebench/summary"
	"ratebench/traces"
)

// placementFlags are compare's -placements and -placement-seed: where the
// trace's clock is too coarse for a rule (summary.ClockTooCoarse), replay
// it again K times with every request placed at random inside its
// timestamp's unit, and report the figures over the placements.
type placementFlags struct {
	count int
	seed  uint64
}

func (pf *placementFlags) register(fs *flag.FlagSet) {
	fs.IntVar(&pf.count, "placements", summary.DefaultPlacements, "where the trace's clock is coarser than a rule's gap W/L or a hundredth of its window, replay it this `many` times more, "+
		"each request placed uniformly at random inside its timestamp's unit (each key's requests in their order), and report every decision figure as the median and range over them, "+
		"the verdict's choice holding in every placement; 0 replays the recorded clock only (as if every request of a second arrived at once); the trace file is read again for each")
	fs.Uint64Var(&pf.seed, "placement-seed", summary.DefaultSeed, "the `seed` of the first placement (the k-th uses seed+k-1): the same seed gives the same placements")
}

// placing is what a replay needs to place the requests once the recorded
// clock's replay has measured the trace's unit: a fresh engine and a fresh
// reading of the trace for each placement.
type placing struct {
	count     int
	seed      uint64
	counts    func(key []byte) bool // the keys of the shard, nil for all
	newEngine func() (*compare.Engine, error)
	reopen    func() (traces.Reader, error)
	// cannot says why the trace cannot be read again ("" when it can:
	// a regular file, or a generated trace).
	cannot string
}

// check refuses flags that cannot be met: a negative count, a seed with no
// placements, placements beside -spread.
func (pf *placementFlags) check(set map[string]bool, spreadOn bool) error {
	switch {
	case pf.count < 0:
		return usageError{fmt.Sprintf("-placements %d: want 0 (the recorded clock only) or a positive count", pf.count)}
	case pf.count > 100:
		return usageError{fmt.Sprintf("-placements %d: at most 100 (each is a whole replay of the trace)", pf.count)}
	case set["placement-seed"] && pf.count == 0:
		return usageError{"-placement-seed is for placements: -placements 0 makes none"}
	case spreadOn && set["placements"] && pf.count > 0:
		return usageError{"-spread replays one placement of seed -spread-seed; -placements replays several: give one of them"}
	}
	return nil
}

// place replays the trace count times more, placed inside its unit, when
// its clock is too coarse for one of the rules, and returns the summary
// over the placements (sum itself when there is nothing to place). The
// progress of each replay is said on stderr.
func (p *placing) place(ctx context.Context, stderr io.Writer, sum *summary.Summary) (*summary.Summary, error) {
	if p == nil || p.count == 0 || sum.Trace.Spread != nil || !summary.ClockTooCoarse(sum.Trace, sum.Config.Rules) {
		return sum, nil
	}
	unit := sum.Trace.ResolutionNS
	if p.cannot != "" {
		sum.Notes = append(sum.Notes, fmt.Sprintf("The clock is too coarse for the rule, but the requests cannot be placed inside their unit (%s): "+
			"the figures are the recorded clock's, as if every request of a unit arrived at once.", p.cannot))
		return sum, nil
	}
	placed := make([]*summary.Summary, 0, p.count)
	for k := range p.count {
		seed := p.seed + uint64(k)
		fmt.Fprintf(stderr, "placing the requests inside their %s: replay %d of %d (seed %d)\n", sum.Trace.Resolution(), k+1, p.count, seed)
		runtime.GC() // the last replay's engine is garbage: its keys' memory goes back first
		eng, err := p.newEngine()
		if err != nil {
			return nil, err
		}
		r, err := p.reopen()
		if err != nil {
			return nil, err
		}
		sr := spread.New(r, spread.Options{Unit: unit, Seed: seed, Counts: p.counts})
		err = eng.Replay(ctx, sr)
		r.Close()
		if err != nil {
			return nil, fmt.Errorf("placement %d of %d: %w", k+1, p.count, err)
		}
		s := eng.Summary(sum.Trace)
		if s.Trace.Requests != sum.Trace.Requests {
			return nil, fmt.Errorf("placement %d replayed %d requests, the recorded clock %d: %s changed while it was read", k+1, s.Trace.Requests, sum.Trace.Requests, escape.Visible(sum.Trace.Path))
		}
		placed = append(placed, s)
	}
	return summary.Place(sum, placed, p.seed, unit)
}
