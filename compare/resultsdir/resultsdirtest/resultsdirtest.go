// Package resultsdirtest holds what tests read of a results folder: its
// files, and what a write left behind that it should not have.
package resultsdirtest

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ratebench/compare/resultsdir"
)

// Files returns every file under dir, by its path relative to dir, and its
// bytes.
func Files(t testing.TB, dir string) map[string]string {
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

// Leftovers lists the lock files and staging folders under dir: none once
// a write is over, whether it succeeded or not.
func Leftovers(dir string) []string {
	var out []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && (d.Name() == resultsdir.LockFile || strings.HasPrefix(d.Name(), resultsdir.StagePrefix)) {
			out = append(out, p)
		}
		return err
	})
	return out
}
