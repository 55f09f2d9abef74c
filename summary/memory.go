package summary

import (
	"fmt"
	"slices"
)

// Memory is the analytic state size of the algorithm (see each algorithm's
// doc in package algorithms): the bytes a compact implementation keeps per
// key, not counting the key itself. The log's entries are pruned when their
// key is next seen, as an in-process log or a Redis sorted set trimmed on
// each request would.
type Memory struct {
	Model string `json:"model"`
	// PeakPerKey is the largest state one key held at any instant.
	PeakPerKey int64 `json:"peak_per_key"`
	// MeanPerKey is the mean over keys of each key's peak, SumOfPeaks
	// over Keys.
	MeanPerKey float64 `json:"mean_per_key"`
	SumOfPeaks int64   `json:"sum_of_peaks"`
	// PeakTotal is the largest state all keys held in one window of the
	// rule (Windows), each key counted at its largest there: for the log,
	// its entries in the window (as a log pruned exactly when entries
	// expire would hold); for the others, their size times the keys with a
	// request in the window or whose state is not back to its initial value
	// at its start. It is at least the state all keys held together at any
	// one instant, and that exactly for fixed and the counters (unless a
	// key's only requests in a window left no state: each cost more than L).
	PeakTotal int64 `json:"peak_total"`
	// Windows is the series PeakTotal is the largest of, in a shard's
	// summary only (see MemoryWindows).
	Windows *MemoryWindows `json:"windows,omitempty"`
	// TotalNotMeasured says that the trace spans more than
	// MaxMemoryWindows windows of the rule, too many to count the state
	// per window in bounded memory, or that the run's state is a log of
	// its own (Model MemoryModelOwnLog), whose total per window is not
	// counted: PeakTotal is then 0 and the timeline has no memory series,
	// which the report says rather than show 0 B.
	TotalNotMeasured bool `json:"peak_total_not_measured,omitempty"`
}

// MemoryModelOwnLog is the memory model of a product that keeps a log of
// its own (entries the exact log would not hold: refused requests, other
// times): its peak per key is its own, its total per window not measured.
const MemoryModelOwnLog = "per entry in its own log, pruned when the key is next seen; total: not measured"

// FillWindows sets r's timeline memory and Memory from its windows,
// which it keeps only if keep (a shard's summary).
func (r *Run) FillWindows(keep bool) {
	w := r.Memory.Windows
	if w == nil {
		return
	}
	r.Timeline.Memory = w.Binned(r.Timeline.WidthNS, r.Timeline.First, len(r.Timeline.Requests))
	r.Memory.Fill(int(r.Keys), r.Timeline.Memory)
	if !keep {
		r.Memory.Windows = nil
	}
}

// Fill derives MeanPerKey, from SumOfPeaks over keys, and PeakTotal, the
// largest of series (Timeline.Memory).
func (m *Memory) Fill(keys int, series []int64) {
	m.MeanPerKey, m.PeakTotal = 0, 0
	if keys > 0 {
		m.MeanPerKey = float64(m.SumOfPeaks) / float64(keys)
	}
	for _, v := range series {
		m.PeakTotal = max(m.PeakTotal, v)
	}
}

// merge takes the largest peak per key and adds the sums of peaks and the
// windows of the parts (all of one memory model): the totals are the
// merged timeline's (Run.closeMemory). A part that did not measure its
// total, or windows that together span more than MaxMemoryWindows, leave
// the merge's total not measured.
func (m *Memory) merge(o *Memory, mg *merging) (*Memory, error) {
	f := &mg.first.Memory
	if o.Model != f.Model {
		return nil, fmt.Errorf("parts have different memory models")
	}
	m.Model = f.Model
	m.PeakPerKey = max(m.PeakPerKey, o.PeakPerKey)
	mg.add("sum_of_peaks", &m.SumOfPeaks, o.SumOfPeaks)
	if o.TotalNotMeasured {
		m.TotalNotMeasured = true
	} else if (o.Windows == nil) != (f.Windows == nil) && !f.TotalNotMeasured {
		return nil, fmt.Errorf("parts have memory per window in some and not in others")
	}
	if w := o.Windows; w != nil && !m.TotalNotMeasured {
		if m.Windows == nil {
			m.Windows = &MemoryWindows{WidthNS: w.WidthNS}
		}
		if w.WidthNS != m.Windows.WidthNS {
			return nil, fmt.Errorf("parts count memory in windows of %d ns and %d ns", w.WidthNS, m.Windows.WidthNS)
		}
		fits, err := m.Windows.add(w)
		if err != nil {
			return nil, fmt.Errorf("%s.%w", mg.field("windows"), err)
		}
		if !fits {
			m.TotalNotMeasured = true
		}
	}
	if m.TotalNotMeasured {
		m.Windows = nil
	}
	return m, nil
}

// closeMemory sets the totals of a merged run's memory from its merged
// timeline's memory series and windows (none where the total is not
// measured).
func (r *Run) closeMemory() {
	r.Memory.Fill(int(r.Keys), r.Timeline.Memory)
	r.FillWindows(true)
	if r.Memory.TotalNotMeasured {
		r.Timeline.Memory, r.Memory.PeakTotal = nil, 0
	}
}

// validate checks that the memory figures are non-negative and agree with
// each other: the mean per key is the sum of peaks over the keys, and the
// peak total the largest of the timeline's memory (0, with no series, when
// not measured).
func (m *Memory) validate(v *validator, path string, in *runIn) {
	r := in.run
	if m.Model == "" {
		v.fail(path+".model", "missing")
	}
	v.nonNegative(path+".peak_per_key", m.PeakPerKey)
	v.nonNegative(path+".sum_of_peaks", m.SumOfPeaks)
	v.nonNegative(path+".peak_total", m.PeakTotal)
	if v.err != nil {
		return
	}
	mean := 0.0
	if r.Keys > 0 {
		mean = float64(m.SumOfPeaks) / float64(r.Keys)
	}
	if m.MeanPerKey != mean {
		v.fail(path+".mean_per_key", "%v, but sum_of_peaks over keys is %v", m.MeanPerKey, mean)
	}
	if m.TotalNotMeasured {
		if m.PeakTotal != 0 || r.Timeline.Memory != nil {
			v.fail(path+".peak_total", "the total is not measured (peak_total_not_measured), yet peak_total is %d and the timeline has %d bins of memory", m.PeakTotal, len(r.Timeline.Memory))
		}
	} else if peak := slices.Max(append([]int64{0}, r.Timeline.Memory...)); m.PeakTotal != peak {
		v.fail(path+".peak_total", "%d, but the largest of timeline.memory is %d", m.PeakTotal, peak)
	}
	if w := m.Windows; w != nil {
		if w.WidthNS <= 0 {
			v.fail(path+".windows.width_ns", "%d is not positive", w.WidthNS)
		}
		if len(w.Bytes) > MaxMemoryWindows {
			v.fail(path+".windows.bytes", "%d windows, more than %d", len(w.Bytes), MaxMemoryWindows)
		}
		v.counts(path+".windows.bytes", w.Bytes)
	}
}
