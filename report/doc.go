// Package report turns what compare measured (summary.json, and for a few
// documents perf.json) into documents a person reads. It never reads a
// trace: everything it shows is in the summary.
package report
