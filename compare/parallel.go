package compare

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"

	"ratebench/internal/slicesx"
	"ratebench/traces"
)

// batchSize is how many requests the reader hands a worker at a time.
const batchSize = 4096

// batch is a run of requests for one worker, struct of arrays, with the
// keys' bytes in one arena so that handing them over allocates nothing.
type batch struct {
	t, cost   []int64
	keyEnd    []int32 // key i is keys[keyEnd[i-1]:keyEnd[i]]
	keys      []byte
	ids       []int32  // the reader's key indexes, when it has them
	hash      []uint64 // else the keys' KeyHash
	seq       []int64  // position of each request in the trace, from 0
	line, row []int64  // where each request is, for errors
	late      []int64  // how late each came (OrderError.Late), for errors
}

func (b *batch) reset() {
	b.t, b.cost, b.keyEnd, b.keys = b.t[:0], b.cost[:0], b.keyEnd[:0], b.keys[:0]
	b.ids, b.hash = b.ids[:0], b.hash[:0]
	b.seq, b.line, b.row, b.late = b.seq[:0], b.line[:0], b.row[:0], b.late[:0]
}

// failure is a worker's first error and where in the trace it happened.
type failure struct {
	seq int64
	err error
}

// replayParallel reads r in this goroutine and hands each request to the
// worker its key hashes to, in batches; each worker replays its keys in
// trace order, so every worker's state is what one pass would have built
// for those keys, and Summary merges them exactly. A reader that can hand
// its requests over already split by key (traces.Partitioner) does, in
// runs (replayRuns).
func (e *Engine) replayParallel(ctx context.Context, r traces.Reader) error {
	if pr, ok := e.partitioner(r); ok {
		return e.replayRuns(ctx, r, pr)
	}
	lr, _ := r.(traces.Lateness)
	d := e.startWorkers(r.Pos().File, lr)
	seq, rerr := d.read(ctx, r, newRouter(e, r), lr)
	d.finish()
	e.read += seq
	e.progress.Store(seq)
	if f := d.first(); f != nil {
		return f.err
	}
	if rerr != nil {
		return rerr
	}
	return e.readerErr(r)
}

// dispatch is a parallel replay's side of the reader: the batches it fills
// per worker and hands over, and what the workers report back.
type dispatch struct {
	e       *Engine
	free    chan *batch   // emptied batches, for the reader to fill
	work    []chan *batch // per worker, its batches to replay
	pending []*batch      // per worker, the batch being filled
	fails   []*failure    // per worker, its first error
	failed  atomic.Bool   // some worker has failed
	wg      sync.WaitGroup
}

// startWorkers starts a goroutine per worker of e, replaying the batches
// handed to it until its channel is closed and stopping at its first error;
// file and lr are for its errors.
func (e *Engine) startWorkers(file string, lr traces.Lateness) *dispatch {
	n := len(e.workers)
	d := &dispatch{e: e, free: make(chan *batch, 4*n), work: make([]chan *batch, n), pending: make([]*batch, n), fails: make([]*failure, n)}
	for range 4 * n {
		d.free <- &batch{}
	}
	for w := range n {
		d.work[w] = make(chan *batch, 2)
		d.wg.Add(1)
		go func() {
			defer d.wg.Done()
			var p *worker // made at its first batch
			for b := range d.work[w] {
				if p == nil {
					p = e.worker(w)
				}
				if d.fails[w] == nil {
					if d.fails[w] = p.replayBatch(b, file, lr); d.fails[w] != nil {
						d.failed.Store(true)
					}
				}
				d.free <- b
			}
		}()
	}
	return d
}

// read hands every request of r to its worker, routed by rt, until the
// reader ends, ctx is cancelled, a request is bad or a worker has failed
// (checked every 4096 requests); it returns how many requests it read and
// the error that stopped it, nil at the reader's end.
func (d *dispatch) read(ctx context.Context, r traces.Reader, rt *router, lr traces.Lateness) (int64, error) {
	e := d.e
	done := ctx.Done()
	var seq int64
	for ; r.Scan(); seq++ {
		if seq&4095 == 4095 {
			e.progress.Store(seq + 1)
			if interrupted(done) {
				e.partial = true
				return seq, ErrInterrupted
			}
			if d.failed.Load() {
				return seq, nil
			}
		}
		q := rt.request(r)
		if err := checkRequest(q.T, q.Cost); err != nil {
			return seq, &traces.ParseError{Pos: r.Pos(), Msg: err.Error()}
		}
		late := lateness(lr, e.offeredEnd, q.T)
		e.offeredEnd = max(e.offeredEnd, q.T)
		to, owned, err := rt.route(q.Key)
		if err != nil {
			return seq, &traces.ParseError{Pos: r.Pos(), Msg: err.Error()}
		}
		if owned {
			d.add(to, q, r.Pos(), seq, late)
		}
	}
	return seq, nil
}

// add appends request q, at pos and seq in the trace, to the batch of its
// worker, handing the batch over when full.
func (d *dispatch) add(to route, q traces.Request, pos traces.Position, seq, late int64) {
	b := d.pending[to.worker]
	if b == nil {
		b = <-d.free
		b.reset()
		d.pending[to.worker] = b
	}
	b.t = append(b.t, q.T)
	b.cost = append(b.cost, q.Cost)
	b.keys = append(b.keys, to.key...)
	b.keyEnd = append(b.keyEnd, int32(len(b.keys)))
	if to.indexed {
		b.ids = append(b.ids, to.id)
	} else {
		b.hash = append(b.hash, to.hash)
	}
	b.seq = append(b.seq, seq)
	b.line = append(b.line, pos.Line)
	b.row = append(b.row, pos.Row)
	b.late = append(b.late, late)
	if len(b.t) == batchSize || len(b.keys) >= 1<<20 {
		d.flush(to.worker)
	}
}

// flush hands worker w its pending batch, if it holds any request.
func (d *dispatch) flush(w int) {
	if b := d.pending[w]; b != nil && len(b.t) > 0 {
		d.work[w] <- b
		d.pending[w] = nil
	}
}

// finish hands over the last batches and waits for every worker to be done.
func (d *dispatch) finish() {
	for w := range d.work {
		d.flush(w)
		close(d.work[w])
	}
	d.wg.Wait()
}

// first returns the workers' first error in trace order, nil if none
// failed. A worker's error is always at a request the reader had already
// passed, so it comes before any the reader met.
func (d *dispatch) first() *failure { return firstFailure(d.fails) }

// firstFailure returns the first of the workers' errors in trace order,
// nil if none failed.
func firstFailure(fails []*failure) *failure {
	var first *failure
	for _, f := range fails {
		if f != nil && (first == nil || f.seq < first.seq) {
			first = f
		}
	}
	return first
}

// router finds the worker of each request of a parallel replay and what
// it is handed of the key: the reader's own index, or the key's hash. (A
// reader whose keys are entries of a dictionary hands them over in runs,
// replayRuns, where it can.)
type router struct {
	e       *Engine
	n       int // workers
	ix      KeyIndexer
	indexed bool
	ids     indexedKeys // with ix: what is known of each key index
	namer   keyNamer    // ix, if it gives a request apart from its key's name
}

func newRouter(e *Engine, r traces.Reader) *router {
	rt := &router{e: e, n: len(e.workers)}
	rt.ix, rt.indexed = keyIndexer(r)
	if rt.indexed {
		rt.namer, _ = r.(keyNamer)
	}
	return rt
}

// keyNamer is a KeyIndexer that gives the current request's time and cost
// apart from its key's name (a generator, which finds a source's name in
// a table of them: among many sources, a cache miss a request): the
// router asks for the name only at the key's first request, the one that
// sends it to its worker.
type keyNamer interface {
	KeyIndexer
	TimeCost() (t, cost int64)
	Request() traces.Request
}

// request returns r's current request; for a keyNamer, without the key's
// name, which route then asks for when it needs it.
func (rt *router) request(r traces.Reader) traces.Request {
	if rt.namer != nil {
		t, cost := rt.namer.TimeCost()
		return traces.Request{T: t, Cost: cost}
	}
	return r.Request()
}

// route is where a request goes: its worker and what the worker gets of
// its key.
type route struct {
	worker  int
	key     []byte // the key's name; nil when its worker already has it
	indexed bool   // id is the key's index at its worker
	id      int32
	hash    uint64
}

// route returns the route of the current request, whose key is key, and
// whether this engine's shard owns it.
func (rt *router) route(key []byte) (route, bool, error) {
	if rt.indexed {
		return rt.routeIndexed(key)
	}
	to := route{key: key, hash: traces.KeyHash(key)}
	if !owns(rt.e.cfg.Shard, to.hash) {
		return to, false, nil
	}
	to.worker = workerOf(to.hash, rt.n)
	return to, true, nil
}

// routeIndexed is route for a reader that indexes its keys: the key's
// name goes to its worker with its first request only, and whether the
// shard owns it is decided once.
func (rt *router) routeIndexed(key []byte) (route, bool, error) {
	id := rt.ix.KeyIndex()
	if id < 0 {
		return route{}, false, errors.New("negative key index")
	}
	seen := rt.ids.of(id)
	if *seen == idUnseen {
		if rt.namer != nil { // request left the name out
			key = rt.namer.Request().Key
		}
		*seen = idSent
		if rt.e.cfg.Shard != nil && !owns(rt.e.cfg.Shard, traces.KeyHash(key)) {
			*seen = idNotOwned
		}
	} else if *seen == idSent {
		key = nil // the worker has its name
	}
	if *seen == idNotOwned {
		return route{}, false, nil
	}
	n := int32(rt.n)
	return route{worker: int(id % n), key: key, indexed: true, id: id / n}, true, nil
}

// slotAhead and stateAhead are how many requests ahead of the one it
// replays a worker prefetches the key table's slot of, and then the key's
// state: a request's lookup then finds both in the cache. For a reader's
// own ids, which need no lookup, it prefetches the key's state twice as
// far ahead, then what a limiter's state holds past the block
// (algorithms.Ahead: a log's spilled window) at depth 1 stateAhead ahead
// and depth 2 half as far: Cloudflare's replay, whose busy sources'
// logs spill, takes 0.96 of the time.
const slotAhead, stateAhead = 8, 4

// replayBatch replays b, stopping at the first error; lr is the reader's
// Lateness, if it has one, for the errors.
func (w *worker) replayBatch(b *batch, file string, lr traces.Lateness) *failure {
	for _, h := range b.hash[:min(slotAhead, len(b.hash))] {
		w.keys.prefetchSlot(h)
	}
	start := int32(0)
	var guess [stateAhead]int32 // the id guessed for request j, at j%stateAhead; -1 none
	for k := range guess {
		guess[k] = -1
	}
	for i := range b.t {
		key := b.keys[start:b.keyEnd[i]]
		start = b.keyEnd[i]
		if len(b.hash) > 0 {
			if j := i + slotAhead; j < len(b.hash) {
				w.keys.prefetchSlot(b.hash[j])
			}
			if j := i + stateAhead; j < len(b.hash) {
				id := w.keys.prefetchState(b.hash[j])
				w.prefetchBlock(id)
				guess[j%stateAhead] = id
			}
			if len(w.aheads) > 0 { // then what the state of the key guessed holds past the block
				if j := i + stateAhead/2; j < len(b.hash) {
					w.prefetchAhead(guess[j%stateAhead], 1)
				}
				if j := i + 1; j < len(b.hash) {
					w.prefetchAhead(guess[j%stateAhead], 2)
				}
			}
		} else if len(b.ids) > 0 { // a reader's own ids (a generator's): no lookup to wait for
			if j := i + 2*stateAhead; j < len(b.ids) {
				w.keys.prefetchID(b.ids[j])
				w.prefetchBlock(b.ids[j])
			}
			if len(w.aheads) > 0 { // then what the state holds past the block, a depth at a time
				if j := i + stateAhead; j < len(b.ids) {
					w.prefetchAhead(b.ids[j], 1)
				}
				if j := i + stateAhead/2; j < len(b.ids) {
					w.prefetchAhead(b.ids[j], 2)
				}
			}
		}
		var err error
		if len(b.ids) > 0 {
			err = w.addIndexed(b.ids[i], key, b.t[i], b.cost[i])
		} else {
			err = w.addHashed(key, b.hash[i], b.t[i], b.cost[i])
		}
		if err != nil {
			err = orderHint(err, b.late[i], lr, file)
			pos := traces.Position{File: file, Line: b.line[i], Row: b.row[i]}
			return &failure{seq: b.seq[i], err: &traces.ParseError{Pos: pos, Msg: err.Error(), Err: err}}
		}
	}
	return nil
}

// indexedKeys is what the reader of a parallel replay knows of the keys a
// reader indexes (KeyIndexer), by index: a key's name goes to its worker
// with its first request only, and whether its shard owns it is decided
// once.
type indexedKeys []uint8

// The states of an indexed key.
const (
	idUnseen   uint8 = iota // no request of it yet
	idSent                  // its worker has its name
	idNotOwned              // another shard's
)

// of returns the state of key index id.
func (k *indexedKeys) of(id int32) *uint8 {
	if int(id) >= len(*k) {
		*k = slicesx.Grow(*k, max(int(id)+1, 2*len(*k)))
	}
	return &(*k)[id]
}
