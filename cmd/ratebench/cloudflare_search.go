package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"ratebench/algorithms"
	"ratebench/compare"
	"ratebench/generators"
	"ratebench/report"
	"ratebench/summary"
)

// The search's default population: the full-scale experiment's traffic per
// source (400M requests from 270,000 sources) from a hundredth of the
// sources, so that each point replays in seconds.
const (
	searchRequests = 4_000_000
	searchSources  = 2_700
	cfFullSources  = 270_000
)

// searchGrid is the space a search covers: every combination of its
// values.
type searchGrid struct {
	rules  []algorithms.Rule
	rates  []float64
	alphas []float64
	maxes  []float64 // the population's cap on a rate, × the mean rate
	blocks []string  // "" (none), "window" or a duration
	algs   []string  // the candidates: counter and its variants
}

// parseSearch reads a grid "L=20,100;W=10s,1m;rate=0.05,0.2;alpha=1.5,3;
// max=5,1000;block=0,1m,window;alg=counter,counter-floor" (block=0: no
// mitigation timeout); an axis
// left out takes the single value of base.
func parseSearch(spec string, base searchGrid) (searchGrid, error) {
	g := searchGrid{}
	var lw []string
	for _, part := range strings.Split(spec, ";") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		axis, list, ok := strings.Cut(part, "=")
		if !ok {
			return g, fmt.Errorf("search %q: want AXIS=v1,v2;... with axes L, W, rate, alpha, max, block, alg", spec)
		}
		axis = strings.TrimSpace(axis)
		switch strings.ToLower(axis) {
		case "l", "w":
			lw = append(lw, part)
			continue
		}
		for _, v := range strings.Split(list, ",") {
			v = strings.TrimSpace(v)
			switch strings.ToLower(axis) {
			case "rate", "alpha", "max":
				f, err := strconv.ParseFloat(v, 64)
				if err != nil {
					return g, fmt.Errorf("search %q: %s %q is not a number", spec, axis, v)
				}
				switch strings.ToLower(axis) {
				case "rate":
					g.rates = append(g.rates, f)
				case "alpha":
					g.alphas = append(g.alphas, f)
				default:
					g.maxes = append(g.maxes, f)
				}
			case "alg":
				if _, err := algorithms.New(v, base.rules[0]); err != nil {
					return g, fmt.Errorf("search %q: %v", spec, err)
				}
				g.algs = append(g.algs, v)
			case "block":
				b, err := parseBlock(v)
				if err != nil {
					return g, fmt.Errorf("search %q: %v", spec, err)
				}
				g.blocks = append(g.blocks, b)
			default:
				return g, fmt.Errorf("search %q: unknown axis %q (want L, W, rate, alpha, max, block or alg)", spec, axis)
			}
		}
	}
	g.rules = base.rules
	if len(lw) > 0 {
		_, rules, err := parseSweep(strings.Join(lw, ";"), base.rules[0])
		if err != nil {
			return g, err
		}
		g.rules = rules
	}
	if len(g.rates) == 0 {
		g.rates = base.rates
	}
	if len(g.alphas) == 0 {
		g.alphas = base.alphas
	}
	if len(g.maxes) == 0 {
		g.maxes = base.maxes
	}
	if len(g.blocks) == 0 {
		g.blocks = base.blocks
	}
	if len(g.algs) == 0 {
		g.algs = base.algs
	}
	return g, nil
}

// parseBlock reads a mitigation timeout: "0" or "none" for none, "window"
// for till the window's end, or a positive duration.
func parseBlock(v string) (string, error) {
	switch v {
	case "", "0", "none":
		return "", nil
	case "window":
		return "window", nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return "", fmt.Errorf("block %q is not a positive duration (e.g. 1m), window (till the window's end) or 0 (none)", v)
	}
	return algorithms.FormatWindow(int64(d)), nil
}

// searchPoint is one combination of a grid.
type searchPoint struct {
	rule              algorithms.Rule
	rate, alpha, maxR float64
	block             string
	alg               string
}

func (g searchGrid) points() []searchPoint {
	var out []searchPoint
	for _, r := range g.rules {
		for _, rate := range g.rates {
			for _, a := range g.alphas {
				for _, m := range g.maxes {
					for _, b := range g.blocks {
						for _, alg := range g.algs {
							out = append(out, searchPoint{r, rate, a, m, b, alg})
						}
					}
				}
			}
		}
	}
	return out
}

// runSearch replays every point of g through the log and the counter
// behind the same mitigation timeout, under count all, on the points'
// populations of requests and sources; points run side by side on
// workers goroutines, and the result does not depend on how many.
func runSearch(g searchGrid, requests int64, sources int, seed uint64, workers int) ([]summary.SearchPoint, error) {
	pts := g.points()
	out := make([]summary.SearchPoint, len(pts))
	errs := make([]error, len(pts))
	next := make(chan int)
	var wg sync.WaitGroup
	for range max(1, workers) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				out[i], errs[i] = searchOne(pts[i], requests, sources, seed)
			}
		}()
	}
	for i := range pts {
		next <- i
	}
	close(next)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

func searchOne(p searchPoint, requests int64, sources int, seed uint64) (summary.SearchPoint, error) {
	spec := fmt.Sprintf("population:requests=%d,sources=%d,rate=%g,alpha=%g,max=%g,seed=%d", requests, sources, p.rate, p.alpha, p.maxR, seed)
	gen, err := generators.New(spec, generators.Params{})
	if err != nil {
		return summary.SearchPoint{}, usageError{err.Error()}
	}
	res, err := compare.ReplayPair(gen, compare.Pair{Rule: p.rule, Candidate: p.alg, Block: p.block, Count: compare.CountAll})
	if err != nil {
		return summary.SearchPoint{}, err
	}
	pt := summary.SearchPoint{Rule: algorithms.FormatRules([]algorithms.Rule{p.rule}), Algorithm: p.alg, Rate: p.rate, Alpha: p.alpha, Max: p.maxR, Block: p.block, PairResult: res}
	return pt, nil
}

// writeSearch writes the search's summary.json, its plot and README.md
// into dir.
func writeSearch(stdout io.Writer, dir string, s *summary.CloudflareSearch) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "summary.json"), append(data, '\n'), 0o644); err != nil {
		return err
	}
	if err := writeSearchPages(dir, s); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s (%d points)\n", filepath.Join(dir, "summary.json"), len(s.Points))
	return nil
}

// writeSearchPages writes the search's plot and README.md into dir, from
// its summary alone.
func writeSearchPages(dir string, s *summary.CloudflareSearch) error {
	files, err := report.CloudflareSearchPlots(s)
	if err != nil {
		return err
	}
	for _, f := range files {
		if err := os.WriteFile(filepath.Join(dir, f.Name), f.Data, 0o644); err != nil {
			return err
		}
	}
	var buf bytes.Buffer
	if err := report.CloudflareSearchREADME(&buf, s, ""); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, readmeFile), buf.Bytes(), 0o644)
}

// readSearch reads a search's summary.json; nil if there is none.
func readSearch(dir string) (*summary.CloudflareSearch, error) {
	data, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var s summary.CloudflareSearch
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("%s: %v", filepath.Join(dir, "summary.json"), err)
	}
	if filepath.Base(dir) != searchCheckDir {
		if s.Check, err = readSearch(filepath.Join(dir, searchCheckDir)); err != nil {
			return nil, err
		}
	}
	return &s, nil
}

// searchCheckDir is the folder, inside a search's, of the closest point's
// rerun with more sources (make cloudflare-search writes it).
const searchCheckDir = "check"
