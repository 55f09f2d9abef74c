package report

import (
	"testing"
	"time"
)

// A clock's unit reads as a word where it has one, else as "units of" its
// duration: never "5m0ss".
func TestUnitName(t *testing.T) {
	for _, c := range []struct {
		d         time.Duration
		one, many string
	}{
		{time.Second, "second", "seconds"},
		{time.Minute, "minute", "minutes"},
		{5 * time.Minute, "unit of 5m0s", "units of 5m0s"},
		{100 * time.Millisecond, "unit of 100ms", "units of 100ms"},
	} {
		if u := unitName(c.d); u.one != c.one || u.many != c.many {
			t.Errorf("%v: %q, %q; want %q, %q", c.d, u.one, u.many, c.one, c.many)
		}
	}
}
