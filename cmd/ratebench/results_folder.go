package main

import (
	"ratebench/compare/resultsdir"
	"ratebench/summary"
)

// runsDir is where a run writes its results when no -o says where:
// results/runs/<name>/, a folder git ignores, so that a run never touches
// the committed reference results (results/<scenario>/,
// results/cloudflare/), which only make results and make cloudflare
// write, naming them with -o. Every writer of a results folder goes
// through package resultsdir (locked, staged, committed as one set).
const runsDir = summary.RunsDir

// summaryFile is the summary's name in a results folder.
const summaryFile = resultsdir.SummaryFile
