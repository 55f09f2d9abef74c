package main

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"ratebench/compare"
	"ratebench/compare/clients"
	"ratebench/summary"
)

// The values of compare's flags that are lists or grids, read into the
// engine's configuration. Which values are known is the engine's to say:
// compare.New refuses an unknown mode or count policy.

// parseModes reads a comma-separated list of modes.
func parseModes(s string) []compare.Mode { return splitList[compare.Mode](s) }

// parseCounts reads a comma-separated list of count policies.
func parseCounts(s string) []compare.Count { return splitList[compare.Count](s) }

// splitList splits a comma-separated list, each value trimmed.
func splitList[T ~string](s string) []T {
	var out []T
	for _, f := range strings.Split(s, ",") {
		out = append(out, T(strings.TrimSpace(f)))
	}
	return out
}

// parseShard reads "i/n".
func parseShard(v string) (*summary.Shard, error) {
	a, b, ok := strings.Cut(v, "/")
	i, err1 := strconv.Atoi(strings.TrimSpace(a))
	n, err2 := strconv.Atoi(strings.TrimSpace(b))
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
		return nil, fmt.Errorf("shard %q: want i/n with 0 <= i < n, e.g. 0/4", v)
	}
	return &summary.Shard{Index: i, Count: n}, nil
}

// parseClients reads the -clients flag: "retry:POLICY", POLICY as
// clients.ParsePolicy reads it (immediate, backoff, honor, with
// parameters: "backoff:base=100ms,max=8"), or "retry:all" for the three
// with their defaults.
func parseClients(v string) ([]clients.Policy, error) {
	p, ok := strings.CutPrefix(strings.TrimSpace(v), "retry:")
	if !ok {
		return nil, fmt.Errorf("clients %q: want retry:immediate, retry:backoff, retry:honor (with parameters, e.g. retry:backoff:base=100ms,max=8) or retry:all", v)
	}
	if p == "all" {
		var out []clients.Policy
		for _, k := range []string{"immediate", "backoff", "honor"} {
			pol, err := clients.ParsePolicy(k)
			if err != nil {
				return nil, err
			}
			out = append(out, pol)
		}
		return out, nil
	}
	pol, err := clients.ParsePolicy(p)
	if err != nil {
		return nil, err
	}
	return []clients.Policy{pol}, nil
}

// parseRate reads a rate for budgets (the budget flags of report and of
// compare, budgetFlags). The rule: with a % suffix it is a percentage, from 0% to
// 100% ("0.01%"); a plain number is a fraction, from 0 up to but not
// including 1 ("0.0001"). A plain number of 1 or more is refused, as
// "-max-over 1" could mean 1% as well as 100%. The rate is the decimal
// written, divided exactly: "5.6%" is the float64 nearest 56/1000, whose
// shortest decimal is 0.056 (the bound summary.PolicyBound checks), not
// 5.6 ÷ 100 in floats, 0.055999….
func parseRate(s string) (float64, error) {
	s = strings.TrimSpace(s)
	pct := strings.HasSuffix(s, "%")
	num := strings.TrimSuffix(s, "%")
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || math.IsNaN(v) || v < 0 {
		return 0, fmt.Errorf("rate %q: want a percentage such as 0.01%% or a fraction such as 0.0001", s)
	}
	if pct {
		if exact, ok := new(big.Rat).SetString(num); ok && !math.IsInf(v, 0) {
			v, _ = exact.Quo(exact, big.NewRat(100, 1)).Float64()
		} else {
			v /= 100
		}
	} else if v >= 1 && !math.IsInf(v, 1) {
		return 0, fmt.Errorf("rate %q: a number without %% is a fraction below 1 (0.01 is 1%%); write %s%% for a percentage", s, s)
	}
	if v > 1 {
		return 0, fmt.Errorf("rate %q is above 100%%", s)
	}
	if v == 0 {
		v = 0 // not -0
	}
	return v, nil
}
