package main

import (
	"flag"
	"fmt"

	"ratebench/summary"
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
