package cloudflare

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"ratebench/algorithms"
	"ratebench/summary"
)

// ParseGrid reads a grid "L=20,100;W=10s,1m;rate=0.05,0.2;alpha=1.5,3;
// max=5,1000;block=0,1m,window;alg=counter,counter-floor" (block=0: no
// mitigation timeout); an axis left out takes the single value of base,
// an axis given twice is refused (as is a value given twice, by
// Grid.Check).
func ParseGrid(spec string, base Grid) (Grid, error) {
	g := Grid{}
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
				b, err := ParseBlock(v)
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

// ParseBlock reads a mitigation timeout: "0" or "none" for none, "window"
// for till the window's end, or a positive duration. Nothing ("block=")
// is refused, as in an algorithm's spec: it never means none.
func ParseBlock(v string) (string, error) {
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
