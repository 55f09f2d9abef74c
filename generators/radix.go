package generators

import "slices"

// sortKeys sorts keys (whose bits above `bits` are zero) using tmp, of the
// same length, as scratch, and returns the sorted keys: keys or tmp. A
// counting sort on the top bits spreads the keys into buckets of about 16
// to 32 in one pass, and each bucket, in cache, is then sorted in place
// (by insertion, unless it is large). On the packed (time, source) keys of
// a chunk this beats both a comparison sort of the whole chunk and an LSD
// radix sort, whose passes each stream the whole chunk through memory.
func sortKeys(keys, tmp []uint64, bits int) []uint64 {
	digit := min(max(bitLen(uint64(len(keys)))-5, 12), 16)
	if len(keys) < 1<<12 || bits <= digit {
		slices.Sort(keys)
		return keys
	}
	shift := bits - digit
	start := make([]int32, 1<<digit+1)
	for _, k := range keys {
		start[k>>shift+1]++
	}
	for i := 1; i < len(start); i++ {
		start[i] += start[i-1]
	}
	next := slices.Clone(start[:1<<digit])
	for _, k := range keys {
		d := k >> shift
		tmp[next[d]] = k
		next[d]++
	}
	for d := range 1 << digit {
		s := tmp[start[d]:start[d+1]]
		if len(s) > 48 {
			slices.Sort(s)
			continue
		}
		for i := 1; i < len(s); i++ {
			k, j := s[i], i
			for ; j > 0 && s[j-1] > k; j-- {
				s[j] = s[j-1]
			}
			s[j] = k
		}
	}
	return tmp
}
