// Package report turns what compare measured (summary.json, and for a few
// documents perf.json, as package summary reads them) into documents a
// person reads. It never reads a trace, nor depends on the replay engine:
// everything it shows is in the summary.
//
// Write makes the report of an experiment: report.md, a self-contained
// report.html (every plot inline as SVG, no script, no external file) and
// plots/NAME.svg and .png drawn with gonum/plot. For each rule it first
// ranks the algorithms by memory per key and disagreement and names the
// cheapest that meets the budget, then shows every figure of the summary.
// The same summary gives the same bytes of .md, .html and .svg, so that CI
// can regenerate and diff them. Text from the summary (keys come from
// traces) is escaped for Markdown, HTML and SVG.
//
// The pages are documents of package report/markup, their plots figures
// of package report/plotkit. Beside the experiment's report, the package
// writes standalone pages, one file each: the diff of two summaries
// (diff.go), the Cloudflare experiment's page and its search
// (cloudflare.go, cloudflare_search.go), the live replay (live.go), the
// runs as CSV (runs.go) and one key's figure for explain (key_figure.go).
package report
