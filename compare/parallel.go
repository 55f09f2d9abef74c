package compare

import (
	"context"
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
	dict      []uint64 // with hash, when the reader has them: the key's dictionary (KeyRefer)
	ref       []int32  // and its entry there, -1 none
	seq       []int64  // position of each request in the trace, from 0
	line, row []int64  // where each request is, for errors
	late      []int64  // how late each came (OrderError.Late), for errors
}

func (b *batch) reset() {
	b.t, b.cost, b.keyEnd, b.keys = b.t[:0], b.cost[:0], b.keyEnd[:0], b.keys[:0]
	b.ids, b.hash, b.dict, b.ref = b.ids[:0], b.hash[:0], b.dict[:0], b.ref[:0]
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
// for those keys, and Summary merges them exactly.
func (e *Engine) replayParallel(ctx context.Context, r traces.Reader) error {
	n := len(e.workers)
	ix, indexed := keyIndexer(r)
	var ids indexedKeys
	rf, refs := r.(KeyRefer)
	lr, _ := r.(traces.Lateness)
	free := make(chan *batch, 4*n)
	for range 4 * n {
		free <- &batch{}
	}
	work := make([]chan *batch, n)
	fails := make([]*failure, n)
	file := r.Pos().File
	var failed atomic.Bool
	var wg sync.WaitGroup
	for w := range n {
		work[w] = make(chan *batch, 2)
		wg.Add(1)
		go func() {
			defer wg.Done()
			var p *worker // made at its first batch
			for b := range work[w] {
				if p == nil {
					p = e.worker(w)
				}
				if fails[w] == nil {
					if fails[w] = p.replayBatch(b, file, lr); fails[w] != nil {
						failed.Store(true)
					}
				}
				free <- b
			}
		}()
	}
	pending := make([]*batch, n)
	flush := func(w int) {
		if b := pending[w]; b != nil && len(b.t) > 0 {
			work[w] <- b
			pending[w] = nil
		}
	}
	done := ctx.Done()
	var seq int64
	var rerr error
	for r.Scan() {
		if seq&4095 == 4095 {
			e.progress.Store(seq + 1)
			if interrupted(done) {
				e.partial = true
				rerr = ErrInterrupted
				break
			}
			if failed.Load() {
				break
			}
		}
		q := r.Request()
		if err := checkRequest(q.T, q.Cost); err != nil {
			rerr = &traces.ParseError{Pos: r.Pos(), Msg: err.Error()}
			break
		}
		late := lateness(lr, e.offeredEnd, q.T)
		e.offeredEnd = max(e.offeredEnd, q.T)
		key := q.Key
		var w int
		var id int32
		var h, dict uint64
		ref := int32(-1)
		if indexed {
			id = ix.KeyIndex()
			if id < 0 {
				rerr = &traces.ParseError{Pos: r.Pos(), Msg: "negative key index"}
				break
			}
			seen := ids.of(id)
			if *seen == idUnseen {
				*seen = idSent
				if e.cfg.Shard != nil && !owns(e.cfg.Shard, KeyHash(q.Key)) {
					*seen = idNotOwned
				}
			} else if *seen == idSent {
				key = nil // the worker has its name
			}
			if *seen == idNotOwned {
				seq++
				continue
			}
			w, id = int(id)%n, id/int32(n)
		} else {
			if refs {
				if d, i, ok := rf.KeyRef(); ok {
					h, dict, ref = e.hashRef(q.Key, d, i), d, i
				}
			}
			if ref < 0 {
				h = KeyHash(q.Key)
			}
			if !owns(e.cfg.Shard, h) {
				seq++
				continue
			}
			w = workerOf(h, n)
		}
		b := pending[w]
		if b == nil {
			b = <-free
			b.reset()
			pending[w] = b
		}
		pos := r.Pos()
		b.t = append(b.t, q.T)
		b.cost = append(b.cost, q.Cost)
		b.keys = append(b.keys, key...)
		b.keyEnd = append(b.keyEnd, int32(len(b.keys)))
		if indexed {
			b.ids = append(b.ids, id)
		} else {
			b.hash = append(b.hash, h)
			if refs {
				b.dict = append(b.dict, dict)
				b.ref = append(b.ref, ref)
			}
		}
		b.seq = append(b.seq, seq)
		b.line = append(b.line, pos.Line)
		b.row = append(b.row, pos.Row)
		b.late = append(b.late, late)
		if len(b.t) == batchSize || len(b.keys) >= 1<<20 {
			flush(w)
		}
		seq++
	}
	for w := range n {
		flush(w)
		close(work[w])
	}
	wg.Wait()
	e.progress.Store(seq)
	// The first error in trace order: a worker's, if one is before the
	// reader's (a worker's error is always at a request the reader had
	// already passed).
	var first *failure
	for _, f := range fails {
		if f != nil && (first == nil || f.seq < first.seq) {
			first = f
		}
	}
	if first != nil {
		return first.err
	}
	if rerr != nil {
		return rerr
	}
	return e.readerErr(r)
}

// slotAhead and stateAhead are how many requests ahead of the one it
// replays a worker prefetches the key table's slot of, and then the key's
// state: a request's lookup then finds both in the cache.
const slotAhead, stateAhead = 8, 4

// replayBatch replays b, stopping at the first error; lr is the reader's
// Lateness, if it has one, for the errors.
func (e *worker) replayBatch(b *batch, file string, lr traces.Lateness) *failure {
	if len(b.ref) == 0 {
		for _, h := range b.hash[:min(slotAhead, len(b.hash))] {
			e.keys.prefetchSlot(h)
		}
	}
	start := int32(0)
	for i := range b.t {
		key := b.keys[start:b.keyEnd[i]]
		start = b.keyEnd[i]
		if len(b.ref) == 0 && len(b.hash) > 0 {
			if j := i + slotAhead; j < len(b.hash) {
				e.keys.prefetchSlot(b.hash[j])
			}
			if j := i + stateAhead; j < len(b.hash) {
				e.keys.prefetchState(b.hash[j])
			}
		}
		var err error
		switch {
		case len(b.ids) > 0:
			err = e.addIndexed(b.ids[i], key, b.t[i], b.cost[i])
		case len(b.ref) > 0 && b.ref[i] >= 0:
			err = e.addRef(key, b.hash[i], b.dict[i], b.ref[i], b.t[i], b.cost[i])
		default:
			err = e.addHashed(key, b.hash[i], b.t[i], b.cost[i])
		}
		if err != nil {
			err = orderHint(err, b.late[i], lr, file)
			pos := traces.Position{File: file, Line: b.line[i], Row: b.row[i]}
			return &failure{seq: b.seq[i], err: &traces.ParseError{Pos: pos, Msg: err.Error()}}
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
