package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// definitionsCite is a citation of a section of docs/definitions.md.
var definitionsCite = regexp.MustCompile(`docs/definitions\.md §(\d+(?:\.\d+)?)`)

// definitionsHeading is a numbered heading of docs/definitions.md:
// "## 5. Sliding window counter", "### 5.1 counter-lt".
var definitionsHeading = regexp.MustCompile(`(?m)^#{2,3} (\d+(?:\.\d+)?)[. ]`)

// outsideRef matches, in the project's own files, a citation of a document
// that is not in the repository: the specification (SPEC.md, "SPEC 3.2",
// "spec §3"), a source document by its number ("seed 000") or the decision
// examples by their old name. internalRef, on what users read, adds what
// source code may say (a figure in parentheses, the word vectors).
var outsideRef = regexp.MustCompile(`(?i)seed ?\d{3}|seeds'|seed documents?|seed[- ]vectors?|test vectors|the seeds? (predicts|recommends|says)|spec ?§|spec \d|spec\.md|(?-i:\bSPEC\b)`)

// legacyField is the name summaries before v1.2 gave the token bucket's
// bound, which summary-schema.md and package summary must name to read it
// (and their tests to write it).
var legacyField = strings.NewReplacer("seed002_bound", "", `"seed002"`, "")

// The code, the documentation and the build explain themselves: no comment,
// document, Makefile or script cites a document outside the repository
// (the specification's sections, the source documents' numbers), and every citation of docs/definitions.md names a section it
// has.
func TestSourcesCiteOnlyTheRepository(t *testing.T) {
	root := filepath.Join("..", "..")
	defs, err := os.ReadFile(filepath.Join(root, "docs", "definitions.md"))
	if err != nil {
		t.Fatal(err)
	}
	sections := map[string]bool{}
	for _, m := range definitionsHeading.FindAllStringSubmatch(string(defs), -1) {
		sections[m[1]] = true
	}
	if !sections["5"] || !sections["5.1"] || !sections["17"] {
		t.Fatalf("docs/definitions.md: numbered sections not found (%d read)", len(sections))
	}
	patterns := map[string]bool{} // the files that hold the patterns themselves
	for _, f := range []string{"citations_test.go", "words_test.go"} {
		abs, _ := filepath.Abs(f)
		patterns[abs] = true
	}
	checked, cites := 0, 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if name == ".git" || name == "node_modules" || name == "screenshots" {
				return filepath.SkipDir
			}
			return nil
		}
		if abs, _ := filepath.Abs(path); patterns[abs] {
			return nil
		}
		ext := filepath.Ext(name)
		if ext != ".go" && ext != ".md" && name != "Makefile" && filepath.Base(filepath.Dir(path)) != "scripts" && name != "run" {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		checked++
		rel, _ := filepath.Rel(root, path)
		for i, line := range strings.Split(string(b), "\n") {
			if m := outsideRef.FindString(legacyField.Replace(line)); m != "" {
				t.Errorf("%s:%d cites %q, a document outside the repository: cite docs/definitions.md or say the thing", rel, i+1, m)
			}
			for _, c := range definitionsCite.FindAllStringSubmatch(line, -1) {
				cites++
				if !sections[c[1]] {
					t.Errorf("%s:%d cites docs/definitions.md §%s, which has no such section", rel, i+1, c[1])
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 100 || cites < 20 {
		t.Errorf("only %d files and %d citations checked", checked, cites)
	}
}
