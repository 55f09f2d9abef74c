// Package pass runs the concurrent clients of one pass of a replay against
// a real server (Redis, nginx): a job queue from which each client takes
// the next job and waits for its answer before taking another, the pass's
// duration from the clients' start to the last answer, and the first
// error cancelling the pass.
//
// The feeder hands the jobs in order with Send, which blocks until a
// client is free (or the queue's room, buf, has space) and fails once the
// pass is cancelled; Finish then waits for every job sent to be answered.
// A client's error ends that client and cancels the pass: the other
// clients stop with the jobs they hold, and the error is the pass's. An
// error a client meets once the pass is already cancelled (by that first
// error, or by the caller's context) is the cancellation's, not reported.
package pass

import (
	"context"
	"sync"
	"time"
)

// Clients is one pass's running clients, taking jobs of type J.
type Clients[J any] struct {
	ctx    context.Context // the pass's, cancelled by the first error
	cancel context.CancelFunc
	jobs   chan J
	began  time.Time

	wg       sync.WaitGroup
	errOnce  sync.Once
	firstErr error
}

// Start starts n client goroutines, each running do(ctx, w, j) for the
// jobs it takes, one at a time, with w its index in [0, n) (for the
// client's own connection and counts) and ctx the pass's; buf jobs may
// wait in the queue. Feed them with Send, then call Finish.
func Start[J any](ctx context.Context, n, buf int, do func(ctx context.Context, w int, j *J) error) *Clients[J] {
	c := &Clients[J]{jobs: make(chan J, buf), began: time.Now()}
	c.ctx, c.cancel = context.WithCancel(ctx)
	for w := range n {
		c.wg.Add(1)
		go func() {
			defer c.wg.Done()
			for j := range c.jobs {
				if err := do(c.ctx, w, &j); err != nil {
					if c.ctx.Err() == nil {
						c.errOnce.Do(func() { c.firstErr = err; c.cancel() })
					}
					return
				}
			}
		}()
	}
	return c
}

// Began is when the clients were started: the start of the pass.
func (c *Clients[J]) Began() time.Time { return c.began }

// Context is the pass's context, cancelled by the first error, the
// caller's context or Finish.
func (c *Clients[J]) Context() context.Context { return c.ctx }

// Send hands j to the next free client; false once the pass is cancelled.
func (c *Clients[J]) Send(j J) bool {
	select {
	case c.jobs <- j:
		return true
	case <-c.ctx.Done():
		return false
	}
}

// Finish closes the queue, waits for the clients to answer every job sent
// and returns the pass's duration and its error: a client's, else feedErr
// (the feeder's), else the cancellation's. It must be called once, after
// the last Send.
func (c *Clients[J]) Finish(feedErr error) (time.Duration, error) {
	close(c.jobs)
	c.wg.Wait()
	elapsed := time.Since(c.began)
	defer c.cancel()
	if c.firstErr != nil {
		return elapsed, c.firstErr
	}
	if feedErr == nil {
		feedErr = c.ctx.Err()
	}
	return elapsed, feedErr
}
