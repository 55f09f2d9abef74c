package main

import (
	"fmt"
	"io"

	"ratebench/algorithms"
	"ratebench/compare"
	"ratebench/compare/tracestats"
	"ratebench/summary"
	"ratebench/traces"
)

func runInspect(stdout, stderr io.Writer, args []string) error {
	fs := newFlagSet("inspect", stderr, "[flags] FILE\n\nFILE (or -trace FILE) is the trace to describe.")
	var tf traceFlags
	tf.register(fs)
	rule := fs.String("rule", compare.DefaultConfig().Rules[0].String(), "the rule `L/W` (or layered L/W+L/W) the trace is meant for: inspect warns when the trace spans less than its window, or its timestamps are coarser than W/L or a hundredth of W")
	if err := parseCommand(fs, args, tf.operand()); err != nil {
		return err
	}
	if _, err := algorithms.ParseRules(*rule); err != nil {
		return usageError{err.Error()}
	}
	r, format, err := tf.open()
	if err != nil {
		return err
	}
	defer r.Close()
	st, err := tracestats.Read(r)
	if err != nil {
		return err
	}
	st.Skipped, st.SkipExamples = skipped(r)
	if tf.reorder > 0 && st.ReorderNeed() > 0 { // -reorder too small: advise what the file needs
		if need, whole := tf.reorderNeed(); whole {
			st.SetReorderNeed(need)
		}
	}
	if !st.KeyOrdered() { // the same-time count is of each key's time order, as compare -reorder replays it
		if n, ok := tf.sameTimeInOrder(st.ReorderNeed()); ok {
			st.SetSameTime(n)
		}
	}
	read := tf.readTrace(format)
	st.Trace, st.Program = &read, program
	st.Print(stdout, tf.path, format)
	printDataset(stdout, r)
	printUnit(stdout, st, format, *rule, r)
	return nil
}

// printDataset says, for a dataset, how its records fall in its parts (by
// key hash): how even the shards that read them are.
func printDataset(w io.Writer, r traces.Reader) {
	d := traces.DatasetOf(r)
	if d == nil {
		return
	}
	m := d.Manifest()
	lo, hi := m.Parts[0].Records, m.Parts[0].Records
	for _, p := range m.Parts {
		lo, hi = min(lo, p.Records), max(hi, p.Records)
	}
	fmt.Fprintf(w, "dataset    %d parts by key hash, %d to %d records each\n", m.Partitions, lo, hi)
}

// printUnit prints how the timestamps were read and the warnings on the
// trace's times (see summary.TraceWarnings) for rule.
func printUnit(w io.Writer, s *tracestats.Stats, format, rule string, r traces.Reader) {
	t := summary.TraceInfo{Format: format, Requests: s.Requests(), StartNS: s.Start(), EndNS: s.End(),
		ResolutionNS: s.Resolution(), SameTime: s.SameTime()}
	t.TSUnit, t.TSUnitFrom = timeUnit(r)
	if u := unitText(t.TSUnit, t.TSUnitFrom); u != "" {
		fmt.Fprintf(w, "ts unit    %s\n", u)
	}
	for _, msg := range summary.TraceWarnings(t, []string{rule}) {
		fmt.Fprintf(w, "warning    %s\n", msg)
	}
}
