package compare

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"ratebench/algorithms"
	"ratebench/summary"
)

// ParseSweep reads a grid of rules, "L=5,10,50;W=1s,1m": every limit with
// every window (either axis may be left out, the other taken from base).
// It returns the grid and its rules, limits varying fastest.
func ParseSweep(spec string, base algorithms.Rule) (*summary.Sweep, []algorithms.Rule, error) {
	sw := &summary.Sweep{}
	for _, part := range strings.Split(spec, ";") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		axis, list, ok := strings.Cut(part, "=")
		if !ok {
			return nil, nil, fmt.Errorf("sweep %q: want L=5,10;W=1s,1m", spec)
		}
		for _, v := range strings.Split(list, ",") {
			v = strings.TrimSpace(v)
			switch strings.ToUpper(strings.TrimSpace(axis)) {
			case "L":
				l, err := strconv.ParseInt(v, 10, 64)
				if err != nil || l < 1 {
					return nil, nil, fmt.Errorf("sweep %q: limit %q is not a positive integer", spec, v)
				}
				sw.L = append(sw.L, l)
			case "W":
				w, err := time.ParseDuration(v)
				if err != nil || w <= 0 {
					return nil, nil, fmt.Errorf("sweep %q: window %q is not a positive duration", spec, v)
				}
				sw.W = append(sw.W, algorithms.FormatWindow(int64(w)))
			default:
				return nil, nil, fmt.Errorf("sweep %q: unknown axis %q (want L or W)", spec, axis)
			}
		}
	}
	if len(sw.L) == 0 {
		sw.L = []int64{base.L}
	}
	if len(sw.W) == 0 {
		sw.W = []string{algorithms.FormatWindow(base.W)}
	}
	var rules []algorithms.Rule
	for _, w := range sw.W {
		d, _ := time.ParseDuration(w)
		for _, l := range sw.L {
			rules = append(rules, algorithms.Rule{L: l, W: int64(d)})
		}
	}
	return sw, rules, nil
}

// ParseRate reads a rate as a percentage ("0.01%") or a fraction
// ("0.0001"), for budgets.
func ParseRate(s string) (float64, error) {
	s = strings.TrimSpace(s)
	pct := strings.HasSuffix(s, "%")
	v, err := strconv.ParseFloat(strings.TrimSuffix(s, "%"), 64)
	if err != nil || math.IsNaN(v) || v < 0 {
		return 0, fmt.Errorf("rate %q: want a percentage such as 0.01%% or a fraction such as 0.0001", s)
	}
	if pct {
		v /= 100
	}
	if v > 1 {
		return 0, fmt.Errorf("rate %q is above 100%%", s)
	}
	if v == 0 {
		v = 0 // not -0
	}
	return v, nil
}
