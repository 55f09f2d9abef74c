package algotest

import (
	"strings"
	"testing"

	"ratebench/algorithms"
)

// CheckSpecs builds each spec of names for rule r and checks that its
// limiter is named as the map says (its canonical spec), which builds the
// same limiter again, and that each spec of bad is refused with an error
// that mentions one of mention.
func CheckSpecs(t testing.TB, r algorithms.Rule, names map[string]string, bad []string, mention ...string) {
	t.Helper()
	for spec, want := range names {
		l, err := algorithms.New(spec, r)
		if err != nil {
			t.Errorf("%s: %v", spec, err)
			continue
		}
		if l.Name() != want {
			t.Errorf("%s is named %s, want %s", spec, l.Name(), want)
		}
		if again, err := algorithms.New(l.Name(), r); err != nil || again.Name() != want {
			t.Errorf("%s does not read back: %v", l.Name(), err)
		}
	}
	for _, spec := range bad {
		_, err := algorithms.New(spec, r)
		if err == nil {
			t.Errorf("%s: accepted, want an error", spec)
			continue
		}
		ok := len(mention) == 0
		for _, m := range mention {
			ok = ok || strings.Contains(err.Error(), m)
		}
		if !ok {
			t.Errorf("%s: %v, want an error naming %s", spec, err, strings.Join(mention, " or "))
		}
	}
}
