package traces

// KeyHash is the hash that assigns keys to the parts of a dataset and to
// the shards and workers of a replay: FNV-1a over the key's bytes, then
// the MurmurHash3 finalizer to spread it over every bit. It is part of the
// dataset and result formats: the same key falls in the same part and
// shard on every machine and in every version.
func KeyHash(key []byte) uint64 {
	h := uint64(14695981039346656037)
	for _, c := range key {
		h ^= uint64(c)
		h *= 1099511628211
	}
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	h ^= h >> 33
	return h
}
