package summary

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"ratebench/algorithms"
)

// ParseSweep reads a grid of rules, "L=5,10,50;W=1s,1m": every limit with
// every window (either axis may be left out, the other taken from base).
// It returns the grid and its rules, limits varying fastest. An axis or a
// value given twice is refused: its rules would be replayed twice.
func ParseSweep(spec string, base algorithms.Rule) (*Sweep, []algorithms.Rule, error) {
	sw := &Sweep{}
	given := map[string]bool{}
	for _, part := range strings.Split(spec, ";") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		axis, list, ok := strings.Cut(part, "=")
		if !ok {
			return nil, nil, fmt.Errorf("sweep %q: want L=5,10;W=1s,1m", spec)
		}
		axis = strings.ToUpper(strings.TrimSpace(axis))
		if given[axis] {
			return nil, nil, fmt.Errorf("sweep %q: axis %s is given twice; give its values once, in one list (%s=v1,v2)", spec, axis, axis)
		}
		given[axis] = true
		for _, v := range strings.Split(list, ",") {
			v = strings.TrimSpace(v)
			switch axis {
			case "L":
				l, err := strconv.ParseInt(v, 10, 64)
				if err != nil || l < 1 {
					return nil, nil, fmt.Errorf("sweep %q: limit %q is not a positive integer", spec, v)
				}
				if slices.Contains(sw.L, l) {
					return nil, nil, fmt.Errorf("sweep %q: limit %d is given twice; give each value once", spec, l)
				}
				sw.L = append(sw.L, l)
			case "W":
				w, err := time.ParseDuration(v)
				if err != nil || w <= 0 {
					return nil, nil, fmt.Errorf("sweep %q: window %q is not a positive duration", spec, v)
				}
				if slices.Contains(sw.W, algorithms.FormatWindow(int64(w))) {
					return nil, nil, fmt.Errorf("sweep %q: window %s is given twice; give each value once", spec, algorithms.FormatWindow(int64(w)))
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
