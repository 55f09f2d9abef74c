package cloudflare

import (
	"context"
	"sync"

	"ratebench/algorithms"
	"ratebench/summary"
)

// Options are how a search runs.
type Options struct {
	Workers int // points replayed side by side (at least 1)
	// Done are points already replayed (of an interrupted search of the
	// same population): those of the grid among them are taken as they
	// are, not replayed again.
	Done []summary.SearchPoint
	// Progress, if not nil, is called after each point, with the points
	// finished so far (those of Done among them) and the grid's size; never
	// concurrently.
	Progress func(done, total int)
}

// ReplayGrid replays every point of g on pop, opt.Workers points side by
// side (the points do not depend on how many). It returns the points in grid
// order; when ctx is cancelled it stops the points under way and returns
// the finished ones, in grid order, with ctx's error.
func ReplayGrid(ctx context.Context, g Grid, pop Population, opt Options) ([]summary.SearchPoint, error) {
	pts := g.Points()
	out := make([]summary.SearchPoint, len(pts))
	finished := make([]bool, len(pts))
	var todo []int
	for i, p := range pts {
		if d, ok := findDone(opt.Done, p, pop); ok {
			out[i], finished[i] = d, true
		} else {
			todo = append(todo, i)
		}
	}
	var mu sync.Mutex
	done := len(pts) - len(todo)
	var firstErr error
	next := make(chan int)
	var wg sync.WaitGroup
	for range max(1, opt.Workers) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				pt, err := replayPoint(ctx, pts[i], pop)
				mu.Lock()
				switch {
				case err == nil:
					out[i], finished[i] = pt, true
					done++
					if opt.Progress != nil {
						opt.Progress(done, len(pts))
					}
				case firstErr == nil && ctx.Err() == nil:
					firstErr = err
				}
				mu.Unlock()
			}
		}()
	}
feed:
	for _, i := range todo {
		mu.Lock()
		failed := firstErr != nil
		mu.Unlock()
		if failed {
			break
		}
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	var kept []summary.SearchPoint
	for i := range pts {
		if finished[i] {
			kept = append(kept, out[i])
		}
	}
	if err := ctx.Err(); err != nil && len(kept) < len(pts) {
		return kept, err
	}
	return kept, nil
}

// findDone returns the point of done that is p on pop.
func findDone(done []summary.SearchPoint, p Point, pop Population) (summary.SearchPoint, bool) {
	want := searchPoint(p, summary.PairResult{})
	for _, d := range done {
		if d.SameSetting(&want) && d.Requests == pop.Requests {
			return d, true
		}
	}
	return summary.SearchPoint{}, false
}

func searchPoint(p Point, res summary.PairResult) summary.SearchPoint {
	return summary.SearchPoint{Rule: algorithms.FormatRules([]algorithms.Rule{p.Rule}), Algorithm: p.Alg, Rate: p.Rate, Alpha: p.Alpha, Max: p.MaxR, Block: p.Block, PairResult: res}
}
