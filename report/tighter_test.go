package report

import (
	"testing"

	"ratebench/summary"
)

// The tighter limits are the plain log's: behind a refusal cache the
// text says so; "at most" where the share is an upper bound.
func TestTighterText(t *testing.T) {
	b := &summary.Binding{Tighter: []summary.TighterLimit{{Rule: "98/1m", Share: 0.001, UpperBound: true}, {Rule: "56/1m", Share: 0.0102}}}
	for ref, want := range map[string]string{
		"":             "98/1m would refuse at most 0.100% of the requests, 56/1m 1.02%",
		"log:block=1m": "98/1m would refuse at most 0.100% of the requests without the refusal cache, 56/1m 1.02%",
	} {
		m := &model{s: &summary.Summary{Config: summary.RunConfig{Reference: ref}}}
		if got := m.tighterText(b); got != want {
			t.Errorf("reference %q: %q, want %q", ref, got, want)
		}
	}
}
