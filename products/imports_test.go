package products_test

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Imports flow one way: the textbook algorithms (and the traces) import
// nothing of ours, so that package products builds on them and never the
// other way; the products import only algorithms and internal helpers.
func TestImportsFlowOneWay(t *testing.T) {
	for dir, allowed := range map[string][]string{
		"../algorithms": nil,
		"../traces":     nil,
		".":             {"ratebench/algorithms", "ratebench/internal/"},
	} {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: no Go files (%v)", dir, err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			file, err := parser.ParseFile(token.NewFileSet(), f, src, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, imp := range file.Imports {
				path := strings.Trim(imp.Path.Value, `"`)
				if !strings.HasPrefix(path, "ratebench/") {
					continue
				}
				ok := false
				for _, a := range allowed {
					ok = ok || path == a || strings.HasSuffix(a, "/") && strings.HasPrefix(path, a)
				}
				if !ok {
					t.Errorf("%s imports %s", f, path)
				}
			}
		}
	}
}
