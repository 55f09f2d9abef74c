package clients

import (
	"fmt"
	"math/bits"

	"ratebench/summary"
)

// Dense is a summary.Durations being filled: its bins are a flat array, so
// that Add costs the same whatever the samples (Durations' sparse bins cost
// a search and an insertion). Its zero value is empty; Durations returns the
// histogram Add on a summary.Durations would have built from the same
// samples.
type Dense struct {
	samples int64
	sum     [2]uint64
	max     int64
	bins    [summary.DurationBins]int64
}

// Add counts one duration, ns >= 0 (see summary.Durations.Add).
func (d *Dense) Add(ns int64) {
	if ns < 0 {
		panic(fmt.Sprintf("clients: Dense.Add(%d): negative duration", ns))
	}
	d.samples++
	var c uint64
	d.sum[1], c = bits.Add64(d.sum[1], uint64(ns), 0)
	d.sum[0] += c
	d.max = max(d.max, ns)
	d.bins[summary.DurationBin(ns)]++
}

// Durations returns the histogram of the samples added.
func (d *Dense) Durations() summary.Durations {
	out := summary.Durations{Samples: d.samples, SumNS: d.sum, MaxNS: d.max}
	for i, c := range d.bins {
		if c != 0 {
			out.Bins = append(out.Bins, [2]int64{int64(i), c})
		}
	}
	return out
}
