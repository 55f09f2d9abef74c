package cloudflare

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"ratebench/compare/resultsdir"
	"ratebench/summary"
)

// folderFiles returns every file under dir and its bytes.
func folderFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		files[rel] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// leftovers lists the lock files and staging folders under dir.
func leftovers(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && (d.Name() == resultsdir.LockFile || strings.HasPrefix(d.Name(), resultsdir.StagePrefix)) {
			out = append(out, p)
		}
		return err
	})
	return out
}

// A search whose page cannot be written (a full disk) leaves its folder
// as it was: no new summary beside the old page, no lock, no staging.
func TestFailedSearchWriteLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	g, pop := testGrid(t), Population{Requests: 5000, Sources: 20, Seed: 1}
	g.Maxes, g.Blocks = []float64{3}, []string{""}
	if err := (Search{Dir: dir, Grid: g, Pop: pop, Workers: 1, Stdout: io.Discard, Stderr: io.Discard}).Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	before := folderFiles(t, dir)
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
		if after := folderFiles(t, dir); !reflect.DeepEqual(after, before) {
			t.Errorf("failing %s, the folder changed", failing)
		}
		if l := leftovers(t, dir); len(l) > 0 {
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
