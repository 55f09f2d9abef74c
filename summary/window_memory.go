package summary

import "fmt"

// MaxMemoryWindows is the most windows of the rule a run's state is
// counted in (MemoryWindows): 2^18, 2 MiB a series, three days of a one
// second window or six months of a one minute one. A replay whose requests
// span more leaves its total not measured (Memory.TotalNotMeasured), so
// that its memory stays set by its keys, not by the trace's length.
const MaxMemoryWindows = 1 << 18

// MemoryWindows is the state all keys of a run held per window of the
// rule's length (WidthNS, aligned to t = 0): window i covers
// [(First+i)·WidthNS, (First+i+1)·WidthNS), and Bytes[i] counts each key
// at the largest state it held at any instant there. It is a sum over
// keys, so the parts of a replay (workers, shards) add exactly; the
// timeline's memory is, per bin, the largest of its windows (Binned), and
// Memory.PeakTotal the largest window. Only a shard's summary holds it,
// for merge; the whole replay's has the timeline's memory alone.
type MemoryWindows struct {
	WidthNS int64   `json:"width_ns"`
	First   int64   `json:"first"`
	Bytes   []int64 `json:"bytes"`
}

// add adds o, of the same width, into w; false (and w unchanged) if the
// sum would span more than MaxMemoryWindows, an error (naming the window,
// w unchanged) if a window's sum would leave int64.
func (w *MemoryWindows) add(o *MemoryWindows) (bool, error) {
	if len(o.Bytes) == 0 {
		return true, nil
	}
	if len(w.Bytes) == 0 {
		w.First, w.Bytes = o.First, append([]int64(nil), o.Bytes...)
		return len(o.Bytes) <= MaxMemoryWindows, nil
	}
	first := min(w.First, o.First)
	last := max(w.First+int64(len(w.Bytes)), o.First+int64(len(o.Bytes)))
	if last-first > MaxMemoryWindows {
		return false, nil
	}
	n := int(last - first)
	out := make([]int64, n)
	var add sums
	for i, v := range w.Bytes {
		out[int(w.First-first)+i] = v
	}
	for i, v := range o.Bytes {
		j := int(o.First-first) + i
		add.add(fmt.Sprintf("bytes[%d]", j), &out[j], v)
	}
	if add.err != nil {
		return false, add.err
	}
	w.First, w.Bytes = first, out
	return true, nil
}

// Binned returns, for each of the n bins of width binW from bin first (a
// multiple of the windows' width, aligned alike), the largest of the
// windows in it, trailing zeros cut.
func (w *MemoryWindows) Binned(binW, first int64, n int) []int64 {
	out := make([]int64, n)
	for i, v := range w.Bytes {
		b := int((w.First+int64(i))*w.WidthNS/binW - first)
		if b >= 0 && b < n {
			out[b] = max(out[b], v)
		}
	}
	return TrimZeros(out)
}
