package algorithms

import (
	"fmt"
	"strings"
)

// ParseRules parses layered rules "L/W+L/W+...", each layer as ParseRule
// reads it: "5/1s+100/1m". A single rule is one layer.
func ParseRules(s string) ([]Rule, error) {
	parts := strings.Split(s, "+")
	rules := make([]Rule, 0, len(parts))
	for _, p := range parts {
		if strings.TrimSpace(p) == "" {
			return nil, fmt.Errorf("rules %q: empty layer; want L/W or L/W+L/W..., e.g. 5/1s+100/1m", s)
		}
		r, err := ParseRule(p)
		if err != nil {
			return nil, fmt.Errorf("rules %q: %w", s, err)
		}
		rules = append(rules, r)
	}
	return rules, nil
}

// FormatRules writes layered rules as ParseRules reads them: "5/1s+100/1m".
func FormatRules(rules []Rule) string {
	parts := make([]string, len(rules))
	for i, r := range rules {
		parts[i] = r.String()
	}
	return strings.Join(parts, "+")
}

// Layered is one algorithm under several rules at once (docs/definitions.md §12, rules
// "5/1s+100/1m"): a request is admitted iff every layer admits it, and
// recording it records it in every layer. Each layer is the plain limiter
// of its rule, so the caller's counting policy applies to all of them
// alike: under the default policy a layer counts what the whole stack
// admitted, not what it alone would have.
//
// Layered does not implement Estimator: there is no single window to
// estimate. It implements RetryAfterer when its layers do.
//
// Memory: the sum of the layers' states.
type Layered struct {
	layers []Limiter
	rules  []Rule
}

// NewLayered returns the algorithm named by spec (as New reads it) under
// every rule of rules, layered. One rule gives a limiter that decides as
// the plain one.
func NewLayered(spec string, rules []Rule) (Limiter, error) {
	if len(rules) == 0 {
		return nil, fmt.Errorf("layered %q: no rule", spec)
	}
	ly := &Layered{rules: append([]Rule(nil), rules...)}
	for _, r := range rules {
		l, err := New(spec, r)
		if err != nil {
			return nil, err
		}
		ly.layers = append(ly.layers, l)
	}
	return ly, nil
}

// LayeredOf layers limiters that already exist, one per rule of rules, in
// the same order (a caller that keeps its own layers, such as a layered
// reference, uses it for RetryAfter).
func LayeredOf(layers []Limiter, rules []Rule) *Layered {
	return &Layered{layers: append([]Limiter(nil), layers...), rules: append([]Rule(nil), rules...)}
}

// Name is the spec of the layers' algorithm, as New reads it; the rules
// are Rules.
func (ly *Layered) Name() string { return ly.layers[0].Name() }

// Rules returns the rules of the layers, in order.
func (ly *Layered) Rules() []Rule { return append([]Rule(nil), ly.rules...) }

// Layers returns the limiter of each rule, in order (for inspection: their
// state is the layered limiter's).
func (ly *Layered) Layers() []Limiter { return append([]Limiter(nil), ly.layers...) }

// Decide asks every layer (each advances to t, so that RetryAfter finds
// them all there) and admits iff all admit.
func (ly *Layered) Decide(id int32, t, cost int64) bool {
	ok := true
	for _, l := range ly.layers {
		if !l.Decide(id, t, cost) {
			ok = false
		}
	}
	return ok
}

func (ly *Layered) Record(id int32, t, cost int64) {
	for _, l := range ly.layers {
		l.Record(id, t, cost)
	}
}

func (ly *Layered) Grow(n int) {
	for _, l := range ly.layers {
		l.Grow(n)
	}
}

// Bytes is the sum of the layers' sizes.
func (ly *Layered) Bytes(id int32) int64 {
	var n int64
	for _, l := range ly.layers {
		n += l.Bytes(id)
	}
	return n
}

func (ly *Layered) FixedSize() bool {
	for _, l := range ly.layers {
		if !l.FixedSize() {
			return false
		}
	}
	return true
}

func (ly *Layered) CountsRejected() bool { return ly.layers[0].CountsRejected() }

// CountsEvery: the layers' algorithm counts every request (EveryCounter).
func (ly *Layered) CountsEvery() bool { return CountsEvery(ly.layers[0]) }

// CouplesKeys: the layers are the same algorithm; one that couples keys
// couples them in every layer.
func (ly *Layered) CouplesKeys() bool { return CouplesKeys(ly.layers[0]) }

// RetryAfter returns the earliest time every layer admits: starting from
// t, it moves to each layer's own RetryAfter in turn and repeats until one
// pass over the layers moves no more (a fixed point). Each layer's answer
// is the earliest time at or after the current one that it admits, so no
// earlier time can satisfy all of them. ok is false when some layer never
// admits the request, or does not implement RetryAfterer.
func (ly *Layered) RetryAfter(id int32, t, cost int64) (int64, bool) {
	r := t
	for moved := true; moved; {
		moved = false
		for _, l := range ly.layers {
			ra, can := l.(RetryAfterer)
			if !can {
				return 0, false
			}
			lr, ok := ra.RetryAfter(id, r, cost)
			if !ok {
				return 0, false
			}
			if lr > r {
				r, moved = lr, true
			}
		}
	}
	return r, true
}

// PrimaryRule returns the layer whose window is the longest and, of those,
// whose limit is the smallest: the window over which the burst, phases and
// timelines of layered rules are measured, and the limit that binds over
// it (a layer of the same window and a larger limit never refuses what
// that one admits), which the burst is a ratio to. Of a single-layer set,
// its one rule.
func PrimaryRule(rules []Rule) Rule {
	p := rules[0]
	for _, r := range rules[1:] {
		if r.W > p.W || (r.W == p.W && r.L < p.L) {
			p = r
		}
	}
	return p
}
