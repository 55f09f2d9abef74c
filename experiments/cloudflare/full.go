package cloudflare

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strconv"
	"sync"

	"ratebench/algorithms"
	"ratebench/internal/escape"
	"ratebench/report"
	"ratebench/summary"
)

// Full replays the closest points of the search in Dir's SearchDir
// (report.CloudflareClosest's order, the one the page reads them in) on
// Pop, by default the full scale of Cloudflare's experiment: the k-th
// closest into the search's full/k/ folder, a search of one point,
// Workers points side by side.
type Full struct {
	Dir     string // the experiment's folder
	Points  int    // how many of the closest (0: report.CloudflareFullPoints, those the page shows)
	Pop     Population
	Workers int
	Force   bool // write over another kind of run's results
	// Stdout says where each point was written, Stderr what it will
	// cost and how far it has got.
	Stdout, Stderr io.Writer
}

// Run reads the committed search, picks its closest points and replays
// each into its folder (Search.Run: an interrupted point keeps nothing
// but its partial file, and is replayed again by the same command). It
// returns the first point's error.
func (j Full) Run(ctx context.Context) error {
	searchDir := filepath.Join(j.Dir, SearchDir)
	s, err := readSearchFile(searchDir)
	if err != nil {
		return err
	}
	if s == nil {
		return fmt.Errorf("%s holds no search: run the search first (make cloudflare-search)", escape.Visible(searchDir))
	}
	jobs, err := j.jobs(s)
	if err != nil {
		return err
	}
	var (
		mu       sync.Mutex
		firstErr error
		wg       sync.WaitGroup
	)
	slots := make(chan struct{}, max(1, j.Workers))
	for _, job := range jobs {
		slots <- struct{}{}
		if ctx.Err() != nil {
			break // interrupted: the points under way keep theirs
		}
		wg.Add(1)
		go func() {
			defer func() { <-slots; wg.Done() }()
			if err := job.Run(ctx); err != nil {
				mu.Lock()
				if firstErr == nil {
					firstErr = err
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if firstErr == nil && ctx.Err() != nil {
		return ctx.Err()
	}
	return firstErr
}

// jobs returns the search of one point that replays each of the closest
// points of s into its folder, the closest first.
func (j Full) jobs(s *summary.CloudflareSearch) ([]Search, error) {
	var out []Search
	n := j.Points
	if n == 0 {
		n = report.CloudflareFullPoints
	}
	for k, i := range report.CloudflareClosest(s, n) {
		g, flags, err := pointGrid(&s.Points[i], j.Pop)
		if err != nil {
			return nil, err
		}
		out = append(out, Search{Dir: filepath.Join(j.Dir, SearchDir, fullDir, strconv.Itoa(k+1)), Grid: g, Pop: j.Pop, Workers: 1,
			Flags: flags, Force: j.Force, Stdout: j.Stdout, Stderr: j.Stderr})
	}
	return out, nil
}

// pointGrid returns the grid of the one point p and the flags that replay
// it on pop, as the command line gives them (by name), for the command
// its summary records.
func pointGrid(p *summary.SearchPoint, pop Population) (Grid, []Flag, error) {
	rule, err := algorithms.ParseRule(p.Rule)
	if err != nil {
		return Grid{}, nil, fmt.Errorf("the search's point of rule %s: %v", escape.Visible(p.Rule), err)
	}
	g := Grid{Rules: []algorithms.Rule{rule}, Rates: []float64{p.Rate}, Alphas: []float64{p.Alpha}, Maxes: []float64{p.Max},
		Blocks: []string{p.Block}, Algs: []string{p.Algorithm}}
	if err := g.Check(pop); err != nil {
		return Grid{}, nil, err
	}
	block := p.Block
	if block == "" {
		block = "0"
	}
	flags := []Flag{{"alpha", numbers([]float64{p.Alpha})[0]}, {"block", block}, {"max", numbers([]float64{p.Max})[0]},
		{"rate", numbers([]float64{p.Rate})[0]}, {"requests", strconv.FormatInt(pop.Requests, 10)}, {"rule", p.Rule},
		{"sources", strconv.Itoa(pop.Sources)}}
	if pop.Seed != Published().Seed {
		flags = append(flags, Flag{"seed", strconv.FormatUint(pop.Seed, 10)})
	}
	if p.Algorithm != "counter" {
		flags = append(flags, Flag{"search", "alg=" + p.Algorithm})
	}
	sort.Slice(flags, func(a, b int) bool { return flags[a].Name < flags[b].Name })
	return g, flags, nil
}
