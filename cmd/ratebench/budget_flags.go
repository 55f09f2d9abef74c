package main

import (
	"errors"
	"flag"
	"fmt"
	"strings"

	"ratebench/summary"
)

// budgetFlags are the budget flags of compare and report: bounds on the
// over- and under-admission rates over all requests (-max-over,
// -max-under) and on the same errors in the limiter's own terms: the share
// of the log's refusals let through (-max-over-of-refused) and of its
// admissions refused (-max-under-of-admitted).
type budgetFlags struct {
	maxOver, maxUnder, maxOverOfRefused, maxUnderOfAdmitted budgetValue
}

// register defines the flags on fs; of says what a budget given does
// there.
func (b *budgetFlags) register(fs *flag.FlagSet, of string) {
	fs.Var(&b.maxOver, "max-over", "budget: the largest over-admission `rate` you accept, a percentage such as 0.01% or a fraction below 1 such as 0.0001; "+of)
	fs.Var(&b.maxUnder, "max-under", "budget: the largest under-admission `rate` you accept, a percentage such as 0.1% or a fraction below 1 such as 0.001; "+of)
	fs.Var(&b.maxOverOfRefused, "max-over-of-refused", "budget: the largest `share` of the exact log's refusals you accept to let through, such as 10% (met when the log refuses nothing); "+of)
	fs.Var(&b.maxUnderOfAdmitted, "max-under-of-admitted", "budget: the largest `share` of the exact log's admissions you accept to refuse, such as 1%; "+of)
}

// budgetValue is a budget flag's value, given at most once and never
// empty: a flag given twice would otherwise bound by the last value, and
// an empty one bound nothing, without a word. Set refuses both (a usage
// error naming the flag); the rate itself is read by budget.
type budgetValue struct {
	v   string
	set bool
}

func (b *budgetValue) String() string { return b.v }

func (b *budgetValue) Set(v string) error {
	switch {
	case b.set:
		return fmt.Errorf("the budget is given twice, as %q and as %q; give it once", b.v, v)
	case strings.TrimSpace(v) == "":
		return errors.New("the budget needs a rate, such as 0.01% (leave the flag out to bound nothing)")
	}
	b.v, b.set = v, true
	return nil
}

// budget reads the flags (any may be left out: no bound); nil when all are.
func (b *budgetFlags) budget() (*summary.Budget, error) {
	out := &summary.Budget{}
	for _, f := range []struct {
		name string
		v    *budgetValue
		dst  **float64
	}{
		{"-max-over", &b.maxOver, &out.MaxOver}, {"-max-under", &b.maxUnder, &out.MaxUnder},
		{"-max-over-of-refused", &b.maxOverOfRefused, &out.MaxOverOfRefused},
		{"-max-under-of-admitted", &b.maxUnderOfAdmitted, &out.MaxUnderOfAdmitted},
	} {
		if !f.v.set {
			continue
		}
		r, err := parseRate(f.v.v)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.name, err)
		}
		*f.dst = &r
	}
	if !out.IsSet() {
		return nil, nil
	}
	return out, nil
}
