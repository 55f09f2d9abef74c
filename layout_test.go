package ratebench_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The house's one-way imports (docs/development.md draws them): each
// package, by the folder it sits in, imports only the packages of ours
// listed for its folder. A rule names a folder and its subfolders unless
// a longer rule names the subfolder; an allowed entry ending in "/"
// allows every package beneath it.
var importRules = []struct {
	dir     string
	allowed []string
}{
	// The textbook algorithms and the traces import nothing of ours.
	{"algorithms", nil},
	{"traces", nil},
	// The deployed products are algorithms built from algorithms' kit.
	{"algorithms/products", []string{"algorithms", "internal/"}},
	// internal/ holds leaf helpers: never the engine, the report, the
	// generators, the live replays or the results' format.
	{"internal", []string{"internal/", "algorithms"}},
	{"summary", []string{"algorithms", "internal/"}},
	// The results folder stages the summary and its report.
	{"compare/resultsdir", []string{"summary", "report", "traces", "internal/"}},
	// Its test kit reads a folder by the names the folder uses.
	{"compare/resultsdir/resultsdirtest", []string{"compare/resultsdir"}},
	// The report reads only the summary: never a trace or the engine.
	{"report", []string{"report/", "summary", "algorithms", "internal/"}},
	{"generators", []string{"traces", "algorithms", "internal/"}},
	// The live replays drive real software and its model, never the
	// engine, the report or a command.
	{"live", []string{"live", "live/", "algorithms", "algorithms/products", "summary", "traces", "internal/"}},
	{"compare", []string{"compare", "compare/", "algorithms", "algorithms/products", "summary", "traces", "generators", "report", "internal/"}},
	// An experiment drives the engine over its populations and writes its
	// results folder.
	{"experiments", []string{"experiments/", "compare", "compare/", "algorithms", "algorithms/products", "summary", "traces", "generators", "report", "internal/"}},
}

// Folders the house no longer has: what they held lives elsewhere.
var retiredDirs = []string{"products", "clients", "distributed", "livenginx", "redisreplay"}

func ruleFor(dir string) (allowed []string, ok bool) {
	best := -1
	for _, r := range importRules {
		if (dir == r.dir || strings.HasPrefix(dir, r.dir+"/")) && len(r.dir) > best {
			best, allowed, ok = len(r.dir), r.allowed, true
		}
	}
	return allowed, ok
}

func TestImportsFlowOneWay(t *testing.T) {
	n := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules" || d.Name() == "testdata" || d.Name() == "results") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil && path != "." {
				return filepath.SkipDir // a module of its own
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		dir := filepath.ToSlash(filepath.Dir(path))
		allowed, ruled := ruleFor(dir)
		if !ruled {
			return nil // the commands and the tools import what they need
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		n++
		for _, imp := range f.Imports {
			p, ours := strings.CutPrefix(strings.Trim(imp.Path.Value, `"`), "ratebench/")
			if !ours {
				continue
			}
			ok := p == dir // a package's own external test
			for _, a := range allowed {
				ok = ok || p == a || strings.HasSuffix(a, "/") && strings.HasPrefix(p, a)
			}
			if !ok {
				t.Errorf("%s imports ratebench/%s", path, p)
			}
		}
		return nil
	})
	if err != nil || n < 200 {
		t.Fatalf("%d files read: %v", n, err)
	}
}

func TestRetiredFoldersAreGone(t *testing.T) {
	for _, d := range retiredDirs {
		if _, err := os.Stat(d); err == nil {
			t.Errorf("%s/ is back: its packages live elsewhere (docs/development.md)", d)
		}
	}
}
