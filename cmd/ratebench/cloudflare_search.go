package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"ratebench/algorithms"
	"ratebench/experiments/cloudflare"
	"ratebench/internal/escape"
	"ratebench/summary"
	"ratebench/summary/resultsdir"
)

// The search's default population: the full-scale experiment's traffic per
// source (400M requests from 270,000 sources) from a hundredth of the
// sources, so that each point replays in seconds.
const (
	searchRequests = 4_000_000
	searchSources  = 2_700
	cfFullSources  = 270_000
)

// parseSearch reads a grid "L=20,100;W=10s,1m;rate=0.05,0.2;alpha=1.5,3;
// max=5,1000;block=0,1m,window;alg=counter,counter-floor" (block=0: no
// mitigation timeout); an axis
// left out takes the single value of base, an axis given twice is refused
// (as is a value given twice, by Grid.Check).
func parseSearch(spec string, base cloudflare.Grid) (cloudflare.Grid, error) {
	g := cloudflare.Grid{}
	var lw []string
	given := map[string]bool{}
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
		if given[strings.ToLower(axis)] {
			return g, fmt.Errorf("search %q: axis %s is given twice; give its values once, in one list (%s=v1,v2)", spec, axis, axis)
		}
		given[strings.ToLower(axis)] = true
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
					g.Rates = append(g.Rates, f)
				case "alpha":
					g.Alphas = append(g.Alphas, f)
				default:
					g.Maxes = append(g.Maxes, f)
				}
			case "alg":
				if _, err := algorithms.New(v, base.Rules[0]); err != nil {
					return g, fmt.Errorf("search %q: %v", spec, err)
				}
				g.Algs = append(g.Algs, v)
			case "block":
				b, err := parseBlock(v)
				if err != nil {
					return g, fmt.Errorf("search %q: %v", spec, err)
				}
				g.Blocks = append(g.Blocks, b)
			default:
				return g, fmt.Errorf("search %q: unknown axis %q (want L, W, rate, alpha, max, block or alg)", spec, axis)
			}
		}
	}
	g.Rules = base.Rules
	if len(lw) > 0 {
		_, rules, err := summary.ParseSweep(strings.Join(lw, ";"), base.Rules[0])
		if err != nil {
			return g, err
		}
		g.Rules = rules
	}
	if len(g.Rates) == 0 {
		g.Rates = base.Rates
	}
	if len(g.Alphas) == 0 {
		g.Alphas = base.Alphas
	}
	if len(g.Maxes) == 0 {
		g.Maxes = base.Maxes
	}
	if len(g.Blocks) == 0 {
		g.Blocks = base.Blocks
	}
	if len(g.Algs) == 0 {
		g.Algs = base.Algs
	}
	return g, nil
}

// parseBlock reads a mitigation timeout: "0" or "none" for none, "window"
// for till the window's end, or a positive duration. Nothing ("block=")
// is refused, as in an algorithm's spec: it never means none.
func parseBlock(v string) (string, error) {
	switch v {
	case "0", "none":
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
	if kind, _ := resultsdir.KindOf(dir); kind != resultsdir.KindSearch {
		return nil, fmt.Errorf("%s is not the summary of a search: it holds no points", escape.Visible(filepath.Join(dir, summaryFile)))
	}
	if base := filepath.Base(dir); base != searchCheckDir && base != searchFullDir {
		if s.Check, err = readSearch(filepath.Join(dir, searchCheckDir)); err != nil {
			return nil, err
		}
		if s.Full, err = readSearch(filepath.Join(dir, searchFullDir)); err != nil {
			return nil, err
		}
	}
	return &s, nil
}

// searchCheckDir is the folder, inside a search's, of the closest point's
// rerun with more sources (make cloudflare-search writes it), and
// searchFullDir that of its replay at full scale (make cloudflare-full).
const (
	searchCheckDir = "check"
	searchFullDir  = "full"
)
