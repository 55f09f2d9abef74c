package resultsdir

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"ratebench/summary"
)

// files lists every file and folder under dir, hidden ones too.
func files(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if rel, _ := filepath.Rel(dir, p); rel != "." {
			out = append(out, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// A writer whose write fails part way leaves the folder as it was: its
// files, no lock file, no staging folder; a folder it made is gone.
func TestFailedWriteLeavesNothingBehind(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "res")
	for _, made := range []bool{true, false} {
		if !made {
			os.MkdirAll(dir, 0o755)
			os.WriteFile(filepath.Join(dir, SummaryFile), []byte("earlier"), 0o644)
		}
		before := files(t, parent)
		d, err := Lock(dir)
		if err != nil {
			t.Fatal(err)
		}
		d.WriteFile = func(path string, data []byte) error {
			if filepath.Base(path) == "plot.svg" {
				return errors.New("no space left on device")
			}
			return summary.WriteFileAtomic(path, data)
		}
		if err := d.Write(SummaryFile, []byte("new")); err != nil {
			t.Fatal(err)
		}
		if err := d.Write("plot.svg", []byte("<svg/>")); err == nil {
			t.Fatal("the failing write succeeded")
		}
		d.Close()
		if got := files(t, parent); !slices.Equal(got, before) {
			t.Errorf("made %v: after a failed write the folder holds %v, before %v", made, got, before)
		}
		if !made {
			if b, _ := os.ReadFile(filepath.Join(dir, SummaryFile)); string(b) != "earlier" {
				t.Errorf("the earlier summary is now %q", b)
			}
		}
	}
}

// Commit puts the staged files in place, removes the stale ones the
// writer owns, and leaves every other file alone.
func TestCommitReplacesOnlyWhatItOwns(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "old.svg"), []byte("stale"), 0o644)
	os.WriteFile(filepath.Join(dir, "report.md"), []byte("not mine"), 0o644)
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("the user's"), 0o644)
	d, err := Lock(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Write("new.svg", []byte("<svg/>")); err != nil {
		t.Fatal(err)
	}
	if err := d.Commit(func(rel string) bool { return strings.HasSuffix(rel, ".svg") }); err != nil {
		t.Fatal(err)
	}
	d.Close()
	if got, want := files(t, dir), []string{"new.svg", "notes.txt", "report.md"}; !slices.Equal(got, want) {
		t.Errorf("the folder holds %v, want %v", got, want)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "report.md")); string(b) != "not mine" {
		t.Errorf("a document the writer does not own was touched: %q", b)
	}
}

// A second writer is refused at once, naming the first.
func TestLockIsExclusive(t *testing.T) {
	dir := t.TempDir()
	d, err := Lock(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if _, err := Lock(dir); err == nil || !strings.Contains(err.Error(), "is in use: another ratebench (process ") {
		t.Errorf("second lock: %v", err)
	}
}

// A summary of another kind of run is refused without force; one of the
// same kind, or none, is not.
func TestCheckKind(t *testing.T) {
	dir := t.TempDir()
	if err := CheckKind(dir, KindSearch, false); err != nil {
		t.Errorf("empty folder: %v", err)
	}
	os.WriteFile(filepath.Join(dir, SummaryFile), []byte(`{"schema":"x","trace":{},"runs":[]}`), 0o644)
	err := CheckKind(dir, KindSearch, false)
	if err == nil || !strings.Contains(err.Error(), "holds the results of another run: its summary.json is a compare (or merge)'s, not a Cloudflare search's; use -force") {
		t.Errorf("a compare's folder: %v", err)
	}
	if err := CheckKind(dir, KindSearch, true); err != nil {
		t.Errorf("with force: %v", err)
	}
	if err := CheckKind(dir, KindCompare, false); err != nil {
		t.Errorf("same kind: %v", err)
	}
	os.WriteFile(filepath.Join(dir, SummaryFile), []byte(`{"command":"c","points":[]}`), 0o644)
	if err := CheckTrace(dir, summary.TraceInfo{Path: "t.csv"}, false); err == nil || !strings.Contains(err.Error(), "a Cloudflare search's, not a compare (or merge)'s") {
		t.Errorf("a compare into a search's folder: %v", err)
	}
}

// A summary.json that does not validate (hand-edited, or not a summary at
// all) is no proof of whose folder it is: a compare does not replace it
// without -force. An empty folder, and -force, are no obstacle.
func TestCheckTraceRefusesASummaryItCannotRead(t *testing.T) {
	dir := t.TempDir()
	if err := CheckTrace(dir, summary.TraceInfo{Path: "t.csv"}, false); err != nil {
		t.Fatalf("empty folder: %v", err)
	}
	os.WriteFile(filepath.Join(dir, SummaryFile), []byte(`{"schema":"x","trace":{"path":"other.csv"},"runs":[{"requests":-1}]}`), 0o644)
	err := CheckTrace(dir, summary.TraceInfo{Path: "t.csv"}, false)
	if err == nil || !strings.Contains(err.Error(), "holds a summary that cannot be read") || !strings.Contains(err.Error(), "-force") {
		t.Errorf("an invalid summary: %v", err)
	}
	if err := CheckTrace(dir, summary.TraceInfo{Path: "t.csv"}, true); err != nil {
		t.Errorf("with force: %v", err)
	}
}
