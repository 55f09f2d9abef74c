package live

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// A target whose software lacks a part no package brings here has its
// checks left out of Checks, with LeftOut saying why; once the part is
// there, its checks are listed like any other's.
func TestChecksLeaveOutAnUnpackagedTarget(t *testing.T) {
	missing := errors.New("libfoo 1.0 is not installed: copy it to /usr/local/lib")
	var present bool
	Register(Target{Name: "test-unpackaged", Checks: []string{"", "mode=b"}, Unpackaged: func() error {
		if present {
			return nil
		}
		return missing
	}})
	Register(Target{Name: "test-packaged", Checks: []string{""}})
	if c := Checks(); slices.ContainsFunc(c, func(s string) bool { return strings.HasPrefix(s, "test-unpackaged") }) || !slices.Contains(c, "test-packaged") {
		t.Errorf("Checks() = %q: want test-packaged and no check of test-unpackaged", c)
	}
	if l := LeftOut(); !slices.Contains(l, "the checks of test-unpackaged are left out: "+missing.Error()) {
		t.Errorf("LeftOut() = %q: want test-unpackaged's reason", l)
	}
	present = true
	if c := Checks(); !slices.Contains(c, "test-unpackaged") || !slices.Contains(c, "test-unpackaged:mode=b") {
		t.Errorf("Checks() = %q: want test-unpackaged's checks once its part is there", c)
	}
	if l := LeftOut(); slices.ContainsFunc(l, func(s string) bool { return strings.Contains(s, "test-unpackaged") }) {
		t.Errorf("LeftOut() = %q: test-unpackaged's part is there", l)
	}
}
