package redisreplay

import (
	"context"
	"fmt"
	"time"

	"ratebench/internal/pass"
)

// startClients starts a pass's clients (see package pass): each runs
// do(ctx, w, j) for the jobs it takes (w is the client's index, for its
// own counts), timed into the returned reservoir, with room for buf jobs
// waiting. A client's error names its request.
func (rp *replay) startClients(ctx context.Context, clients, buf int, do func(ctx context.Context, w int, j *job) error) (*pass.Clients[job], *reservoir) {
	lat := newReservoir(rp.cfg.LatencySample, 1)
	p := pass.Start(ctx, clients, buf, func(ctx context.Context, w int, j *job) error {
		t0 := time.Now()
		err := do(ctx, w, j)
		lat.add(int64(time.Since(t0)))
		if err != nil {
			return fmt.Errorf("request %d: %w", j.seq, err)
		}
		return nil
	})
	return p, lat
}
