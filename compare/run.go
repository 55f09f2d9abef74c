package compare

import (
	"context"
	"errors"

	"ratebench/traces"
)

// ErrInterrupted is returned by Replay when its context is cancelled: the
// engine holds the requests replayed so far, and its Summary is partial.
var ErrInterrupted = errors.New("replay interrupted")

// KeyIndexer is a trace reader whose keys come with dense ids of their
// own (a generator's source index); Replay then skips the key lookup.
type KeyIndexer interface {
	KeyIndex() int32
}

// maxIndexedKeys is the most keys a reader's own ids are used for: past
// it, keys are looked up by name, so that idle keys can be released (a
// caller's ids cannot be given to other keys).
const maxIndexedKeys = 1 << 20

// keyIndexer returns r's key ids if it has them and they are few enough.
func keyIndexer(r traces.Reader) (KeyIndexer, bool) {
	ix, ok := r.(KeyIndexer)
	if k, sized := r.(interface{ Keys() int }); ok && sized && k.Keys() > maxIndexedKeys {
		return nil, false
	}
	return ix, ok
}

// Replay feeds every request of r to the engine. An error names the file
// and line (or row) of the request at fault. When ctx is cancelled it stops
// between two requests and returns ErrInterrupted; the engine's Summary
// then covers the requests replayed so far and says it is partial. So it
// does when r stops with traces.ErrInterrupted (a reader given ctx's Done
// as its Options.Cancel, which also stops it while it waits for input or
// skips bad records).
//
// A parallel engine reads and parses in the calling goroutine while its
// workers replay, each the keys that hash to it; the error it returns is
// the one a single pass would have met first.
func (e *Engine) Replay(ctx context.Context, r traces.Reader) error {
	if len(e.workers) > 1 {
		return e.replayParallel(ctx, r)
	}
	ix, indexed := keyIndexer(r)
	rf, refs := r.(KeyRefer)
	lr, _ := r.(traces.Lateness)
	done := ctx.Done()
	for n := 1; r.Scan(); n++ {
		if n&4095 == 0 { // every 4096 requests
			e.progress.Store(int64(n))
			if interrupted(done) {
				e.partial = true
				return ErrInterrupted
			}
		}
		q := r.Request()
		var err error
		switch {
		case indexed:
			err = e.AddIndexed(ix.KeyIndex(), q.Key, q.T, q.Cost)
		case refs:
			if d, i, ok := rf.KeyRef(); ok {
				err = e.addRef(q.Key, d, i, q.T, q.Cost)
				break
			}
			fallthrough
		default:
			err = e.Add(q.Key, q.T, q.Cost)
		}
		if err != nil {
			err = orderHint(err, lateness(lr, e.offeredEnd, q.T), lr, r.Pos().File)
			return &traces.ParseError{Pos: r.Pos(), Msg: err.Error(), Err: err}
		}
	}
	e.progress.Store(e.workers[0].requests)
	return e.readerErr(r)
}

// readerErr is r's error once it has stopped: a reader interrupted by its
// cancel ends the replay as a cancelled context does.
func (e *Engine) readerErr(r traces.Reader) error {
	err := r.Err()
	if errors.Is(err, traces.ErrInterrupted) {
		e.partial = true
		return ErrInterrupted
	}
	return err
}

func interrupted(done <-chan struct{}) bool {
	if done == nil {
		return false
	}
	select {
	case <-done:
		return true
	default:
		return false
	}
}

// Progress returns about how many requests Replay has read so far (updated
// every 4096): safe to call from another goroutine, for progress displays.
func (e *Engine) Progress() int64 { return e.progress.Load() }
