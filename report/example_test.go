package report_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"ratebench/report"
	"ratebench/summary"
)

// Write turns a summary (as compare wrote it) into report.md, report.html
// and the plots; Verdict is the report's answer as plain text, which
// compare prints on the terminal.
func ExampleWrite() {
	s, err := summary.ReadSummaryFile(filepath.Join("testdata", "small.summary.json"))
	if err != nil {
		fmt.Println(err)
		return
	}
	dir, err := os.MkdirTemp("", "report")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	if err := report.Write(dir, s, report.Options{NoPNG: true}); err != nil {
		fmt.Println(err)
		return
	}
	md, err := os.ReadFile(filepath.Join(dir, report.MarkdownFile))
	if err != nil {
		fmt.Println(err)
		return
	}
	title, _, _ := strings.Cut(string(md), "\n")
	fmt.Println(title)
	plots, _ := filepath.Glob(filepath.Join(dir, report.PlotsDir, "*.svg"))
	fmt.Println(len(plots), "plots, for instance", filepath.Base(plots[0]))
	verdict := strings.Split(report.Verdict(s, report.Options{}), "\n")
	fmt.Println(verdict[2])
	fmt.Println(verdict[3])
	// Output:
	// # ratebench report: gen:mix:poisson=0.5,boundary=0.25,early=0.25,requests=1500,keys=12
	// 20 plots, for instance answer.svg
	// Rule 5/30s, count accepted, independent mode:
	//   Choose counter (24 B per key; over-admits 13.80% and under-admits 23.47% of the requests, lets through 42.77% of the log's refusals and refuses 34.65% of the log's admissions): the cheapest algorithm that meets the budget; the cheaper gcra over-admits 23.27% of the requests (budget 15%).
}
