package compare

import (
	"ratebench/summary"
)

// KeyHash is the hash that assigns keys to shards and workers: FNV-1a over
// the key's bytes, then the MurmurHash3 finalizer to spread it over every
// bit. It is part of the result format: the same key falls in the same
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

// owns reports whether a key of hash h falls in shard s (every key does
// without one).
func owns(s *summary.Shard, h uint64) bool {
	return s == nil || h%uint64(s.Count) == uint64(s.Index)
}

// workerOf returns which of n workers replays a key of hash h: other bits
// than the shard's, so that every worker of a shard gets keys.
func workerOf(h uint64, n int) int { return int((h >> 32) % uint64(n)) }
