package cloudflare

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"ratebench/algorithms"
	"ratebench/generators"
	"ratebench/summary"
)

// MaxPoints is the most points one search runs: at the default population
// (4,000,000 requests) a point takes seconds, so this many take hours
// already. A larger grid is refused; split it into several searches.
const MaxPoints = 1000

// Grid is the space a search covers: every combination of its values.
type Grid struct {
	Rules  []algorithms.Rule
	Rates  []float64 // the mean requests per second per source
	Alphas []float64 // the Pareto tail index of the sources' rates
	Maxes  []float64 // the population's cap on a rate, × the mean rate
	Blocks []string  // "" (none), "window" or a duration
	Algs   []string  // the candidates: counter and its variants
}

// Point is one combination of a grid.
type Point struct {
	Rule              algorithms.Rule
	Rate, Alpha, MaxR float64
	Block             string
	Alg               string
}

// Size is the number of points of g.
func (g Grid) Size() int {
	return len(g.Rules) * len(g.Rates) * len(g.Alphas) * len(g.Maxes) * len(g.Blocks) * len(g.Algs)
}

// Points lists the combinations of g, in the order of its axes.
func (g Grid) Points() []Point {
	var out []Point
	for _, r := range g.Rules {
		for _, rate := range g.Rates {
			for _, a := range g.Alphas {
				for _, m := range g.Maxes {
					for _, b := range g.Blocks {
						for _, alg := range g.Algs {
							out = append(out, Point{r, rate, a, m, b, alg})
						}
					}
				}
			}
		}
	}
	return out
}

// The search's default population: the full-scale experiment's traffic
// per source from a hundredth of the sources, so that each point replays
// in seconds.
const (
	SearchRequests = summary.CloudflareRequests / 100
	SearchSources  = summary.CloudflareSources / 100
)

// Population is what every point of a search replays: a generated
// population of Requests requests from Sources sources, drawn with Seed.
type Population struct {
	Requests int64
	Sources  int
	Seed     uint64
}

// Check reports what would stop a search of g on pop before it replays
// anything: a grid of no point or of more than MaxPoints, an axis that
// gives a value twice (its points would be replayed twice), a candidate
// that is none (see checkCandidate), or a population that cannot be
// generated.
func (g Grid) Check(pop Population) error {
	switch n := g.Size(); {
	case n == 0:
		return errors.New("the search grid has no point")
	case n > MaxPoints:
		return fmt.Errorf("the search grid has %d points, more than the %d a search runs (each point replays %d requests); split it into smaller searches", n, MaxPoints, pop.Requests)
	}
	for _, alg := range g.Algs {
		if err := g.checkCandidate(alg); err != nil {
			return err
		}
	}
	if err := g.checkDistinct(); err != nil {
		return err
	}
	for _, rate := range g.Rates {
		for _, a := range g.Alphas {
			for _, m := range g.Maxes {
				if _, err := generators.New(pop.spec(Point{Rate: rate, Alpha: a, MaxR: m}), generators.Params{}); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// checkCandidate refuses an alg that is no candidate: not an algorithm,
// the log (the reference every point compares the candidate with), or an
// algorithm with a timeout of its own (a point puts the log and the
// candidate behind the block axis' timeout, the same for both); and
// checks the candidate each point builds of it, behind each timeout.
func (g Grid) checkCandidate(alg string) error {
	for _, r := range g.Rules {
		l, err := algorithms.New(alg, r)
		if err != nil {
			return err
		}
		blocked, hasBlock := l.(*algorithms.Blocked)
		if _, isLog := l.(*algorithms.Log); isLog || hasBlock && isLogLimiter(blocked.Inner()) {
			return fmt.Errorf("alg %s is the reference (each point compares its candidate with the log behind the point's timeout), not a candidate", alg)
		}
		if hasBlock {
			return fmt.Errorf("alg %s has a timeout of its own: a point puts the log and the candidate behind the same one, set by the block axis (block=...)", alg)
		}
		for _, b := range g.Blocks {
			_, cand := Point{Rule: r, Block: b, Alg: alg}.specs()
			if _, err := algorithms.New(cand, r); err != nil {
				return err
			}
		}
	}
	return nil
}

// isLogLimiter reports whether l is the exact log.
func isLogLimiter(l algorithms.Limiter) bool {
	_, ok := l.(*algorithms.Log)
	return ok
}

// checkDistinct refuses an axis of g that gives a value twice, which would
// replay its points twice: two rules, numbers or timeouts that are equal,
// or two candidates that name the same algorithm under every rule.
func (g Grid) checkDistinct() error {
	var rules, algs []string
	for _, r := range g.Rules {
		rules = append(rules, r.String())
	}
	for _, alg := range g.Algs {
		algs = append(algs, g.candidateName(alg))
	}
	for _, a := range []struct {
		name          string
		written, keys []string // as given, and what tells two values apart
	}{
		{"rule", rules, rules},
		{"rate", numbers(g.Rates), numbers(g.Rates)},
		{"alpha", numbers(g.Alphas), numbers(g.Alphas)},
		{"max", numbers(g.Maxes), numbers(g.Maxes)},
		{"block", g.Blocks, g.Blocks},
		{"alg", g.Algs, algs},
	} {
		first := map[string]int{}
		for i, k := range a.keys {
			j, seen := first[k]
			if !seen {
				first[k] = i
				continue
			}
			twice := a.written[i]
			switch {
			case a.written[j] != twice:
				twice = a.written[j] + " and " + twice + ", the same " + a.name + ","
			case twice == "":
				twice = "none (no timeout)"
			}
			return fmt.Errorf("the search grid gives %s %s twice: each of its points would be replayed twice; give each value once", a.name, twice)
		}
	}
	return nil
}

// numbers formats each of fs in the shortest form that reads back as it.
func numbers(fs []float64) []string {
	var out []string
	for _, f := range fs {
		out = append(out, strconv.FormatFloat(f, 'g', -1, 64))
	}
	return out
}

// candidateName is the names alg builds under each of g's rules, which
// tell two specs of the same algorithm apart (checkCandidate has built
// them).
func (g Grid) candidateName(alg string) string {
	var names []string
	for _, r := range g.Rules {
		l, err := algorithms.New(alg, r)
		if err != nil {
			return alg
		}
		names = append(names, l.Name())
	}
	return strings.Join(names, ",")
}

// spec is the generator spec of p's population.
func (pop Population) spec(p Point) string {
	return fmt.Sprintf("population:requests=%d,sources=%d,rate=%g,alpha=%g,max=%g,seed=%d", pop.Requests, pop.Sources, p.Rate, p.Alpha, p.MaxR, pop.Seed)
}
