package summary

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
)

// Durations is an exact, mergeable histogram of non-negative durations in
// nanoseconds: the count, the exact sum (128 bits), the exact maximum and
// log-linear bins. Its zero value is empty and ready to use. Histograms of
// disjoint sets of samples merge to exactly the histogram of their union,
// whatever the order of Add and Merge calls, and its JSON form round-trips.
//
// # Bins
//
// A duration v has bin DurationBin(v):
//
//   - v < 32: bin v, which holds v alone (exact);
//   - v >= 32: with n = bits.Len64(v) (so 2^(n-1) <= v < 2^n) and
//     s = n-5, the bin is 16*s + (v >> s): the leading bit and the next 4
//     bits of v, 16 sub-bins per power of two. Bin i >= 32 holds
//     [m << s, (m+1) << s) with s = i/16 - 1 and m = 16 + i%16.
//
// The bins are contiguous from bin 0 to bin DurationBins-1 = 959 (which
// holds 31<<58 up to the largest int64), and bin 32 follows bin 31: the
// layout is one sequence, exact up to 31 ns then 16 bins per octave. A bin's
// width is at most 1/16 (6.25%) of its lower edge.
type Durations struct {
	// Samples is the number of durations added.
	Samples int64 `json:"samples"`
	// SumNS is their exact sum, as a 128-bit integer {high, low} word.
	SumNS [2]uint64 `json:"sum_ns"`
	// MaxNS is the largest duration added (0 if none).
	MaxNS int64 `json:"max_ns"`
	// Bins lists the non-empty bins as [bin index, count], by increasing
	// index (omitted when empty).
	Bins [][2]int64 `json:"bins,omitempty"`
}

// DurationBins is the number of bins of a Durations histogram.
const DurationBins = 960

// DurationBin returns the bin of a duration v >= 0 (see Durations).
func DurationBin(v int64) int {
	if v < 32 {
		return int(v)
	}
	s := bits.Len64(uint64(v)) - 5
	return 16*s + int(v>>s)
}

// DurationBinRange returns the smallest and the largest duration that bin i
// (0 <= i < DurationBins) holds, both inclusive.
func DurationBinRange(i int) (lo, hi int64) {
	if i < 32 {
		return int64(i), int64(i)
	}
	s := i/16 - 1
	lo = int64(16+i%16) << s
	return lo, lo + (int64(1)<<s - 1)
}

// DurationSummary is the JSON-able digest of a Durations: the count, the
// mean, quantiles (Durations.Quantile: the largest value of the bin holding
// them, at most the maximum) and the exact maximum, all in nanoseconds.
type DurationSummary struct {
	Samples int64   `json:"samples"`
	MeanNS  float64 `json:"mean_ns"`
	P50NS   int64   `json:"p50_ns"`
	P90NS   int64   `json:"p90_ns"`
	P99NS   int64   `json:"p99_ns"`
	MaxNS   int64   `json:"max_ns"`
}

// Add counts one duration. ns must be >= 0: durations here are elapsed
// times, and a negative one is a bug of the caller, so Add panics rather
// than bin it somewhere.
func (d *Durations) Add(ns int64) {
	if ns < 0 {
		panic(fmt.Sprintf("summary: Durations.Add(%d): negative duration", ns))
	}
	d.Samples++
	var c uint64
	d.SumNS[1], c = bits.Add64(d.SumNS[1], uint64(ns), 0)
	d.SumNS[0] += c
	d.MaxNS = max(d.MaxNS, ns)
	d.addBin(int64(DurationBin(ns)), 1)
}

// addBin adds count to bin i, keeping Bins sorted.
func (d *Durations) addBin(i, count int64) {
	j, found := slices.BinarySearchFunc(d.Bins, i, func(b [2]int64, i int64) int {
		switch {
		case b[0] < i:
			return -1
		case b[0] > i:
			return 1
		}
		return 0
	})
	if found {
		d.Bins[j][1] += count
		return
	}
	d.Bins = slices.Insert(d.Bins, j, [2]int64{i, count})
}

// Merge adds the samples of o (a histogram as Add and Merge build it, or
// one Validate accepts) to d.
func (d *Durations) Merge(o Durations) {
	if o.Samples == 0 && len(o.Bins) == 0 {
		return
	}
	d.Samples += o.Samples
	var c uint64
	d.SumNS[1], c = bits.Add64(d.SumNS[1], o.SumNS[1], 0)
	d.SumNS[0] += o.SumNS[0] + c
	d.MaxNS = max(d.MaxNS, o.MaxNS)
	merged := make([][2]int64, 0, len(d.Bins)+len(o.Bins))
	a, b := d.Bins, o.Bins
	for len(a) > 0 || len(b) > 0 {
		switch {
		case len(b) == 0 || (len(a) > 0 && a[0][0] < b[0][0]):
			merged, a = append(merged, a[0]), a[1:]
		case len(a) == 0 || b[0][0] < a[0][0]:
			merged, b = append(merged, b[0]), b[1:]
		default:
			merged = append(merged, [2]int64{a[0][0], a[0][1] + b[0][1]})
			a, b = a[1:], b[1:]
		}
	}
	d.Bins = merged
}

// Mean returns the mean duration in ns, from the exact sum (0 if empty).
func (d *Durations) Mean() float64 {
	if d.Samples == 0 {
		return 0
	}
	return (float64(d.SumNS[0])*0x1p64 + float64(d.SumNS[1])) / float64(d.Samples)
}

// Quantile returns the q-quantile (0 <= q <= 1) by nearest rank: the
// ceil(q*Samples)-th smallest duration (the smallest for q = 0), reported as
// the largest value of the bin that holds it, or the exact maximum if that
// is smaller. It is therefore never below the true quantile and exceeds it
// by less than the bin's width (exact below 32 ns, else under 6.25%).
// Quantile(1) is the maximum; an empty histogram gives 0.
func (d *Durations) Quantile(q float64) int64 {
	if d.Samples == 0 {
		return 0
	}
	rank := int64(math.Ceil(q * float64(d.Samples)))
	rank = min(max(rank, 1), d.Samples)
	var seen int64
	for _, b := range d.Bins {
		if seen += b[1]; seen >= rank {
			_, hi := DurationBinRange(int(b[0]))
			return min(hi, d.MaxNS)
		}
	}
	return d.MaxNS // unreachable when the bins hold Samples
}

// Summary returns the digest of the histogram.
func (d *Durations) Summary() DurationSummary {
	return DurationSummary{
		Samples: d.Samples,
		MeanNS:  d.Mean(),
		P50NS:   d.Quantile(0.50),
		P90NS:   d.Quantile(0.90),
		P99NS:   d.Quantile(0.99),
		MaxNS:   d.MaxNS,
	}
}

// Validate reports whether d is a histogram Add and Merge could have built
// (for one read from JSON): bins in range, increasing, with positive counts
// summing to Samples, and the maximum in the last bin.
func (d *Durations) Validate() error {
	var n int64
	for k, b := range d.Bins {
		if b[0] < 0 || b[0] >= DurationBins {
			return fmt.Errorf("durations: bin index %d out of [0, %d)", b[0], DurationBins)
		}
		if k > 0 && b[0] <= d.Bins[k-1][0] {
			return fmt.Errorf("durations: bins not in increasing order at index %d", b[0])
		}
		if b[1] <= 0 {
			return fmt.Errorf("durations: bin %d has count %d", b[0], b[1])
		}
		n += b[1]
	}
	if n != d.Samples {
		return fmt.Errorf("durations: bins hold %d samples, samples says %d", n, d.Samples)
	}
	if d.MaxNS < 0 {
		return fmt.Errorf("durations: negative max %d", d.MaxNS)
	}
	if n == 0 {
		if d.MaxNS != 0 || d.SumNS != [2]uint64{} {
			return fmt.Errorf("durations: no sample but a sum or a maximum")
		}
		return nil
	}
	if last := d.Bins[len(d.Bins)-1][0]; int64(DurationBin(d.MaxNS)) != last {
		return fmt.Errorf("durations: max %d ns is not in the last bin %d", d.MaxNS, last)
	}
	return nil
}
