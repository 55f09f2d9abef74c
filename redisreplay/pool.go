package redisreplay

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// clientPool is a pass's concurrent clients: each takes the next job and
// hands it to the pass's round trip, timing it; the first error cancels
// the pass.
type clientPool struct {
	ctx    context.Context // the pass's, cancelled by the first error
	cancel context.CancelFunc
	jobs   chan job
	lat    *reservoir
	began  time.Time

	wg       sync.WaitGroup
	errOnce  sync.Once
	firstErr error
}

// startClients starts clients goroutines, each running do(w, j) for the
// jobs it takes (w is the client's index, for its own counts), with room
// for buf jobs waiting. Feed them with send, then call finish.
func (rp *replay) startClients(ctx context.Context, clients, buf int, do func(ctx context.Context, w int, j *job) error) *clientPool {
	p := &clientPool{jobs: make(chan job, buf), lat: newReservoir(rp.cfg.LatencySample, 1), began: time.Now()}
	p.ctx, p.cancel = context.WithCancel(ctx)
	for w := range clients {
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			for j := range p.jobs {
				t0 := time.Now()
				err := do(p.ctx, w, &j)
				p.lat.add(int64(time.Since(t0)))
				if err != nil {
					p.errOnce.Do(func() { p.firstErr = fmt.Errorf("request %d: %w", j.seq, err); p.cancel() })
					return
				}
			}
		}()
	}
	return p
}

// send hands j to the next free client; false once the pass is cancelled.
func (p *clientPool) send(j job) bool {
	select {
	case p.jobs <- j:
		return true
	case <-p.ctx.Done():
		return false
	}
}

// finish waits for the clients to answer every job sent and returns the
// pass's duration and its error: a client's, else scanErr (the feeding's),
// else the cancellation's.
func (p *clientPool) finish(scanErr error) (time.Duration, error) {
	close(p.jobs)
	p.wg.Wait()
	elapsed := time.Since(p.began)
	defer p.cancel()
	if p.firstErr != nil {
		return elapsed, p.firstErr
	}
	if scanErr == nil {
		scanErr = p.ctx.Err()
	}
	return elapsed, scanErr
}
