package live

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// The live replays drive the products' real software and their models:
// they import the models, the traces, the summary's result types and the
// Redis harness that starts a redis-server, never the comparison engine,
// the report or the command.
func TestLiveImports(t *testing.T) {
	allowed := []string{"ratebench/algorithms", "ratebench/products", "ratebench/summary", "ratebench/traces", "ratebench/redisreplay",
		"ratebench/live", "ratebench/live/", "ratebench/internal/"}
	n := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "node_modules" {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		n++
		for _, imp := range f.Imports {
			p := strings.Trim(imp.Path.Value, `"`)
			if !strings.HasPrefix(p, "ratebench/") {
				continue
			}
			ok := false
			for _, a := range allowed {
				ok = ok || p == a || strings.HasSuffix(a, "/") && strings.HasPrefix(p, a)
			}
			if !ok {
				t.Errorf("%s imports %s", path, p)
			}
		}
		return nil
	})
	if err != nil || n < 10 {
		t.Fatalf("%d files read: %v", n, err)
	}
}
