package compare

import (
	"context"
	"fmt"
	"io"
	"runtime"

	"ratebench/compare/spread"
	"ratebench/internal/escape"
	"ratebench/summary"
	"ratebench/traces"
)

// Placements replays a trace again, once the recorded clock's replay has
// measured its unit, when that clock is too coarse for one of the rules
// (summary.ClockTooCoarse): Count times, each with every request placed
// uniformly at random inside its timestamp's unit (each key's requests
// in their order; spread.New), the k-th with seed Seed+k-1, each on a
// fresh engine over a fresh reading of the trace. Place then gives the
// figures over the placements (summary.Place).
type Placements struct {
	Count int
	Seed  uint64
	// Counts selects the keys of the shard (nil: every key).
	Counts func(key []byte) bool
	// NewEngine makes the engine of one placement; Reopen reads the trace
	// again from its start.
	NewEngine func() (*Engine, error)
	Reopen    func() (traces.Reader, error)
	// Cannot says why the trace cannot be read again ("" when it can: a
	// regular file, or a generated trace); the summary then says the
	// figures are the recorded clock's.
	Cannot string
	// Progress, if not nil, is told as each placement starts.
	Progress io.Writer
}

// Place replays the placements of sum's trace and returns the summary
// over them: sum itself when there is nothing to place (no placements,
// an already spread trace, a clock fine enough for every rule).
func (p *Placements) Place(ctx context.Context, sum *summary.Summary) (*summary.Summary, error) {
	if p == nil || p.Count == 0 || sum.Trace.Spread != nil || !summary.ClockTooCoarse(sum.Trace, sum.Config.Rules) {
		return sum, nil
	}
	unit := sum.Trace.ResolutionNS
	if p.Cannot != "" {
		sum.Notes = append(sum.Notes, fmt.Sprintf("The clock is too coarse for the rule, but the requests cannot be placed inside their unit (%s): "+
			"the figures are the recorded clock's, as if every request of a unit arrived at once.", p.Cannot))
		return sum, nil
	}
	placed := make([]*summary.Summary, 0, p.Count)
	for k := range p.Count {
		seed := p.Seed + uint64(k)
		if p.Progress != nil {
			fmt.Fprintf(p.Progress, "placing the requests inside their %s: replay %d of %d (seed %d)\n", sum.Trace.Resolution(), k+1, p.Count, seed)
		}
		runtime.GC() // the last replay's engine is garbage: its keys' memory goes back first
		eng, err := p.NewEngine()
		if err != nil {
			return nil, err
		}
		r, err := p.Reopen()
		if err != nil {
			return nil, err
		}
		sr := spread.New(r, spread.Options{Unit: unit, Seed: seed, Counts: p.Counts})
		err = eng.Replay(ctx, sr)
		r.Close()
		if err != nil {
			return nil, fmt.Errorf("placement %d of %d: %w", k+1, p.Count, err)
		}
		s := eng.Summary(sum.Trace)
		if s.Trace.Requests != sum.Trace.Requests {
			return nil, fmt.Errorf("placement %d replayed %d requests, the recorded clock %d: %s changed while it was read", k+1, s.Trace.Requests, sum.Trace.Requests, escape.Visible(sum.Trace.Path))
		}
		placed = append(placed, s)
	}
	return summary.Place(sum, placed, p.Seed, unit)
}
