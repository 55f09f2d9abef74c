package generators

import "slices"

// sortKeys sorts keys (whose bits above `bits` are zero) using tmp, of the
// same length, as scratch. A counting sort on the top 12 bits spreads the
// keys into 4096 buckets in one pass; each bucket, small enough to stay in
// cache, is then sorted in place. On the packed (time, source) keys of a
// chunk this beats both a comparison sort of the whole chunk and an LSD
// radix sort, whose passes each stream the whole chunk through memory.
func sortKeys(keys, tmp []uint64, bits int) {
	const digit = 12
	if len(keys) < 1<<12 || bits <= digit {
		slices.Sort(keys)
		return
	}
	shift := bits - digit
	var start [1<<digit + 1]int
	for _, k := range keys {
		start[k>>shift+1]++
	}
	for i := 1; i < len(start); i++ {
		start[i] += start[i-1]
	}
	next := start
	for _, k := range keys {
		d := k >> shift
		tmp[next[d]] = k
		next[d]++
	}
	for d := 0; d < 1<<digit; d++ {
		slices.Sort(tmp[start[d]:start[d+1]])
	}
	copy(keys, tmp)
}
