package main

import (
	"flag"
	"fmt"

	"ratebench/summary"
)

// budgetFlags are the budget flags of compare and report: bounds on the
// over- and under-admission rates over all requests (-max-over,
// -max-under) and on the same errors in the limiter's own terms: the share
// of the log's refusals let through (-max-over-of-refused) and of its
// admissions refused (-max-under-of-admitted).
type budgetFlags struct {
	maxOver, maxUnder, maxOverOfRefused, maxUnderOfAdmitted *string
}

// register defines the flags on fs; of says what a budget given does
// there.
func (b *budgetFlags) register(fs *flag.FlagSet, of string) {
	b.maxOver = fs.String("max-over", "", "budget: the largest over-admission `rate` you accept, a percentage such as 0.01% or a fraction below 1 such as 0.0001; "+of)
	b.maxUnder = fs.String("max-under", "", "budget: the largest under-admission `rate` you accept, a percentage such as 0.1% or a fraction below 1 such as 0.001; "+of)
	b.maxOverOfRefused = fs.String("max-over-of-refused", "", "budget: the largest `share` of the exact log's refusals you accept to let through, such as 10% (met when the log refuses nothing); "+of)
	b.maxUnderOfAdmitted = fs.String("max-under-of-admitted", "", "budget: the largest `share` of the exact log's admissions you accept to refuse, such as 1%; "+of)
}

// budget reads the flags (any may be empty: no bound); nil when all are.
func (b *budgetFlags) budget() (*summary.Budget, error) {
	out := &summary.Budget{}
	for _, f := range []struct {
		name string
		v    *string
		dst  **float64
	}{
		{"-max-over", b.maxOver, &out.MaxOver}, {"-max-under", b.maxUnder, &out.MaxUnder},
		{"-max-over-of-refused", b.maxOverOfRefused, &out.MaxOverOfRefused},
		{"-max-under-of-admitted", b.maxUnderOfAdmitted, &out.MaxUnderOfAdmitted},
	} {
		if *f.v == "" {
			continue
		}
		r, err := parseRate(*f.v)
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
