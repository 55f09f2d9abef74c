package main

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ratebench/compare/resultsdir/resultsdirtest"
	"ratebench/traces"
)

// sameFiles fails unless dir holds exactly the files of want, byte for
// byte.
func sameFiles(t *testing.T, dir string, want map[string]string) {
	t.Helper()
	got := resultsdirtest.Files(t, dir)
	for name, b := range want {
		if g, ok := got[name]; !ok {
			t.Errorf("%s is gone", name)
		} else if g != b {
			t.Errorf("%s has changed", name)
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("%s is new", name)
		}
	}
}

// withStdin runs f with os.Stdin reading the file at path.
func withStdin(t *testing.T, path string, f func()) {
	t.Helper()
	in, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	saved := os.Stdin
	os.Stdin = in
	defer func() { os.Stdin = saved }()
	f()
}

const convertCSV = "ts,key\n1,a\n2,b\n3,a\n"

// convert refuses an output that is its input, by any path to it, and
// leaves the input whole.
func TestConvertRefusesItsInput(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "t.csv")
	if err := os.WriteFile(in, []byte(convertCSV), 0o644); err != nil {
		t.Fatal(err)
	}
	link, hard := filepath.Join(dir, "link.csv"), filepath.Join(dir, "hard.csv")
	if err := os.Symlink("t.csv", link); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(in, hard); err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{in, filepath.Join(dir, ".", "t.csv"), link, hard} {
		_, _, err := ratebench(t, "convert", in, out)
		var ue usageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), "is the input "+in+", the same file") {
			t.Errorf("convert %s %s: %v, want a refusal", in, out, err)
		}
	}
	withStdin(t, in, func() {
		if _, _, err := ratebench(t, "convert", "-format", "csv", "-", hard); err == nil || !strings.Contains(err.Error(), "is the input standard input") {
			t.Errorf("convert - %s < %s: %v, want a refusal", hard, in, err)
		}
	})
	if b, _ := os.ReadFile(in); string(b) != convertCSV {
		t.Errorf("the input is now %q", b)
	}
	// Another file of the same name elsewhere is another file.
	other := filepath.Join(dir, "sub", "t.csv")
	os.Mkdir(filepath.Dir(other), 0o755)
	os.WriteFile(other, []byte("old"), 0o644)
	if _, _, err := ratebench(t, "convert", in, other); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(other); string(b) != "ts,key,cost\n1,a,1\n2,b,1\n3,a,1\n" {
		t.Errorf("converted: %q", b)
	}
}

// A trace that fails part way leaves the output as it was (an existing
// file untouched, or none), and no temporary file; one that converts
// whole replaces it, through a symbolic link to it.
func TestConvertFailureLeavesTheOutput(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.csv")
	os.WriteFile(bad, []byte("ts,key\n1,a\n2,b\n3,a\nx,b\n5,a\n"), 0o644)
	good := filepath.Join(dir, "good.csv")
	os.WriteFile(good, []byte(convertCSV), 0o644)
	for _, name := range []string{"keep.csv", "keep.parquet", "keep.jsonl.gz"} {
		out := filepath.Join(dir, name)
		os.WriteFile(out, []byte("precious"), 0o600)
		before := resultsdirtest.Files(t, dir)
		_, _, err := ratebench(t, "convert", bad, out)
		if err == nil || !strings.Contains(err.Error(), bad+":5: ") {
			t.Errorf("convert %s %s: %v, want the error of line 5", bad, name, err)
		}
		sameFiles(t, dir, before)
		// A new output is not made at all.
		fresh := filepath.Join(dir, "new-"+name)
		if _, _, err := ratebench(t, "convert", bad, fresh); err == nil {
			t.Errorf("convert %s %s: no error", bad, fresh)
		}
		sameFiles(t, dir, before)

		link := filepath.Join(dir, "link-"+name)
		os.Symlink(name, link)
		if _, _, err := ratebench(t, "convert", good, link); err != nil {
			t.Fatal(err)
		}
		if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			t.Errorf("the link is no longer a link: %v", err)
		}
		fi, _ := os.Stat(out)
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v, want the replaced file's 0600", name, fi.Mode().Perm())
		}
		r, err := traces.Open(out, traces.FormatAuto, traces.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var keys []string
		for r.Scan() {
			keys = append(keys, string(r.Request().Key))
		}
		r.Close()
		if r.Err() != nil || strings.Join(keys, "") != "aba" {
			t.Errorf("%s holds %q (%v)", name, keys, r.Err())
		}
	}
}
