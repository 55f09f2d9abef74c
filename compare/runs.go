package compare

import (
	"context"
	"sync"
	"sync/atomic"

	"ratebench/traces"
)

// A parallel replay of a reader that hands its requests over in runs
// split by key (traces.Partitioner): the reader's own goroutines write
// each request into the part of the worker its key hashes to (partOf), and
// the replay's goroutine only hands each run to every worker, in trace
// order, each worker replaying its part of it. No goroutine copies every
// request, and each worker gets its keys' requests in trace order, as
// replayParallel's batches give them.

// runQueue is how many runs a worker may have waiting.
const runQueue = 2

// partOf is the traces.PartOf of a parallel replay: the worker a key
// hashes to, or -1 when the engine's shard does not own it.
func (e *Engine) partOf(key []byte) (int, uint64) {
	h := traces.KeyHash(key)
	if !owns(e.cfg.Shard, h) {
		return -1, h
	}
	return workerOf(h, len(e.workers)), h
}

// partitioner returns r as a traces.Partitioner when the replay can take
// its requests in runs: not a reader whose requests come with what the
// runs do not carry (its own key indexes, how late each came), nor one
// that cannot partition.
func (e *Engine) partitioner(r traces.Reader) (traces.Partitioner, bool) {
	pr, ok := r.(traces.Partitioner)
	if !ok {
		return nil, false
	}
	if _, indexed := keyIndexer(r); indexed {
		return nil, false
	}
	if _, late := r.(traces.Lateness); late {
		return nil, false
	}
	return pr, pr.Partition(len(e.workers), e.partOf)
}

// runJob is a run handed to the workers, and where it is in the trace.
type runJob struct {
	run    *traces.Run
	seq    int64 // the requests of the trace before it
	before int64 // the latest time offered before it
}

// replayRuns is replayParallel for a reader partitioned by partOf.
func (e *Engine) replayRuns(ctx context.Context, r traces.Reader, pr traces.Partitioner) error {
	n := len(e.workers)
	file := r.Pos().File
	work := make([]chan *runJob, n)
	fails := make([]*failure, n) // per worker, its first error
	var failed atomic.Bool       // some worker has failed
	var wg sync.WaitGroup
	for w := range n {
		work[w] = make(chan *runJob, runQueue)
		wg.Add(1)
		go func() {
			defer wg.Done()
			var p *worker // made at its first request
			for j := range work[w] {
				if part := j.run.Part(w); fails[w] == nil && part.Len() > 0 {
					if p == nil {
						p = e.worker(w)
					}
					if fails[w] = p.replayPart(j, part, file); fails[w] != nil {
						failed.Store(true)
					}
				}
				j.run.Done()
			}
		}()
	}
	done := ctx.Done()
	var seq int64
	var stop error
	for !failed.Load() {
		if interrupted(done) {
			e.partial, stop = true, ErrInterrupted
			break
		}
		run := pr.NextRun()
		if run == nil {
			break
		}
		j := &runJob{run: run, seq: seq, before: e.offeredEnd}
		seq += int64(run.Len())
		e.offeredEnd = max(e.offeredEnd, run.MaxT())
		for _, c := range work {
			c <- j
		}
		e.progress.Store(seq)
	}
	for _, c := range work {
		close(c)
	}
	wg.Wait()
	e.read += seq
	e.progress.Store(seq)
	switch first := firstFailure(fails); {
	case first != nil:
		return first.err
	case stop != nil:
		return stop
	}
	return e.readerErr(r)
}

// replayPart replays part p of run j, stopping at the first error, which
// names the file and line (or row) of the request: what the reader's
// position would have said had it read the request alone.
func (w *worker) replayPart(j *runJob, p *traces.Part, file string) *failure {
	dict := j.run.Dict() // 0: the keys are copied, with their hashes
	if dict != 0 {
		w.refs.use(dict)
	}
	n := p.Len()
	for k := range min(slotAhead, n) {
		w.prefetchSlot(p, dict, k)
	}
	for i := range n {
		if k := i + slotAhead; k < n {
			w.prefetchSlot(p, dict, k)
		}
		if k := i + stateAhead; k < n {
			w.prefetchState(p, dict, k)
		}
		t, cost := p.T[i], p.Cost[i]
		if err := checkRequest(t, cost); err != nil {
			return &failure{seq: j.seq + int64(p.At[i]), err: &traces.ParseError{Pos: j.run.Position(p, i), Msg: err.Error()}}
		}
		var err error
		if dict != 0 {
			err = w.addEntry(p, i, dict, t, cost)
		} else {
			err = w.addHashed(p.Key(i), p.Hash[i], t, cost)
		}
		if err != nil {
			late := lateness(nil, max(j.before, j.run.Before(p.At[i])), t)
			err = orderHint(err, late, nil, file)
			return &failure{seq: j.seq + int64(p.At[i]), err: &traces.ParseError{Pos: j.run.Position(p, i), Msg: err.Error(), Err: err}}
		}
	}
	return nil
}

// prefetchSlot asks for where the worker looks request k of p's key up:
// its entry's slot (a key of dictionary dict), or its key table's slot.
func (w *worker) prefetchSlot(p *traces.Part, dict uint64, k int) {
	if dict != 0 {
		w.refs.prefetch(p.Ref[k])
		return
	}
	w.keys.prefetchSlot(p.Hash[k])
}

// prefetchState asks for the state of request k of p's key, and its part
// of the block, once its slot is in the cache (prefetchSlot).
func (w *worker) prefetchState(p *traces.Part, dict uint64, k int) {
	if dict != 0 {
		if v := w.refs.peek(p.Ref[k]); v > 0 {
			w.keys.prefetchID(v - 1)
			w.prefetchBlock(v - 1)
		}
		return
	}
	w.prefetchBlock(w.keys.prefetchState(p.Hash[k]))
}
