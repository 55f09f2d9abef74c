package summary

import (
	"fmt"
	"slices"
)

// dataset checks a run's dataset read: at least one partition, the parts
// read ascending, each once, each one of them.
func (v *validator) dataset(d *DatasetRead) {
	if d == nil {
		return
	}
	if d.Partitions < 1 {
		v.fail("trace.dataset.partitions", "%d: want at least 1", d.Partitions)
		return
	}
	if len(d.PartsRead) == 0 {
		v.fail("trace.dataset.parts_read", "empty: a run reads at least one part")
	}
	for i, j := range d.PartsRead {
		switch {
		case j < 0 || j >= d.Partitions:
			v.fail(fmt.Sprintf("trace.dataset.parts_read[%d]", i), "%d is not a part of %d partitions", j, d.Partitions)
		case i > 0 && j <= d.PartsRead[i-1]:
			v.fail(fmt.Sprintf("trace.dataset.parts_read[%d]", i), "%d after %d: want each part once, ascending", j, d.PartsRead[i-1])
		}
	}
}

// mergeDataset checks the parts' dataset reads, which are all absent or
// all present, of the same number of partitions, and returns the merge's
// with whether the parts read other parts of the dataset (split). Parts
// that read the same parts (workers of one replay, shards whose count
// does not divide the partitions) read the same records: the merge takes
// them once. Parts that read other parts must read disjoint ones (the
// shards of a count dividing the partitions): their records read and
// skipped are then each its own, and add up.
func mergeDataset(parts []*Summary) (d *DatasetRead, split bool, err error) {
	first := parts[0].Trace.Dataset
	for i, p := range parts {
		pd := p.Trace.Dataset
		switch {
		case (pd == nil) != (first == nil):
			return nil, false, fmt.Errorf("merge: part %d read a dataset and part 0 not, or the other way round: not the same trace", i)
		case pd == nil:
			continue
		case pd.Partitions != first.Partitions:
			return nil, false, fmt.Errorf("merge: part %d read a dataset of %d partitions, part 0 one of %d: not the same trace", i, pd.Partitions, first.Partitions)
		case !slices.Equal(pd.PartsRead, first.PartsRead):
			split = true
		}
	}
	if !split {
		return first, false, nil
	}
	read := make([]int, first.Partitions) // which merge part read each dataset part, plus one
	for i, p := range parts {
		for _, j := range p.Trace.Dataset.PartsRead {
			if read[j] != 0 {
				return nil, false, fmt.Errorf("merge: parts %d and %d both read part %d of the dataset: its records would count twice", read[j]-1, i, j)
			}
			read[j] = i + 1
		}
	}
	d = &DatasetRead{Partitions: first.Partitions}
	for j, by := range read {
		if by != 0 {
			d.PartsRead = append(d.PartsRead, j)
		}
	}
	return d, true, nil
}
