package summary

import "slices"

// A run's errors in the limiter's own terms. Over and under, as rates over
// all requests, are diluted by the traffic no limiter would refuse: a
// limiter that lets through every request the log refuses can still
// over-admit 0.08% of the requests. Set against what the log itself
// decided, the same counts say what a user asks: of the requests the log
// refuses, how many does the candidate let through (OverOfRefused), and of
// those it admits, how many does the candidate refuse (UnderOfAdmitted).

// FillLogTerms sets, on every run of runs, the log's refusals and
// admissions under the run's rule, count and mode (the log run of its
// group) and the two fractions computed from them (SetLogTerms). Runs of a
// group without a log run are left as they are. A placed run gets the
// log's refusals in each placement too.
func FillLogTerms(runs []Run) {
	type group struct{ rule, count, mode string }
	logOf := map[group]*Run{}
	for i := range runs {
		if r := &runs[i]; r.Algorithm == "log" {
			logOf[group{r.Rule, r.Count, r.Mode}] = r
		}
	}
	for i := range runs {
		r := &runs[i]
		if log := logOf[group{r.Rule, r.Count, r.Mode}]; log != nil {
			r.SetLogTerms(log.Rejected, log.Admitted)
			if r.Placed != nil && log.Placed != nil {
				r.Placed.LogRefused = slices.Clone(log.Placed.Rejected)
			}
		}
	}
}

// SetLogTerms sets r's LogRefused and LogAdmitted to the log's refusals
// and admissions of the same requests, and the fractions of them that r
// decided otherwise, each a float64 computed once from the counts:
// OverOfRefused (nil when the log refuses nothing) and UnderOfAdmitted
// (nil when it admits nothing).
func (r *Run) SetLogTerms(refused, admitted int64) {
	r.LogRefused, r.LogAdmitted = &refused, &admitted
	r.OverOfRefused, r.UnderOfAdmitted = fraction(r.Over, refused), fraction(r.Under, admitted)
}

// fraction is n ÷ of, nil when of is 0.
func fraction(n, of int64) *float64 {
	if of <= 0 {
		return nil
	}
	f := float64(n) / float64(of)
	return &f
}
