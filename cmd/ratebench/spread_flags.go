package main

import (
	"flag"
	"strconv"

	"ratebench/compare"
	"ratebench/compare/spread"
	"ratebench/summary"
	"ratebench/traces"
)

// spreadFlags are compare's -spread and -spread-seed: place each request
// uniformly at random inside its timestamp's unit (package spread).
type spreadFlags struct {
	on   bool
	seed uint64
}

func (sf *spreadFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&sf.on, "spread", false, "place each request uniformly at random inside its timestamp's unit [t, t+U), U the coarsest unit every time is a multiple of (1s for whole seconds), each key's requests kept in order, "+
		"to see how much of the disagreement a coarse clock makes; reads the trace file twice (once to find U), holds one timestamp's requests in memory (at most "+strconv.Itoa(spread.DefaultMaxUnit)+"), needs the trace in time order (or -reorder)")
	fs.Uint64Var(&sf.seed, "spread-seed", summary.DefaultSeed, "with -spread, the `number` its random draws start from: the same number gives the same times")
}

// spreading is what a replay under -spread needs: the options of its
// reader, then the reader, for the figures of the times as read.
type spreading struct {
	opt spread.Options
	r   *spread.Reader
}

// prepare checks the flags and measures the trace's unit by a first
// reading of it (tf opens it again); nil without -spread. set says which
// flags were given, and shard is the replay's (-shard), whose keys alone
// the figures of the times as read count, as the engine's do.
func (sf *spreadFlags) prepare(tf *traceFlags, gen bool, set map[string]bool, shard *summary.Shard) (*spreading, error) {
	if !sf.on {
		if set["spread-seed"] {
			return nil, usageError{"-spread-seed is for -spread: give both"}
		}
		return nil, nil
	}
	const why = "-spread reads the trace twice (first to find the unit of its times)"
	if gen {
		return nil, usageError{why + ": it needs a trace file, not -gen"}
	}
	if err := tf.rereadable(why); err != nil {
		return nil, err
	}
	r, _, err := tf.open()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	u, err := spread.Unit(r)
	if err != nil {
		return nil, err
	}
	return &spreading{opt: spread.Options{Unit: max(u, 1), Seed: sf.seed, Counts: shardKeys(shard)}}, nil
}

// wrap returns the reader the engine replays: r spread, or r itself
// without -spread.
func (s *spreading) wrap(r traces.Reader) traces.Reader {
	if s == nil {
		return r
	}
	s.r = spread.New(r, s.opt)
	return s.r
}

// record notes in info that the requests were spread, and the figures of
// the times as read.
func (s *spreading) record(info *summary.TraceInfo) {
	if s == nil {
		return
	}
	info.Spread = &summary.SpreadInfo{Seed: s.opt.Seed}
	info.ResolutionNS, info.SameTime = s.opt.Unit, s.r.SameTime()
}

// flagsSet returns the names of the flags given on fs's command line.
func flagsSet(fs *flag.FlagSet) map[string]bool {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	return set
}

// shardKeys returns whether a key falls in shard s; nil (every key) without
// one.
func shardKeys(s *summary.Shard) func(key []byte) bool {
	if s == nil {
		return nil
	}
	return func(key []byte) bool { return compare.Owns(s, key) }
}

// shardOf returns the shard of -shard, nil without one (config has
// checked it).
func (f *compareFlags) shardOf() *summary.Shard {
	if *f.shard == "" {
		return nil
	}
	sh, _ := parseShard(*f.shard)
	return sh
}
