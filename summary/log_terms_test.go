package summary

import (
	"strings"
	"testing"
)

// FillLogTerms gives every run the log's refusals and admissions of its
// group, and the shares of them it decided otherwise, from the counts; the
// validator accepts them, and refuses each that disagrees with the counts.
func TestLogTerms(t *testing.T) {
	s := smallSummary(t)
	FillLogTerms(s.Runs)
	filled := 0
	for i := range s.Runs {
		r := &s.Runs[i]
		if r.LogRefused == nil || r.LogAdmitted == nil {
			t.Fatalf("%s: no log terms", r.id())
		}
		if want := r.Rejected - r.Under + r.Over; *r.LogRefused != want {
			t.Errorf("%s: log_refused %d, want rejected - under + over = %d", r.id(), *r.LogRefused, want)
		}
		if *r.LogRefused > 0 {
			filled++
			if r.OverOfRefused == nil || *r.OverOfRefused != float64(r.Over)/float64(*r.LogRefused) {
				t.Errorf("%s: over_of_refused %v, want %d/%d", r.id(), r.OverOfRefused, r.Over, *r.LogRefused)
			}
		}
	}
	if filled == 0 {
		t.Fatal("the test summary's log refuses nothing: it tests no share")
	}
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	i := 1 // a candidate's run
	for _, tc := range []struct {
		name string
		edit func(r *Run)
		want string
	}{
		{"a share that is not over ÷ log_refused", func(r *Run) { f := *r.OverOfRefused + 1e-9; r.OverOfRefused = &f }, "over_of_refused"},
		{"a log_refused not the log run's", func(r *Run) {
			n, a := *r.LogRefused+1, *r.LogAdmitted-1
			r.LogRefused, r.LogAdmitted = &n, &a
		}, "log_refused"},
		{"refusals and admissions that do not add up", func(r *Run) { a := *r.LogAdmitted + 1; r.LogAdmitted = &a }, "log_refused + log_admitted"},
		{"log_admitted missing", func(r *Run) { r.LogAdmitted = nil }, "come together"},
		{"a share missing", func(r *Run) { r.UnderOfAdmitted = nil }, "under_of_admitted: absent"},
	} {
		c := smallSummary(t)
		FillLogTerms(c.Runs)
		tc.edit(&c.Runs[i])
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "runs[1]") {
			t.Errorf("%s: %v, want an error on runs[1] naming %s", tc.name, err, tc.want)
		}
	}
}

// The bounds in the log's own terms are integer-exact on the shares; a
// bound on the refusals holds when the log refuses nothing.
func TestLogTermsBounds(t *testing.T) {
	at := func(r *Run, perMilleRefused, perMilleAdmitted float64) bool {
		return PolicyBound{FigureOverOfRefused, perMilleRefused / 1000}.Holds(r) &&
			PolicyBound{FigureUnderOfAdmitted, perMilleAdmitted / 1000}.Holds(r)
	}
	r := Run{Requests: 1000, Over: 1, Under: 1}
	r.SetLogTerms(10, 990)
	if !at(&r, 100, 10) || at(&r, 99, 10) || at(&r, 100, 1) {
		t.Errorf("1 of 10 refusals, 1 of 990 admissions: at 10%% and 1%% %v, at 9.9%% %v, at 0.1%% %v", at(&r, 100, 10), at(&r, 99, 10), at(&r, 100, 1))
	}
	q := Run{Requests: 1000}
	q.SetLogTerms(0, 1000)
	if q.OverOfRefused != nil || !at(&q, 0, 0) {
		t.Errorf("the log refuses nothing: over_of_refused %v, bound met %v", q.OverOfRefused, at(&q, 0, 0))
	}
	if at(&Run{}, 1000, 1000) {
		t.Error("a run without the log's counts meets the bounds")
	}
}
