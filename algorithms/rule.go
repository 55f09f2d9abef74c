package algorithms

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Rule is a rate limit: at most L cost units per window of W nanoseconds.
type Rule struct {
	L int64
	W int64
}

// ParseRule parses "L/W" where L is a positive integer and W a Go duration:
// "100/1m", "5/30s", "10/1s".
func ParseRule(s string) (Rule, error) {
	ls, ws, ok := strings.Cut(strings.TrimSpace(s), "/")
	if !ok {
		return Rule{}, fmt.Errorf("rule %q: want L/W, e.g. 100/1m", s)
	}
	l, err := strconv.ParseInt(ls, 10, 64)
	if err != nil || l < 1 {
		return Rule{}, fmt.Errorf("rule %q: limit %q is not a positive integer", s, ls)
	}
	w, err := time.ParseDuration(ws)
	if err != nil || w <= 0 {
		return Rule{}, fmt.Errorf("rule %q: window %q is not a positive duration (e.g. 30s, 1m, 1h)", s, ws)
	}
	return Rule{L: l, W: int64(w)}, nil
}

// String formats the rule as ParseRule reads it, the window in its largest
// whole unit: "100/1m", "5/30s", "3/1500ms".
func (r Rule) String() string { return fmt.Sprintf("%d/%s", r.L, FormatWindow(r.W)) }

// FormatWindow writes a duration in ns with the largest unit that divides
// it exactly (h, m, s, ms, us, ns), so that "1m" stays "1m" and not "1m0s".
func FormatWindow(w int64) string {
	units := []struct {
		d    int64
		name string
	}{{int64(time.Hour), "h"}, {int64(time.Minute), "m"}, {int64(time.Second), "s"},
		{int64(time.Millisecond), "ms"}, {int64(time.Microsecond), "us"}}
	for _, u := range units {
		if w%u.d == 0 {
			return strconv.FormatInt(w/u.d, 10) + u.name
		}
	}
	return strconv.FormatInt(w, 10) + "ns"
}
