package live

import (
	"context"
	"sync"
)

// clients are the concurrent clients of a replay: a queue of requests (their indices
// in the trace) from which each client takes the next and waits for its
// answer before taking another, and the first error cancelling the
// replay.
//
// The feeder hands the requests in order with send, which blocks until a
// client is free (or the queue's room, buf, has space) and fails once the
// replay is cancelled; finish then waits for every request sent to be
// answered. A client's error ends that client and cancels the replay: the
// other clients stop with the requests they hold, and the error is the
// replay's. An error a client meets once the replay is already cancelled
// (by that first error, or by the caller's context) is the
// cancellation's, not reported.
type clients struct {
	ctx    context.Context // the replay's, cancelled by the first error, the caller's context or finish
	cancel context.CancelFunc
	jobs   chan int

	wg       sync.WaitGroup
	errOnce  sync.Once
	firstErr error
}

// startClients starts n client goroutines, each running do(ctx, w, i)
// for the requests it takes, one at a time, with w its index in [0, n)
// (for the client's own connection) and ctx the replay's; buf requests
// may wait in the queue. Feed them with send, then call finish.
func startClients(ctx context.Context, n, buf int, do func(ctx context.Context, w, i int) error) *clients {
	c := &clients{jobs: make(chan int, buf)}
	c.ctx, c.cancel = context.WithCancel(ctx)
	for w := range n {
		c.wg.Add(1)
		go func() {
			defer c.wg.Done()
			for j := range c.jobs {
				if err := do(c.ctx, w, j); err != nil {
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

// send hands request i to the next free client; false once the replay is
// cancelled.
func (c *clients) send(i int) bool {
	select {
	case c.jobs <- i:
		return true
	case <-c.ctx.Done():
		return false
	}
}

// finish closes the queue, waits for the clients to answer every request
// sent and returns the replay's error: a client's, else feedErr (the
// feeder's), else the cancellation's. It must be called once, after the
// last send.
func (c *clients) finish(feedErr error) error {
	close(c.jobs)
	c.wg.Wait()
	defer c.cancel()
	if c.firstErr != nil {
		return c.firstErr
	}
	if feedErr == nil {
		feedErr = c.ctx.Err()
	}
	return feedErr
}
