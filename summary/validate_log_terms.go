package summary

// logTerms checks a run's errors in the limiter's own terms (log_terms.go):
// all four fields or none; the log's refusals and admissions are those of
// the log run of the same rule, count and mode, and add up to the
// requests; they agree with the run's own counts (the log refuses what the
// run refused but for its under-admissions, and its over-admissions); and
// each fraction is its count over them, absent exactly when there is
// nothing to divide by.
func (v *validator) logTerms(path string, r *Run, s *Summary) {
	f := func(name string) string { return path + "." + name }
	if r.LogRefused == nil && r.LogAdmitted == nil && r.OverOfRefused == nil && r.UnderOfAdmitted == nil {
		return
	}
	if r.LogRefused == nil || r.LogAdmitted == nil {
		v.fail(f("log_refused"), "log_refused and log_admitted come together")
		return
	}
	refused, admitted := *r.LogRefused, *r.LogAdmitted
	v.nonNegative(f("log_refused"), refused)
	v.nonNegative(f("log_admitted"), admitted)
	if v.err != nil {
		return
	}
	if n, ok := v.sum(f("log_refused + log_admitted"), refused, admitted); ok {
		v.equal(f("log_refused + log_admitted"), n, "requests", r.Requests)
	}
	if n, ok := v.sum(f("rejected + over"), r.Rejected, r.Over); ok {
		v.equal(f("log_refused"), refused, "rejected - under + over", n-r.Under)
	}
	for i := range s.Runs {
		if l := &s.Runs[i]; l.Algorithm == "log" && l.Rule == r.Rule && l.Count == r.Count && l.Mode == r.Mode {
			v.equal(f("log_refused"), refused, "the log run's rejected", l.Rejected)
			break
		}
	}
	v.atMost(f("over"), r.Over, f("log_refused"), refused)
	v.atMost(f("under"), r.Under, f("log_admitted"), admitted)
	v.share(f("over_of_refused"), r.OverOfRefused, "over", r.Over, "log_refused", refused)
	v.share(f("under_of_admitted"), r.UnderOfAdmitted, "under", r.Under, "log_admitted", admitted)
}

// share checks a fraction count ÷ total of a run's: absent when total is 0,
// else present and the same float64 as the division gives.
func (v *validator) share(path string, p *float64, countName string, count int64, totalName string, total int64) {
	switch {
	case total == 0 && p != nil:
		v.fail(path, "%v, but %s is 0 (the share is absent then)", *p, totalName)
	case total == 0:
	case p == nil:
		v.fail(path, "absent, but %s is %d", totalName, total)
	case *p != float64(count)/float64(total):
		v.fail(path, "%v, but %s ÷ %s is %d ÷ %d", *p, countName, totalName, count, total)
	}
}
