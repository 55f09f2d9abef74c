package cloudflare

import (
	"context"
	"errors"
	"io"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"ratebench/compare/resultsdir"
	"ratebench/compare/resultsdir/resultsdirtest"
	"ratebench/summary"
)

// A search whose page cannot be written (a full disk) leaves its folder
// as it was: no new summary beside the old page, no lock, no staging.
func TestFailedSearchWriteLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	g, pop := testGrid(t), Population{Requests: 5000, Sources: 20, Seed: 1}
	g.Maxes, g.Blocks = []float64{3}, []string{""}
	if err := (Search{Dir: dir, Grid: g, Pop: pop, Workers: 1, Stdout: io.Discard, Stderr: io.Discard}).Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	before := resultsdirtest.Files(t, dir)
	if _, ok := before["README.md"]; !ok {
		t.Fatalf("the search wrote %v", before)
	}
	g.Maxes = []float64{5}
	for _, failing := range []string{resultsdir.SummaryFile, "disagreement.svg", resultsdir.ReadmeFile} {
		job := Search{Dir: dir, Grid: g, Pop: pop, Workers: 1, Flags: []Flag{{"search", "max=5"}}, Stdout: io.Discard, Stderr: io.Discard,
			WriteFile: func(path string, data []byte) error {
				if filepath.Base(path) == failing {
					return errors.New("no space left on device")
				}
				return summary.WriteFileAtomic(path, data)
			}}
		if err := job.Run(context.Background()); err == nil || !strings.Contains(err.Error(), "no space left") {
			t.Errorf("failing %s: %v", failing, err)
		}
		if after := resultsdirtest.Files(t, dir); !reflect.DeepEqual(after, before) {
			t.Errorf("failing %s, the folder changed", failing)
		}
		if l := resultsdirtest.Leftovers(dir); len(l) > 0 {
			t.Errorf("failing %s, left behind: %v", failing, l)
		}
	}
}

// A search records the command that reproduces it, each flag's value in
// single quotes; a run of the experiment quotes a value only if it needs
// to be.
func TestCommands(t *testing.T) {
	flags := []Flag{{"block", "1h"}, {"search", "rate=0.5;alpha=4"}}
	if got, want := searchCommand(flags), "ratebench cloudflare -block '1h' -search 'rate=0.5;alpha=4'"; got != want {
		t.Errorf("search: %s, want %s", got, want)
	}
	if got, want := runCommand(flags), "ratebench cloudflare -block 1h -search 'rate=0.5;alpha=4'"; got != want {
		t.Errorf("run: %s, want %s", got, want)
	}
}
