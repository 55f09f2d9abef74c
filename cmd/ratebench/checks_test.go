package main

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Whatever can be checked before a replay is: the profile files, the
// budgets, the results folder. A run that fails so replays nothing and
// makes no folder.
func TestChecksBeforeTheReplay(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	os.WriteFile(file, nil, 0o644)
	out := filepath.Join(dir, "res")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-memprofile", filepath.Join(dir, "none", "m.prof")}, "-memprofile: open " + filepath.Join(dir, "none", "m.prof")},
		{[]string{"-cpuprofile", filepath.Join(dir, "none", "c.prof")}, "-cpuprofile: open " + filepath.Join(dir, "none", "c.prof")},
		{[]string{"-max-over", "NaN%"}, `rate "NaN%": want a percentage`},
		{[]string{"-max-under", "nan"}, `rate "nan": want a percentage`},
		{[]string{"-max-over", "-1%"}, `rate "-1%": want a percentage`},
		{[]string{"-max-over", "Inf%"}, `rate "Inf%" is above 100%`},
		{[]string{"-max-over", "101%"}, `rate "101%" is above 100%`},
		{[]string{"-max-over", "1"}, `-max-over: rate "1": a number without % is a fraction below 1 (0.01 is 1%); write 1% for a percentage`},
		{[]string{"-max-under", "-1"}, `-max-under: rate "-1": want a percentage`},
		{[]string{"-o", filepath.Join(file, "res")}, "results folder: mkdir " + file + ": not a directory"},
	} {
		args := append([]string{"compare", "-gen", "poisson:requests=100000,keys=100", "-alg", "log,counter", "-o", out}, tc.args...)
		_, stderr, err := ratebench(t, args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.args, err, tc.want)
		}
		if strings.Contains(stderr, "replaying") {
			t.Errorf("%q: failed after the replay", tc.args)
		}
		if _, err := os.Stat(out); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%q left the folder %s: %v", tc.args, out, err)
		}
	}
	// -max-over given to report is checked too.
	if _, _, err := ratebench(t, "compare", "-trace", "testdata/small.csv", "-alg", "log,counter", "-report=false", "-o", out); err != nil {
		t.Fatal(err)
	}
	var ue usageError
	if _, _, err := ratebench(t, "report", "-max-over", "NaN%", out); !errors.As(err, &ue) {
		t.Errorf("report -max-over NaN%%: %v, want a usage error", err)
	}
	// gen creates its heap profile before it writes the trace.
	trace := filepath.Join(dir, "t.csv")
	if _, _, err := ratebench(t, "gen", "-scenario", "poisson", "-requests", "1000", "-memprofile", filepath.Join(dir, "none", "m.prof"), "-o", trace); err == nil ||
		!strings.Contains(err.Error(), "-memprofile") {
		t.Errorf("gen -memprofile into no folder: %v", err)
	}
	if _, err := os.Stat(trace); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("gen wrote %s before it failed: %v", trace, err)
	}
	// A good profile path is written, after the replay.
	prof := filepath.Join(dir, "m.prof")
	if _, _, err := ratebench(t, "compare", "-trace", "testdata/small.csv", "-alg", "log,counter", "-report=false", "-memprofile", prof, "-o", out); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(prof); err != nil || len(b) == 0 || bytes.Equal(b, nil) {
		t.Errorf("heap profile: %d bytes, %v", len(b), err)
	}
}
