package generators

// radixSort sorts keys in place by their low `bits` bits (the rest must be
// zero), using tmp (same length) as scratch: an LSD radix sort with 8-bit
// digits, stable and linear, which beats a comparison sort on the packed
// (time, source) keys of a chunk.
func radixSort(keys, tmp []uint64, bits int) {
	src, dst := keys, tmp
	for shift := 0; shift < bits; shift += 8 {
		var count [256]int
		for _, k := range src {
			count[(k>>shift)&0xff]++
		}
		if count[(src[0]>>shift)&0xff] == len(src) {
			continue // every key has the same digit here
		}
		pos := 0
		for i, c := range count {
			count[i] = pos
			pos += c
		}
		for _, k := range src {
			d := (k >> shift) & 0xff
			dst[count[d]] = k
			count[d]++
		}
		src, dst = dst, src
	}
	if &src[0] != &keys[0] {
		copy(keys, src)
	}
}
