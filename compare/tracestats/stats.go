// Package tracestats describes a trace in one pass (ratebench inspect):
// its requests, keys and cost, its time span, the requests per key, and
// how far its times go back, overall and within a key (what compare's
// -reorder needs), and their resolution (the unit they are multiples of,
// and the requests at their key's previous time), holding per key only a
// count and a time.
package tracestats

import (
	"fmt"
	"io"
	"slices"
	"time"

	"gonum.org/v1/gonum/stat"

	"ratebench/algorithms"
	"ratebench/internal/escape"
	"ratebench/internal/numfmt"
	"ratebench/summary"
	"ratebench/traces"
)

// Stats describes a trace in one pass, holding per key only a count and a
// time.
type Stats struct {
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
	unit            int64 // the gcd of the times, ns: the coarsest unit they are all multiples of
	sameTime        int64 // requests at their key's latest time so far: at its previous one's in key order
	sameTimeOrdered bool  // sameTime was set from the trace read in time order (SetSameTime)
	// Skipped and SkipExamples are the bad records the reader skipped
	// (-skip-bad), which the caller sets from the reader.
	Skipped      int64
	SkipExamples []summary.SkipExample
	// Trace, if set, is the trace as it was read (its path and input
	// flags), which the compare command Print suggests reads it with; else
	// the path Print is given, with no flag.
	Trace *summary.TraceInfo
	// Program is the name that command calls ratebench by (as it was
	// invoked); summary.Program when empty.
	Program string
}

// New starts the description of a trace.
func New() *Stats { return &Stats{ids: map[string]int32{}} }

// Read describes the trace r, read to its end.
func Read(r traces.Reader) (*Stats, error) {
	s := New()
	for r.Scan() {
		q := r.Request()
		s.Add(q.Key, q.T, q.Cost)
	}
	return s, r.Err()
}

// Requests, Start and End are the trace's number of requests and its
// first and last times (ns).
func (s *Stats) Requests() int64 { return s.requests }
func (s *Stats) Start() int64    { return s.start }
func (s *Stats) End() int64      { return s.end }

// ReorderNeed is the least -reorder window that puts every request of the
// trace in its key's time order: the most one that goes back within its
// key came after the latest time read before it, ns (0 when none does).
func (s *Stats) ReorderNeed() int64 { return s.maxKeyLate }

// SetReorderNeed sets the -reorder Print advises: for a trace read through
// a reorder window too small, the window its file order needs (what
// ReorderNeed is when it is read without one), not what is left after it.
func (s *Stats) SetReorderNeed(ns int64) { s.maxKeyLate = ns }

// Resolution is the coarsest unit every time of the trace is a multiple
// of, in ns (0 for no request, or every time 0), and SameTime how many
// requests are at the same time as their key's previous one in the key's
// time order: what compare records as trace.resolution_ns and
// trace.same_time_as_previous. SameTime is exact when every key's times
// go forward as read (KeyOrdered) or SetSameTime gave it; else it counts
// the requests at their key's latest time so far, a lower bound: a
// request that goes back may share a time the key had before.
func (s *Stats) Resolution() int64 { return s.unit }
func (s *Stats) SameTime() int64   { return s.sameTime }

// KeyOrdered tells whether every key's times go forward as read.
func (s *Stats) KeyOrdered() bool { return s.keyBackwards == 0 }

// SetSameTime sets SameTime of a trace whose keys' times go back as read
// to n, the count of the trace read in time order (through the -reorder
// it needs).
func (s *Stats) SetSameTime(n int64) { s.sameTime, s.sameTimeOrdered = n, true }

// SameTimeExact tells whether SameTime is the count in each key's time
// order, not a lower bound.
func (s *Stats) SameTimeExact() bool { return s.KeyOrdered() || s.sameTimeOrdered }

// Add takes the trace's next request.
func (s *Stats) Add(key []byte, t, cost int64) {
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
	if u := s.unit; u == 0 || t%u != 0 {
		s.unit = algorithms.GCD(u, t)
	}
	if ok && t == s.last[id] {
		s.sameTime++
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

// Print describes the trace at path, in format, on w: its requests,
// keys, skipped records, time span, rates per key and time order (with
// the compare command that reads it, if it needs -reorder).
func (s *Stats) Print(w io.Writer, path, format string) {
	fmt.Fprintf(w, "trace      %s (%s)\n", escape.Visible(path), format)
	fmt.Fprintf(w, "requests   %d (total cost %d)\n", s.requests, s.cost)
	fmt.Fprintf(w, "keys       %d\n", len(s.count))
	if s.Skipped > 0 {
		which := ":"
		if int64(len(s.SkipExamples)) < s.Skipped {
			which = fmt.Sprintf("; the first %d:", len(s.SkipExamples))
		}
		fmt.Fprintf(w, "skipped    %d bad records (-skip-bad)%s\n", s.Skipped, which)
		for _, e := range s.SkipExamples {
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
	case s.unit > 0 && s.SameTimeExact():
		fmt.Fprintf(w, "resolution every time a multiple of %v; %s of the requests at their key's previous time\n",
			time.Duration(s.unit), numfmt.PercentOf(s.sameTime, s.requests))
	case s.unit > 0:
		fmt.Fprintf(w, "resolution every time a multiple of %v; at least %s of the requests at their key's previous time (in time order; a request that goes back may share a time its key had before)\n",
			time.Duration(s.unit), numfmt.PercentOf(s.sameTime, s.requests))
	}
	switch {
	case s.globalBackwards == 0:
		fmt.Fprintln(w, "order      in time order")
	case s.keyBackwards == 0:
		fmt.Fprintf(w, "order      each key's time is ordered; %d requests come up to %v after later ones of other keys\n",
			s.globalBackwards, time.Duration(s.maxGlobalStep))
	default:
		t := summary.TraceInfo{Path: path}
		if s.Trace != nil {
			t = *s.Trace
		}
		program := s.Program
		if program == "" {
			program = summary.Program
		}
		need := numfmt.FlagDuration(s.maxKeyLate)
		fmt.Fprintf(w, "order      NOT ordered: %d requests go back in time within their key, by up to %v; compare needs -reorder %s: %s\n",
			s.keyBackwards, time.Duration(s.maxKeyStep), need,
			escape.ShellCommand(t.WithInput("reorder", need).Command(program, "compare")...))
	}
}
