package compare

import (
	"ratebench/algorithms"
	"ratebench/summary"
)

// memoryAcc reports the analytic state size of a run's limiter: per key,
// a fixed size, or, for the log, the largest size each key reached (the
// limiter follows it); in total, the state all keys held in each window of
// the rule, each key at its largest there (windowGrid).
type memoryAcc struct {
	lim algorithms.Limiter
}

// memoryReporter is a limiter whose state size varies, which follows each
// key's largest size.
type memoryReporter interface {
	Memory() (peakPerKey, sumOfPeaks int64)
}

func (*memoryAcc) place(*algorithms.Block) {}
func (*memoryAcc) grow(int)                {}
func (*memoryAcc) release(int32)           {}

// close writes the memory of the run: its state per window of the rule
// and, from it, the timeline's memory (see windowGrid).
func (m *memoryAcc) close(r *summary.Run, c *closing) {
	r.Memory = m.summary(c.keys.len(), c.state, c.held)
	r.FillWindows(true)
}

// summary returns the memory of the run, its state per window from the
// group's counts g: the log's, or held, the keys holding state in this run.
func (m *memoryAcc) summary(keys int, g *windowGrid, held []int64) summary.Memory {
	var out summary.Memory
	var series []int64
	if r, ok := m.lim.(memoryReporter); ok && !m.lim.FixedSize() {
		out.Model = modelLog
		out.PeakPerKey, out.SumOfPeaks = r.Memory()
		if _, product := m.lim.(algorithms.Product); product {
			// A product's own log (Tyk's, the limits library's) holds
			// other entries than the exact log whose size the group
			// counts per window: its total is not the log's.
			out.Model, out.TotalNotMeasured = summary.MemoryModelOwnLog, true
			out.Fill(keys, nil) // the mean per key; no series
			return out
		}
		series = append(series, g.Memory...)
	} else {
		b := m.lim.Bytes(0)
		out.Model = modelFixed
		out.PeakPerKey, out.SumOfPeaks = b, b*int64(keys)
		series = make([]int64, len(held))
		for i, n := range held {
			series[i] = b * n
		}
	}
	if g.over {
		out.TotalNotMeasured = true
		out.Fill(keys, nil) // the mean per key; no series
		return out
	}
	out.Windows = &summary.MemoryWindows{WidthNS: g.w, First: g.first, Bytes: summary.TrimZeros(series)}
	return out
}

// The memory models, as summary.json names them.
const (
	modelLog   = "per entry in the window, pruned when the key is next seen; total: each key at its largest in each window of the rule"
	modelFixed = "fixed per key; total: keys holding state at some instant of each window of the rule"
)
