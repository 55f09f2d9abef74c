package compare

import (
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"ratebench/algorithms"
	"ratebench/internal/request"
	"ratebench/summary"
	"ratebench/traces"
)

// Engine replays requests through every experiment of a Config in one pass.
// Feed it with Add in trace order (or Replay a reader), then call Summary.
// Not safe for concurrent use.
//
// The engine coordinates; its workers replay. With one worker it hands
// every request to it; with several (Config.Workers), each replays the keys
// that hash to it (KeyHash), and their summaries, of disjoint keys, merge
// exactly into the one a single pass gives. A worker is made when its first
// key comes (but the first, made at once), so that more workers than keys
// cost nothing.
type Engine struct {
	cfg     Config
	one     Config    // the configuration of each worker
	workers []*worker // nil where no key has come yet, but workers[0]
	notes   []string

	hashes keyRefs[uint64] // the hashes of the current key dictionary's entries (addRef)

	partial    bool         // the replay was interrupted
	offeredEnd int64        // the latest time of any request offered, other shards' keys included
	read       int64        // the requests offered, other shards' keys included (trace.records_read)
	progress   atomic.Int64 // requests read by Replay, for Progress
}

// New returns an engine for cfg (defaults filled in).
func New(cfg Config) (*Engine, error) {
	cfg, err := cfg.normalize()
	if err != nil {
		return nil, err
	}
	e := &Engine{cfg: cfg, one: cfg, workers: make([]*worker, cfg.Workers)}
	e.one.Workers, e.one.Shard = 1, nil
	if cfg.Workers == 1 {
		e.one.Shard = cfg.Shard
	}
	w, err := newWorker(e.one)
	if err != nil {
		return nil, err
	}
	e.workers[0], e.notes = w, w.notes
	return e, nil
}

// worker returns worker i, made now if it has had no key yet. Each worker
// of a parallel replay asks only for itself.
func (e *Engine) worker(i int) *worker {
	if e.workers[i] == nil {
		w, err := newWorker(e.one)
		if err != nil { // the first worker was made from the same configuration
			panic(err)
		}
		e.workers[i] = w
	}
	return e.workers[i]
}

// Add replays one request. key may be reused by the caller after Add
// returns. It fails if the key's time goes backwards (*OrderError), the
// time is negative or the cost is out of range.
func (e *Engine) Add(key []byte, t, cost int64) error {
	if err := checkRequest(t, cost); err != nil {
		return err
	}
	e.offeredEnd = max(e.offeredEnd, t)
	e.read++
	if len(e.workers) == 1 && e.cfg.Shard == nil {
		return e.workers[0].add1(key, t, cost)
	}
	h := traces.KeyHash(key)
	if !owns(e.cfg.Shard, h) {
		return nil
	}
	return e.worker(workerOf(h, len(e.workers))).addHashed(key, h, t, cost)
}

// AddIndexed is Add for a request whose key comes with a dense id of its
// own, in [0, n) for a small n (a generator's source index): it spares the
// key lookup. An id must always name the same key, and one engine must be
// fed through Add or AddIndexed, not both.
func (e *Engine) AddIndexed(id int32, key []byte, t, cost int64) error {
	if err := checkRequest(t, cost); err != nil {
		return err
	}
	if id < 0 {
		return fmt.Errorf("negative key index %d", id)
	}
	e.offeredEnd = max(e.offeredEnd, t)
	e.read++
	if e.cfg.Shard != nil && !owns(e.cfg.Shard, traces.KeyHash(key)) {
		return nil
	}
	n := int32(len(e.workers))
	return e.worker(int(id%n)).addIndexed(id/n, key, t, cost)
}

// checkRequest refuses a request the limiters cannot take: the one check
// of the simulations (package request).
func checkRequest(t, cost int64) error { return request.Check(t, cost) }

// Summary closes the accumulators and returns the summary, runs ordered by
// rule, count, mode, then algorithm as configured (the log first). It ends
// the replay: nothing may be added after it.
func (e *Engine) Summary(trace summary.TraceInfo) *summary.Summary {
	parts := make([]*summary.Summary, len(e.workers))
	var wg sync.WaitGroup
	for i, w := range e.workers { // each closes its own keys, on a core of its own
		if w != nil { // a worker that had no key adds nothing
			wg.Go(func() { parts[i] = w.summary(trace, e.partial, e.offeredEnd) })
		}
	}
	wg.Wait()
	parts = slices.DeleteFunc(parts, func(p *summary.Summary) bool { return p == nil })
	s := parts[0]
	if len(parts) > 1 {
		var err error
		if s, err = summary.MergeDisjoint(parts); err != nil { // the workers of one engine always merge
			panic(err)
		}
	}
	resolutionAsRead(&s.Trace, trace)
	s.Partial = s.Partial || e.partial
	s.Shard = e.cfg.Shard // also when only one of several workers had keys
	s.Trace.RecordsRead = e.read
	s.Schema = summary.SchemaOf(s)
	if s.Shard == nil { // only a shard's summary keeps the memory per window, for merge
		s.DropWindows()
	}
	return s
}

// Algorithms returns the algorithms the summary's runs are of, as the runs
// name them, in order without repeats: the log, then the candidates (not
// the companions a product's analysis replays, which have no run). It is
// known before any request, so that a caller can refuse a name of no run
// before the replay.
func (e *Engine) Algorithms() []string {
	out := []string{e.workers[0].groups[0].ref.Name()}
	for _, g := range e.workers[0].groups {
		for _, c := range g.cands {
			if name := c.acc.lim.Name(); !c.companion && !slices.Contains(out, name) {
				out = append(out, name)
			}
		}
	}
	return out
}

// Skipped returns the kinds a set of Config.Algorithms brought in that a
// rule cannot express, left out of the replay (the summary's notes say
// so too), for a caller to tell before the replay.
func (e *Engine) Skipped() []algorithms.Skipped { return e.cfg.skipped }

// String names the experiment grid, for logs.
func (e *Engine) String() string {
	if len(e.workers) > 1 {
		return fmt.Sprintf("%v (%d workers)", e.workers[0], len(e.workers))
	}
	return e.workers[0].String()
}

// KeyStats tells how the replay held its keys: its workers, the most keys
// holding state at once (over all workers: idle keys are released) and
// the keys released.
func (e *Engine) KeyStats() (workers int, peakLive, released int64) {
	for _, w := range e.workers {
		if w == nil {
			continue
		}
		peakLive += int64(w.rel.peakLive)
		released += w.rel.released
	}
	return len(e.workers), peakLive, released
}
