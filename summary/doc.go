// Package summary is the format of summary.json, the reproducible result of
// a replay (docs/summary-schema.md documents every field): its types, from
// the Summary down to the figures of each Run and the results of the
// closed-loop and distributed simulations (ClientsResult and
// DistributedResult, with their Durations histograms), and reading and
// writing it (ReadSummaryFile, which refuses a summary Summary.Validate
// does not accept, naming the field; Summary.WriteFile: indented, every
// array of numbers on one line). Perf is perf.json, the replay's timings, kept
// beside it. WriteFileAtomic is the write every result file goes through,
// so that a reader or a crash never sees half a file.
//
// Merge combines the summaries of the shards of one replay into exactly,
// byte for byte, the summary of one pass (MergeDisjoint, the workers of one
// replay). The figures that are not plain sums over keys are therefore
// taken in a form that merges, and those forms live here too: RateErrors,
// a rate error distribution in fixed bins with exact sums, and
// TimelineBins, a timeline whose bins re-bin to the wider of two widths.
// Each figure of a run (its burst, timeline, rate error, memory, ...) is a
// type with its own merge and its own checks, and a run's merge and
// validation loop over the figures Run holds (figure.go, runFigures).
//
// It knows nothing of the replay engine and imports nothing of ratebench
// but algorithms' rule syntax: package compare builds its output as these
// types, and whatever only reads results (package report, the merge and
// report commands) needs this package alone.
package summary
