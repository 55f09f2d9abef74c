package algorithms

import (
	"fmt"
	"strconv"
	"strings"
)

// DefaultSpecs is the algorithm set compared when none is named.
var DefaultSpecs = []string{"log", "counter", "counter-lt", "counter-floor", "fixed", "token", "gcra", "buckets:4"}

// textbook is the catalogue's part of this package: the textbook
// algorithms and the peer library, in the order help texts list them,
// then the templates any spec may take (no Build). The deployed products
// register themselves, each from its own file (Register).
var textbook = []Kind{
	{Spec: "log", About: "sliding window log: the exact reference", Build: NoParams(func(r Rule) Limiter { return NewLog(r) })},
	{Spec: "counter", About: "sliding window counter: prev*(W-e)/W + curr + cost <= L", Build: NoParams(func(r Rule) Limiter { return NewCounter(r) })},
	{Spec: "counter-lt", About: "counter admitting iff prev*(W-e)/W + curr < L, as in a common Redis Lua snippet", Build: NoParams(func(r Rule) Limiter { return NewCounterLT(r) })},
	{Spec: "counter-floor", About: "counter with the weighted previous count rounded down (with cost 1 it decides as counter-lt, and as Upstash's slidingWindow without its cache)", Build: NoParams(func(r Rule) Limiter { return NewCounterFloor(r) })},
	{Spec: "fixed", About: "fixed window: curr + cost <= L", Build: NoParams(func(r Rule) Limiter { return NewFixed(r) })},
	{Spec: "token[:B=N]", About: "token bucket, L/W tokens per unit time, capacity B (default L)", Build: withBurst(func(r Rule, b int64) Limiter { return NewToken(r, b) })},
	{Spec: "gcra[:B=N]", About: "generic cell rate algorithm, emission interval W/L, burst B; decides as token", Build: withBurst(func(r Rule, b int64) Limiter { return NewGCRA(r, b) })},
	{Spec: "xrate[:B=N]", About: "peer library golang.org/x/time/rate: float64 token bucket, rate L/W, burst B (default L)", Build: withBurst(func(r Rule, b int64) Limiter { return NewXRate(r, b) })},
	{Spec: "buckets:N", Default: "buckets:4", About: "sliding window over N sub-windows of width W/N; buckets:1 = counter", Build: buildBuckets},
	{Spec: "leaky[:B=N]", About: "leaky bucket as a queue (shaper), capacity B (default L), drains one unit every W/L; admits as token, with a delay", Build: withBurst(func(r Rule, b int64) Limiter { return NewLeaky(r, b) })},
	{Spec: "ALG:block[=D]", About: "any algorithm behind a refusal cache: a key it refuses is refused until the end of the rule's window (block), or for D (block=D)"},
	{Spec: "PRODUCT:without=NAME", About: "a deployed product with one of its deviations from its textbook algorithm turned off"},
}

// NoParams is the Build of a kind that takes no parameter.
func NoParams(build func(Rule) Limiter) func(Call, Rule) (Limiter, error) {
	return func(c Call, r Rule) (Limiter, error) {
		if err := c.NoArg(); err != nil {
			return nil, err
		}
		return build(r), nil
	}
}

// withBurst is the Build of a kind that takes a capacity, ":B=N" (0 when
// not given: the kind's default).
func withBurst(build func(Rule, int64) Limiter) func(Call, Rule) (Limiter, error) {
	return func(c Call, r Rule) (Limiter, error) {
		var b int64
		if c.HasArg {
			v, ok := strings.CutPrefix(c.Arg, "B=")
			n, err := strconv.ParseInt(v, 10, 64)
			if !ok || err != nil || n < 1 {
				return nil, fmt.Errorf("algorithm %q: want %s:B=N with N a positive integer", c.Spec, c.Name)
			}
			b = n
		}
		return build(r, b), nil
	}
}

// buildBuckets builds buckets:N.
func buildBuckets(c Call, r Rule) (Limiter, error) {
	n, err := strconv.ParseInt(c.Arg, 10, 64)
	if !c.HasArg || err != nil {
		return nil, fmt.Errorf("algorithm %q: want buckets:N with N a positive integer", c.Spec)
	}
	return NewBuckets(r, n)
}

// New builds the limiter named by spec for rule r. Besides its own
// parameters, any spec takes ":block" or ":block=D" (a refusal cache, see
// Blocked) and a product's ":without=NAME" (a deviation turned off, see
// Product). A parameter written with '=' and no value ("block=",
// "gcra:B=") is refused, naming it: it never means the default.
func New(spec string, r Rule) (Limiter, error) {
	g, err := splitGeneric(spec)
	if err != nil {
		return nil, err
	}
	l, err := newBase(g.spec, r)
	if err != nil {
		return nil, err
	}
	if g.empty != "" {
		return nil, fmt.Errorf("algorithm %q: %s= needs a value", spec, g.empty)
	}
	return applyGeneric(l, g, spec, r)
}

// newBase builds the limiter named by spec, without generic parameters,
// with the Build of the kind its name names.
func newBase(spec string, r Rule) (Limiter, error) {
	name, arg, hasArg := strings.Cut(strings.TrimSpace(spec), ":")
	k, ok := kindOf(name)
	if !ok {
		return nil, fmt.Errorf("unknown algorithm %q (known: %s)", spec, knownSpecs())
	}
	return k.Build(Call{Spec: spec, Name: name, Arg: arg, HasArg: hasArg}, r)
}

// knownSpecs lists the catalogue's specs, for an error.
func knownSpecs() string {
	var names []string
	for _, k := range Catalogue() {
		names = append(names, k.Spec)
	}
	return strings.Join(names, ", ")
}
