package live

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
)

// Every job sent is done once, by a client of index in [0, n).
func TestEveryJobDone(t *testing.T) {
	const n, jobs = 4, 1000
	var done [jobs]atomic.Int32
	var badIndex atomic.Bool
	c := startClients(context.Background(), n, 2*n, func(_ context.Context, w, j int) error {
		if w < 0 || w >= n {
			badIndex.Store(true)
		}
		done[j].Add(1)
		return nil
	})
	for i := range jobs {
		if !c.send(i) {
			t.Fatalf("send(%d) failed on a pass that was not cancelled", i)
		}
	}
	if err := c.finish(nil); err != nil {
		t.Fatal(err)
	}
	for i := range done {
		if got := done[i].Load(); got != 1 {
			t.Fatalf("job %d done %d times", i, got)
		}
	}
	if badIndex.Load() {
		t.Error("a client's index is outside [0, n)")
	}
}

// The first error cancels the pass: send fails from then on, the clients
// blocked on a job see the cancellation, and finish returns that error
// alone (not the errors of the cancelled clients).
func TestFirstErrorCancels(t *testing.T) {
	boom := errors.New("boom")
	c := startClients(context.Background(), 3, 0, func(ctx context.Context, _, j int) error {
		if j == 5 {
			return fmt.Errorf("job %d: %w", j, boom)
		}
		if j > 5 { // held until the pass is cancelled, then fails with it
			<-ctx.Done()
			return ctx.Err()
		}
		return nil
	})
	sent := 0
	for i := 0; c.send(i); i++ {
		sent++
		if i > 1000 {
			t.Fatal("send still succeeds long after the error")
		}
	}
	err := c.finish(nil)
	if !errors.Is(err, boom) || err.Error() != "job 5: boom" {
		t.Fatalf("finish = %v, want the first error, job 5: boom", err)
	}
	if sent < 6 {
		t.Fatalf("only %d jobs sent before the cancellation, want job 5 among them", sent)
	}
}

// Without a client error, finish returns the feeder's error, else the
// caller's cancellation.
func TestFeederAndCallerErrors(t *testing.T) {
	c := startClients(context.Background(), 2, 0, func(context.Context, int, int) error { return nil })
	c.send(1)
	feed := errors.New("bad line")
	if err := c.finish(feed); err != feed {
		t.Fatalf("finish = %v, want the feeder's error", err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	c = startClients(ctx, 2, 0, func(ctx context.Context, _, _ int) error {
		cancel()
		<-ctx.Done()
		return ctx.Err() // met after the cancellation: not the pass's error
	})
	c.send(1)
	for c.send(2) {
	}
	if err := c.finish(nil); !errors.Is(err, context.Canceled) || err.Error() != context.Canceled.Error() {
		t.Fatalf("finish = %v, want the caller's cancellation", err)
	}
	if c.ctx.Err() == nil {
		t.Error("the pass's context is not cancelled after finish")
	}
}
