package compare

import (
	"fmt"
	"slices"
	"strings"

	"ratebench/algorithms"
	"ratebench/compare/clients"
	"ratebench/summary"
)

// Mode is when a candidate records a request (docs/definitions.md §3).
type Mode string

const (
	Independent Mode = "independent" // the candidate admitted it
	Shadow      Mode = "shadow"      // the reference admitted it
)

// Count is the counting policy (docs/definitions.md §3).
type Count string

const (
	CountAccepted Count = "accepted" // only admitted requests are counted
	CountAll      Count = "all"      // every request is counted
)

// Config says which experiments to run. The zero value of a field means its
// default (DefaultConfig), so fields can be added later.
type Config struct {
	Rules []algorithms.Rule
	// Layered are layered rules (docs/definitions.md §12), each one experiment like a
	// rule of Rules: a request is admitted iff every layer admits it.
	Layered [][]algorithms.Rule
	// Algorithms are the candidates' specs, or names of sets of them
	// (algorithms.Sets: products, textbook); the reference log is always
	// run. A kind a set brings in that a rule cannot express is left out,
	// and the summary says so in its notes.
	Algorithms []string
	// Reference is the reference's spec: "log" (the default), the exact
	// sliding log, or the log behind a refusal cache, "log:block" (till
	// the window's end) or "log:block=D" (for D from a refusal, as
	// Cloudflare's mitigation timeout): the candidates are then measured
	// against the exact mechanism that cache makes (see ReferenceOf).
	Reference string
	Modes     []Mode
	Counts    []Count
	// TopKeys is how many keys each run lists by disagreement (default 10).
	TopKeys int
	// Sweep, if the rules come from a sweep, is recorded in the summary so
	// that a report can draw the curves.
	Sweep *summary.Sweep
	// Budget, if set, is recorded in the summary for the report's decision
	// section.
	Budget *summary.Budget
	// Workers is how many goroutines replay the keys, each a share of them
	// by hash (default 1, at most MaxWorkers). The summary is the same,
	// byte for byte, for any number.
	Workers int
	// Shard, if set, limits the replay to the keys of one shard (see
	// KeyHash); summary.Merge combines the summaries of all shards.
	Shard *summary.Shard
	// Clients, if set, adds closed-loop replays: for every plain rule and
	// algorithm, clients that re-send what they are refused, by each
	// policy (package clients); ClientSeed seeds their backoff jitter.
	Clients    []clients.Policy
	ClientSeed uint64
	// Deployment, if set, adds simulated distributed deployments of the
	// window algorithms (package distributed).
	Deployment *summary.Deployment
	// Deviations, if set, weighs each product's deviations (compare
	// -deviations): beside a product and its twin, the product with each
	// deviation alone turned off is replayed too, one more replay per
	// deviation and mode, and the product's analysis gives each deviation's
	// share of its disagreement with the twin. Unset, a product is replayed
	// once beside its twin, and its analysis records that its deviations
	// were not measured (summary.Product.DeviationsNotMeasured).
	Deviations bool

	// tuning is what only the tests set; its zero value is the harness's.
	tuning tuning
	// skipped are the kinds a set of Algorithms brought in that a rule
	// cannot express, left out (set by normalize).
	skipped []algorithms.Skipped
}

// MaxWorkers is the most workers a Config may ask for: more goroutines
// than cores only divide the keys finer.
const MaxWorkers = 256

// tuning are the engine's internal settings that tests change, kept in the
// Config (not in package variables) so that tests can run in parallel.
type tuning struct {
	// minSweep is the number of live keys below which no sweep for idle
	// keys is made; 0 means defaultMinSweep.
	minSweep int
	// ownBurst makes the runs measure their burst from a window of their
	// own admissions rather than from the reference log and their
	// disagreements (count accepted) or refusals (count all), which must
	// agree.
	ownBurst bool
	// narrowMax lowers the count at which a key's over- or under-admissions
	// or burst in a run leave its row for the wide table (keyRows.limit);
	// 0 leaves the fields' own limits.
	narrowMax uint32
	// markCycle lowers the cycle of the window marks in a key's rows
	// (windowGrid.mark); 0 means markCycle.
	markCycle uint32
	// ownTwin makes a product's twin that is the exact log keep a log of
	// its own rather than share the reference's (refTwin).
	ownTwin bool
	// ownModes makes the runs of a limiter that records every request keep
	// a limiter of their own in each mode rather than share the first
	// mode's (mode_share.go).
	ownModes bool
	// ownShadow makes a shadow run keep its state of every key rather
	// than share its independent run's until the key's first disagreement
	// (lazy_shadow.go).
	ownShadow bool
	// heapBlock sets how many bytes of a worker's block come from the Go
	// heap before its arena (blockMemory); 0 means heapBlockBytes.
	heapBlock int
}

// DefaultConfig returns the defaults: rule 5/30s, every algorithm of
// algorithms.DefaultSpecs, both modes, count accepted, 10 top keys.
func DefaultConfig() Config {
	r, _ := algorithms.ParseRule("5/30s")
	return Config{
		Rules:      []algorithms.Rule{r},
		Algorithms: append([]string(nil), algorithms.DefaultSpecs...),
		Modes:      []Mode{Independent, Shadow},
		Counts:     []Count{CountAccepted},
		TopKeys:    10,
	}
}

// normalize fills defaults, puts the log first, drops duplicates and
// checks every spec against every rule.
func (c Config) normalize() (Config, error) {
	d := DefaultConfig()
	if len(c.Rules) == 0 && len(c.Layered) == 0 {
		c.Rules = d.Rules
	}
	for _, ls := range c.Layered {
		if len(ls) == 0 {
			return c, fmt.Errorf("a layered rule without layers")
		}
	}
	if len(c.Algorithms) == 0 {
		c.Algorithms = d.Algorithms
	}
	if c.Reference == "" {
		c.Reference = "log"
	}
	for _, set := range c.ruleSets() {
		_, b, err := ReferenceOf(c.Reference, algorithms.PrimaryRule(set))
		if err != nil {
			return c, err
		}
		if b != nil {
			c.Reference = b.Name() // canonical: log:block=1h
			if c.Clients != nil || c.Deployment != nil {
				return c, fmt.Errorf("reference %s: the closed-loop clients and the deployments are measured against the plain log only", c.Reference)
			}
		}
	}
	if len(c.Modes) == 0 {
		c.Modes = d.Modes
	}
	if len(c.Counts) == 0 {
		c.Counts = d.Counts
	}
	if c.TopKeys <= 0 {
		c.TopKeys = d.TopKeys
	}
	if c.Workers <= 0 {
		c.Workers = 1
	}
	if c.Workers > MaxWorkers {
		return c, fmt.Errorf("workers %d: at most %d (one per core is the most that helps)", c.Workers, MaxWorkers)
	}
	if d := c.Deployment; d != nil && (len(d.Nodes) == 0 || len(d.Sync) == 0 || len(d.Skew) == 0) {
		return c, fmt.Errorf("a deployment grid needs nodes, sync intervals and skews")
	}
	if c.Shard != nil && (c.Shard.Count < 1 || c.Shard.Index < 0 || c.Shard.Index >= c.Shard.Count) {
		return c, fmt.Errorf("shard %d/%d: want i/n with 0 <= i < n", c.Shard.Index, c.Shard.Count)
	}
	var rules []algorithms.Rule
	for _, set := range c.ruleSets() {
		rules = append(rules, set...)
	}
	got, err := algorithms.ParseSpecs(strings.Join(c.Algorithms, ","), rules...)
	if err != nil {
		return c, err
	}
	c.Algorithms, c.skipped = []string{"log"}, got.Skipped
	for _, s := range got.Names {
		if s != "log" {
			c.Algorithms = append(c.Algorithms, s)
		}
	}
	if coupled := c.coupled(); coupled != "" {
		if c.Shard != nil {
			return c, fmt.Errorf("%s couples keys (a key's decision depends on the others' requests): it must see every key in one replay, not shard %d/%d", coupled, c.Shard.Index, c.Shard.Count)
		}
		c.Workers = 1
	}
	if c.Modes, err = distinct(c.Modes, []Mode{Independent, Shadow}, "mode"); err != nil {
		return c, err
	}
	if c.Counts, err = distinct(c.Counts, []Count{CountAccepted, CountAll}, "count policy"); err != nil {
		return c, err
	}
	return c, nil
}

// coupled returns the first algorithm of c whose keys interact
// (algorithms.KeyCoupler), "" if none: the engine replays those with one
// worker.
func (c Config) coupled() string {
	for _, spec := range c.Algorithms {
		for _, set := range c.ruleSets() {
			if l, err := algorithms.New(spec, set[0]); err == nil && algorithms.CouplesKeys(l) {
				return l.Name()
			}
		}
	}
	return ""
}

// distinct returns the values of in without repeats, in order, checking
// each is one of valid.
func distinct[T ~string](in, valid []T, what string) ([]T, error) {
	var out []T
	for _, v := range in {
		if !slices.Contains(valid, v) {
			return nil, fmt.Errorf("unknown %s %q (want %s)", what, v, joinValues(valid))
		}
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out, nil
}

func joinValues[T ~string](vs []T) string {
	var ss []string
	for _, v := range vs {
		ss = append(ss, string(v))
	}
	return strings.Join(ss, " or ") + ", or several comma-separated"
}

// ruleSets returns every experiment's rules: each plain rule as a set of
// one, then the layered ones.
func (c Config) ruleSets() [][]algorithms.Rule {
	var out [][]algorithms.Rule
	for _, r := range c.Rules {
		out = append(out, []algorithms.Rule{r})
	}
	return append(out, c.Layered...)
}
