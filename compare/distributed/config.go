package distributed

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
	"strconv"
	"strings"

	"ratebench/algorithms"
	"ratebench/internal/mix"
)

// Route is how the load balancer spreads a key's requests over the nodes
// (see the package doc).
type Route int

const (
	// Random sends each request to a uniformly drawn node.
	Random Route = iota
	// Hash sends every request of a key to node hash(key) mod N.
	Hash
	// RoundRobin sends the i-th request of a key to node (hash(key)+i) mod N.
	RoundRobin
)

// Routes lists the routes ParseRoute accepts, by their names.
var Routes = []Route{Random, Hash, RoundRobin}

func (r Route) String() string {
	switch r {
	case Random:
		return "random"
	case Hash:
		return "hash"
	case RoundRobin:
		return "roundrobin"
	}
	return fmt.Sprintf("route(%d)", int(r))
}

// ParseRoute reads a route name: random, hash or roundrobin.
func ParseRoute(s string) (Route, error) {
	for _, r := range Routes {
		if strings.TrimSpace(s) == r.String() {
			return r, nil
		}
	}
	return 0, fmt.Errorf("distributed: unknown route %q (known: random, hash, roundrobin)", s)
}

// MaxNodes is the largest number of nodes a Config may have.
const MaxNodes = 1 << 16

// MaxSkew is the largest clock skew a Config may have (about 146 years):
// it keeps 2*Skew+1 and the skewed clocks far from int64 overflow.
const MaxSkew = int64(1) << 62

// Supported lists the algorithm specs a Sim runs; buckets:N stands for any
// N (Supports tells whether a spec is one of them).
var Supported = []string{"log", "counter", "counter-lt", "counter-floor", "fixed", "buckets:N"}

// Supports reports whether a Sim runs the algorithm named by spec.
func Supports(spec string) bool {
	spec = strings.TrimSpace(spec)
	if n, ok := strings.CutPrefix(spec, "buckets:"); ok {
		_, err := strconv.ParseInt(n, 10, 64)
		return err == nil
	}
	for _, s := range Supported {
		if spec == s {
			return true
		}
	}
	return false
}

// Config is one simulated deployment.
type Config struct {
	// Spec is the algorithm: log, counter, counter-lt, counter-floor, fixed
	// or buckets:N (names as algorithms.New reads them).
	Spec string
	// Rule is the limit every node enforces for each key.
	Rule algorithms.Rule
	// Nodes is the number of nodes N >= 1 behind the load balancer.
	Nodes int
	// Route is how the balancer spreads a key's requests.
	Route Route
	// Sync is the period D >= 0 (ns, true time) of the nodes' exchanges
	// with the shared store, at the instants k*D; 0 is a central store.
	Sync int64
	// Skew is S >= 0 (ns): node clocks are offset within [-S, S], evenly
	// spread or, with SkewRandom, drawn from the seed.
	Skew       int64
	SkewRandom bool
	// CountAll records every request (--count all), in the nodes and in the
	// reference, instead of only what each admits.
	CountAll bool
	// Seed seeds the random route and the random skews (reported always).
	Seed uint64
}

// check validates c and returns its canonical algorithm name.
func (c *Config) check() (string, error) {
	spec := strings.TrimSpace(c.Spec)
	if !Supports(spec) {
		// Any valid rule will do: only the name is checked.
		if _, err := algorithms.New(spec, algorithms.Rule{L: 1, W: 3600e9}); err != nil {
			return "", fmt.Errorf("distributed: %w", err)
		}
		return "", fmt.Errorf("distributed: algorithm %q is not simulated distributed (supported: %s)", c.Spec, strings.Join(Supported, ", "))
	}
	switch {
	case c.Rule.L < 1 || c.Rule.W < 1:
		return "", fmt.Errorf("distributed: rule %d/%dns: limit and window must be positive", c.Rule.L, c.Rule.W)
	case c.Nodes < 1 || c.Nodes > MaxNodes:
		return "", fmt.Errorf("distributed: %d nodes: want 1 to %d", c.Nodes, MaxNodes)
	case c.Route < Random || c.Route > RoundRobin:
		return "", fmt.Errorf("distributed: unknown route %d", int(c.Route))
	case c.Sync < 0:
		return "", fmt.Errorf("distributed: negative sync period %d ns", c.Sync)
	case c.Skew < 0 || c.Skew > MaxSkew:
		return "", fmt.Errorf("distributed: skew %d ns: want 0 to %d", c.Skew, MaxSkew)
	}
	if strings.HasPrefix(spec, "buckets:") { // N must suit the rule
		l, err := algorithms.New(spec, c.Rule)
		if err != nil {
			return "", fmt.Errorf("distributed: %w", err)
		}
		spec = l.Name()
	}
	return spec, nil
}

// Skews returns each node's clock offset skew_j in ns (see the package doc).
func (c *Config) Skews() []int64 {
	n, S := c.Nodes, c.Skew
	out := make([]int64, max(n, 0))
	if S == 0 || n < 1 {
		return out
	}
	if c.SkewRandom {
		p := rand.NewPCG(mix.Mix64(c.Seed^0x736b6577), mix.Mix64(c.Seed+0x9e3779b97f4a7c15))
		for j := range out {
			out[j] = int64(mix.Uniform(p, uint64(2*S+1))) - S
		}
		return out
	}
	if n == 1 {
		return out
	}
	d := uint64(n - 1)
	for j := range out {
		a := int64(2*j - (n - 1))
		m := uint64(a)
		if a < 0 {
			m = uint64(-a)
		}
		hi, lo := bits.Mul64(uint64(S), m) // S*|a| <= S*(N-1): hi < N-1
		q, _ := bits.Div64(hi, lo, d)
		out[j] = int64(q)
		if a < 0 {
			out[j] = -int64(q)
		}
	}
	return out
}
