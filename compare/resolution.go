package compare

import (
	"ratebench/summary"
	"ratebench/traces"
)

// The resolution of a trace's times (summary.TraceInfo.ResolutionNS and
// SameTime) is measured as it is replayed, at a cost of one test per
// request each: a worker keeps the gcd of the times it replays (once it
// is 1 ns, as it soon is for times in ns, it stays 1 and costs one
// comparison; else a time that is a multiple of the gcd so far, the
// common case, costs one remainder), and its key table counts the requests at the same time as
// their key's previous one (the key's last time, which the order check
// reads anyway). Workers and shards of disjoint keys merge them exactly:
// the gcd of the gcds, the sum of the counts (summary.MergeDisjoint). A
// released key's next request is always later than its last one, so
// releasing keys changes no count.

// resolutionAsRead sets the resolution figures of a replay's summary
// (its workers' merged) from the caller's trace when the caller spread
// the requests before the replay (trace.Spread): the figures are then
// those of the times as read of the keys replayed (a shard's), not of the
// spread times the workers saw.
func resolutionAsRead(info *summary.TraceInfo, trace summary.TraceInfo) {
	if trace.Spread == nil {
		return
	}
	info.Spread = trace.Spread
	info.ResolutionNS, info.SameTime = trace.ResolutionNS, trace.SameTime
}

// Owns reports whether key falls in shard s (every key does without one):
// for a reader that counts figures of the keys of a shard (the times as
// read of a spread replay).
func Owns(s *summary.Shard, key []byte) bool { return owns(s, traces.KeyHash(key)) }
