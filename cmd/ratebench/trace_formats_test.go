package main

import (
	"regexp"
	"strings"
	"testing"

	"ratebench/traces"
)

// Every format of the traces package's table is listed by ratebench help,
// named by the help of -format and, when it has a kind, by that of
// -trace; every format written is offered by convert -to and gen -format,
// by its name and its extension.
func TestHelpListsTheTracesFormats(t *testing.T) {
	_, help, err := ratebench(t, "help")
	if err != nil {
		t.Fatal(err)
	}
	_, compare, _ := ratebench(t, "compare", "-h")
	_, convert, _ := ratebench(t, "convert", "-h")
	_, gen, _ := ratebench(t, "gen", "-h")
	flagHelp := func(usage, name string) string {
		m := regexp.MustCompile(`(?m)^  -` + name + ` .*\n\s+(.*)$`).FindStringSubmatch(usage)
		if m == nil {
			t.Fatalf("no -%s in\n%s", name, usage)
		}
		return m[1]
	}
	formatHelp, traceHelp := flagHelp(compare, "format"), flagHelp(compare, "trace")
	toHelp, genFormatHelp, genOutHelp := flagHelp(convert, "to"), flagHelp(gen, "format"), flagHelp(gen, "o")
	fs := traces.Formats()
	if len(fs) < 10 {
		t.Fatalf("%d formats", len(fs))
	}
	for _, f := range fs {
		name := f.Format.String()
		if !regexp.MustCompile(`(?m)^  ` + name + ` +` + regexp.QuoteMeta(strings.Join(f.Exts, " "))).MatchString(help) {
			t.Errorf("ratebench help does not list %s", name)
		}
		if !strings.Contains(formatHelp, " "+name) {
			t.Errorf("-format's help does not name %s: %s", name, formatHelp)
		}
		if f.Kind != "" && !strings.Contains(traceHelp, f.Kind) {
			t.Errorf("-trace's help does not name %s: %s", f.Kind, traceHelp)
		}
		for _, h := range []string{toHelp, genFormatHelp} {
			if regexp.MustCompile(`\b`+name+`\b`).MatchString(h) != f.Writes {
				t.Errorf("%s, written %v: %s", name, f.Writes, h)
			}
		}
		if f.Writes && !strings.Contains(genOutHelp, f.Exts[0]) {
			t.Errorf("gen -o's help does not name %s: %s", f.Exts[0], genOutHelp)
		}
	}
	// In the table's order, each with its note.
	var names []string
	for _, f := range fs {
		if f.Note != "" {
			names = append(names, f.Format.String()+" ("+f.Note+")")
		} else {
			names = append(names, f.Format.String())
		}
	}
	if want := "trace format: " + strings.Join(names, ", ") + ", or auto (from the extension, else the content) (default \"auto\")"; formatHelp != want {
		t.Errorf("-format's help:\n%s\nwant\n%s", formatHelp, want)
	}
	if !strings.Contains(formatHelp, "regex (any line format, by -pattern), dataset (a folder convert -partitions wrote)") {
		t.Errorf("-format's help: %s", formatHelp)
	}
	if !strings.Contains(help, "convert    convert a trace to CSV, Parquet or JSON lines") {
		t.Errorf("ratebench help:\n%s", help)
	}
}
