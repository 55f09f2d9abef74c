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
package report
