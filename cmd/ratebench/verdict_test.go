package main

import (
	"path/filepath"
	"strings"
	"testing"

	"ratebench/report"
	"ratebench/summary"
)

// compare prints the verdict first, the same text as the report's, then
// the tables; a budget given to compare is the verdict's.
func TestCompareVerdictFirst(t *testing.T) {
	for _, tc := range []struct {
		flags []string
		first string
	}{
		{nil, "Verdict. With no budget given, the choice is the cheapest algorithm within 0.1% of the exact log's decisions"},
		{[]string{"-max-over", "1%", "-max-under", "0.2"}, "Verdict. With the budget over ≤ 1.00%, under ≤ 20.00% (from the summary), the choice is the cheapest algorithm that meets it"},
	} {
		dir := filepath.Join(t.TempDir(), "res")
		args := append([]string{"compare", "-trace", "testdata/small.csv", "-rule", "5/30s", "-mode", "independent", "-report=false", "-o", dir}, tc.flags...)
		stdout, _, err := ratebench(t, args...)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(stdout, "\n")
		if !strings.HasPrefix(lines[0], tc.first) || lines[1] != "" || lines[2] != "Rule 5/30s, count accepted, independent mode:" ||
			!strings.HasPrefix(lines[3], "  Choose ") {
			t.Errorf("%q: stdout does not open with the verdict:\n%s", tc.flags, strings.Join(lines[:min(len(lines), 6)], "\n"))
		}
		s, err := summary.ReadSummaryFile(filepath.Join(dir, summaryFile))
		if err != nil {
			t.Fatal(err)
		}
		v := report.Verdict(s, report.Options{})
		if !strings.HasPrefix(stdout, v+"\nrule 5/30s, count accepted, mode independent\n") {
			t.Errorf("%q: stdout is not the verdict, then the table:\n%s", tc.flags, stdout)
		}
	}
}
