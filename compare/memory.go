package compare

import (
	"ratebench/algorithms"
	"ratebench/summary"
)

// memoryAcc reports the analytic state size of a run's limiter: per key,
// a fixed size, or, for the log, the largest size each key reached (the
// limiter follows it); in total, the state all keys held together at the
// end of each bin of the timeline (stateSeries).
type memoryAcc struct {
	lim algorithms.Limiter
}

// memoryReporter is a limiter whose state size varies, which follows each
// key's largest size.
type memoryReporter interface {
	Memory() (peakPerKey, sumOfPeaks int64)
}

func (*memoryAcc) grow(int)      {}
func (*memoryAcc) release(int32) {}

// close writes the memory of the run and its series at the ends of the
// timeline's bins (after the timeline).
func (m *memoryAcc) close(r *summary.Run, c *closing) {
	r.Memory, r.Timeline.Memory = m.summary(c.keys.len(), c.state, c.held)
}

// summary returns the memory of the run and its series at the ends of the
// timeline's bins, from the group's samples tl: the log's, or held, the
// keys holding state in this run.
func (m *memoryAcc) summary(keys int, tl *timelineAcc, held []int64) (summary.Memory, []int64) {
	var out summary.Memory
	var series []int64
	if r, ok := m.lim.(memoryReporter); ok && !m.lim.FixedSize() {
		out.Model = modelLog
		out.PeakPerKey, out.SumOfPeaks = r.Memory()
		series = append(series, tl.Memory...)
	} else {
		b := m.lim.Bytes(0)
		out.Model = modelFixed
		out.PeakPerKey, out.SumOfPeaks = b, b*int64(keys)
		series = make([]int64, len(held))
		for i, n := range held {
			series[i] = b * n
		}
	}
	series = summary.TrimZeros(series)
	out.Fill(keys, series)
	return out, series
}

// The memory models, as summary.json names them.
const (
	modelLog   = "per entry in the window, pruned when the key is next seen; total: entries in the window at the end of each timeline bin"
	modelFixed = "fixed per key; total: keys whose state is not back to its initial value at the end of each timeline bin"
)
