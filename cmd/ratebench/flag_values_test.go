package main

import (
	"strings"
	"testing"
)

func TestParseShardAndClients(t *testing.T) {
	t.Parallel()
	if sh, err := parseShard(" 2/4"); err != nil || sh.Index != 2 || sh.Count != 4 {
		t.Errorf("parseShard(2/4) = %+v, %v", sh, err)
	}
	for _, bad := range []string{"4/4", "-1/2", "1", "a/b", "0/0"} {
		if _, err := parseShard(bad); err == nil {
			t.Errorf("parseShard(%q) accepted", bad)
		}
	}
	pols, err := parseClients("retry:all")
	if err != nil || len(pols) != 3 {
		t.Fatalf("retry:all: %v %v", pols, err)
	}
	if _, err := parseClients("honor"); err == nil || !strings.Contains(err.Error(), "want retry:") {
		t.Errorf("a policy without retry: %v", err)
	}
}

// An unknown mode or count policy is refused as a usage error, before any
// trace is read.
func TestUnknownModeOrCount(t *testing.T) {
	for _, tt := range []struct{ flag, value, want string }{
		{"-mode", "independent,bogus", `unknown mode "bogus" (want independent or shadow`},
		{"-count", "some", `unknown count policy "some" (want accepted or all`},
	} {
		_, _, err := ratebench(t, "compare", "-trace", "testdata/small.csv", tt.flag, tt.value, "-o", t.TempDir())
		if _, ok := err.(usageError); !ok || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s %s: %v", tt.flag, tt.value, err)
		}
	}
}
