package main

import (
	"fmt"
	"io"
	"slices"
	"time"

	"gonum.org/v1/gonum/stat"

	"ratebench/algorithms"
	"ratebench/compare"
	"ratebench/summary"
	"ratebench/traces"
)

func runInspect(stdout, stderr io.Writer, args []string) error {
	fs := newFlagSet("inspect", stderr, "[flags] FILE\n\nFILE (or -trace FILE) is the trace to describe.")
	var tf traceFlags
	tf.register(fs)
	rule := fs.String("rule", compare.DefaultConfig().Rules[0].String(), "the rule `L/W` (or layered L/W+L/W) the trace is meant for: inspect warns when the trace spans less than its window")
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
	st := newTraceStats()
	for r.Scan() {
		q := r.Request()
		st.add(q.Key, q.T, q.Cost)
	}
	if err := r.Err(); err != nil {
		return err
	}
	st.skipped, st.skipExamples = skipped(r)
	st.print(stdout, tf.path, format)
	st.printUnit(stdout, format, *rule, r)
	return nil
}

// traceStats describes a trace in one pass, holding per key only a count
// and a time.
type traceStats struct {
	ids             map[string]int32
	count           []int64
	last            []int64
	requests, cost  int64
	start, end      int64
	globalBackwards int64 // requests earlier than the latest before them
	maxGlobalStep   int64 // largest step back from the latest time seen, ns
	keyBackwards    int64 // requests earlier than their key's previous one
	maxKeyStep      int64 // largest backwards step within a key, ns
	maxKeyLate      int64 // of those, the most one came after the latest time before it, ns: what -reorder needs
	skipped         int64 // bad records skipped (-skip-bad)
	skipExamples    []summary.SkipExample
}

func newTraceStats() *traceStats { return &traceStats{ids: map[string]int32{}} }

func (s *traceStats) add(key []byte, t, cost int64) {
	id, ok := s.ids[string(key)]
	if !ok {
		id = int32(len(s.count))
		s.ids[string(key)] = id
		s.count = append(s.count, 0)
		s.last = append(s.last, t)
	}
	if s.requests == 0 {
		s.start, s.end = t, t
	} else if t < s.end {
		s.globalBackwards++
		s.maxGlobalStep = max(s.maxGlobalStep, s.end-t)
	}
	if t < s.last[id] {
		s.keyBackwards++
		s.maxKeyStep = max(s.maxKeyStep, s.last[id]-t)
		s.maxKeyLate = max(s.maxKeyLate, s.end-t) // s.end: the latest before t
	} else {
		s.last[id] = t
	}
	s.start, s.end = min(s.start, t), max(s.end, t)
	s.count[id]++
	s.requests++
	s.cost += cost
}

func (s *traceStats) print(w io.Writer, path, format string) {
	fmt.Fprintf(w, "trace      %s (%s)\n", path, format)
	fmt.Fprintf(w, "requests   %d (total cost %d)\n", s.requests, s.cost)
	fmt.Fprintf(w, "keys       %d\n", len(s.count))
	if s.skipped > 0 {
		which := ":"
		if int64(len(s.skipExamples)) < s.skipped {
			which = fmt.Sprintf("; the first %d:", len(s.skipExamples))
		}
		fmt.Fprintf(w, "skipped    %d bad records (-skip-bad)%s\n", s.skipped, which)
		for _, e := range s.skipExamples {
			where := fmt.Sprintf("line %d", e.Line)
			if e.Row > 0 {
				where = fmt.Sprintf("row %d", e.Row)
			}
			fmt.Fprintf(w, "           %s: %s\n", where, e.Reason)
		}
	}
	if s.requests == 0 {
		return
	}
	span := time.Duration(s.end - s.start)
	fmt.Fprintf(w, "time       %s .. %s (%v)\n", time.Unix(0, s.start).UTC().Format(time.RFC3339Nano), time.Unix(0, s.end).UTC().Format(time.RFC3339Nano), span)
	counts := make([]float64, len(s.count))
	for i, c := range s.count {
		counts[i] = float64(c)
	}
	slices.Sort(counts)
	fmt.Fprintf(w, "per key    requests: max %.0f, p99 %.0f, p50 %.0f, mean %.1f\n", counts[len(counts)-1],
		stat.Quantile(0.99, stat.Empirical, counts, nil), stat.Quantile(0.5, stat.Empirical, counts, nil), stat.Mean(counts, nil))
	if span > 0 {
		secs := span.Seconds()
		fmt.Fprintf(w, "rate       %.1f requests/s overall; per key: mean %.4f/s, busiest %.4f/s\n",
			float64(s.requests)/secs, float64(s.requests)/float64(len(s.count))/secs, counts[len(counts)-1]/secs)
	}
	switch {
	case s.globalBackwards == 0:
		fmt.Fprintln(w, "order      in time order")
	case s.keyBackwards == 0:
		fmt.Fprintf(w, "order      each key's time is ordered; %d requests come up to %v after later ones of other keys\n",
			s.globalBackwards, time.Duration(s.maxGlobalStep))
	default:
		fmt.Fprintf(w, "order      NOT ordered: %d requests go back in time within their key, by up to %v; compare needs -reorder %v\n",
			s.keyBackwards, time.Duration(s.maxKeyStep), time.Duration(s.maxKeyLate))
	}
}

// printUnit prints how the timestamps were read and the warnings on the
// trace's times (see summary.TraceWarnings) for rule.
func (s *traceStats) printUnit(w io.Writer, format, rule string, r traces.Reader) {
	t := summary.TraceInfo{Format: format, Requests: s.requests, StartNS: s.start, EndNS: s.end}
	t.TSUnit, t.TSUnitFrom = timeUnit(r)
	if u := unitText(t.TSUnit, t.TSUnitFrom); u != "" {
		fmt.Fprintf(w, "ts unit    %s\n", u)
	}
	for _, msg := range summary.TraceWarnings(t, []string{rule}) {
		fmt.Fprintf(w, "warning    %s\n", msg)
	}
}
