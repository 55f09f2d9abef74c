package main

import (
	"fmt"
	"runtime"

	"ratebench/compare"
)

// The bounds on the parameters that multiply what a run holds or how long
// it takes, so that a slip of the keyboard (-workers 100000, a sweep of
// 2,000 limits) fails at once with the limit, instead of running the
// machine out of memory. Each is far above any use the results call for.
// maxWorkers bounds -workers: the engine's own bound (every worker holds
// its share of the keys' state and buffers of its own; the results are the
// same for any number, and a few per core is the fastest).
const maxWorkers = compare.MaxWorkers

// defaultWorkers is -workers' default: one per core the runtime uses,
// within maxWorkers.
func defaultWorkers() int { return min(runtime.GOMAXPROCS(0), maxWorkers) }

const (
	// maxRules bounds the rules of one compare, -rule and -sweep together:
	// every rule is a run per algorithm, mode and count policy.
	maxRules = 100
	// maxAlgorithms bounds -alg: every algorithm is a run per rule, mode
	// and count policy, each keeping state per key.
	maxAlgorithms = 64
	// maxRuns bounds the runs of one compare, rules × algorithms × modes
	// × count policies: each keeps its state per key, its top keys, its
	// timeline and, with a report, its plots.
	maxRuns = 2000
)

// checkWorkers refuses a -workers above maxWorkers.
func checkWorkers(n int) error {
	if n > maxWorkers {
		return usageError{fmt.Sprintf("-workers %d: at most %d goroutines (the results are the same for any number; a few per core is the fastest)", n, maxWorkers)}
	}
	return nil
}

// checkCompareSize refuses a compare whose rules, algorithms or runs pass
// their bounds, naming the flags that set them.
func checkCompareSize(cfg compare.Config) error {
	if err := checkWorkers(cfg.Workers); err != nil {
		return err
	}
	rules := len(cfg.Rules) + len(cfg.Layered)
	switch {
	case rules > maxRules:
		return usageError{fmt.Sprintf("-rule and -sweep give %d rules, more than the %d of one compare: split them over several runs", rules, maxRules)}
	case len(cfg.Algorithms) > maxAlgorithms:
		return usageError{fmt.Sprintf("-alg names %d algorithms, more than the %d of one compare: split them over several runs", len(cfg.Algorithms), maxAlgorithms)}
	}
	runs := max(rules, 1) * len(cfg.Algorithms) * max(len(cfg.Modes), 1) * max(len(cfg.Counts), 1)
	if runs > maxRuns {
		return usageError{fmt.Sprintf("%d rules (-rule, -sweep) × %d algorithms (-alg) × %d modes (-mode) × %d count policies (-count) are %d runs, more than the %d of one compare: split them over several runs",
			max(rules, 1), len(cfg.Algorithms), max(len(cfg.Modes), 1), max(len(cfg.Counts), 1), runs, maxRuns)}
	}
	return nil
}
