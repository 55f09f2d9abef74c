package compare

import (
	"ratebench/summary"
)

// owns reports whether a key of hash h falls in shard s (every key does
// without one).
func owns(s *summary.Shard, h uint64) bool {
	return s == nil || h%uint64(s.Count) == uint64(s.Index)
}

// workerOf returns which of n workers replays a key of hash h: other bits
// than the shard's, so that every worker of a shard gets keys.
func workerOf(h uint64, n int) int { return int((h >> 32) % uint64(n)) }
