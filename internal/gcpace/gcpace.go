// Package gcpace paces the garbage collector of a replay. A replay's heap
// is mostly state that lives as long as its keys and grows with them (key
// tables, windows), beside a small stream of garbage (read buffers, grown
// slices). At the collector's default pace (GOGC=100) the heap may grow by
// all that was live at the last collection before the next one, and the
// process holds that slack at its peak: at a million keys, some hundred
// megabytes of garbage. Once the live heap is large it is the slack that
// costs, not the collections (each marks long-lived, pointer-free state,
// quickly), so the pace follows the live heap: the heap grows by at most
// Slack between collections, or by MinPercent of what is live where that
// is more, and at the default pace while the live heap is below Slack.
package gcpace

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"
)

const (
	// Slack is the most the heap grows by between collections once what
	// is live passes it.
	Slack = 32 << 20
	// MinPercent bounds the pace from below: past 100/MinPercent times
	// Slack of live heap, the heap grows by MinPercent of it.
	MinPercent = 10
	// defaultPercent is the collector's default pace (GOGC=100).
	defaultPercent = 100
)

var started atomic.Bool

// Start paces the collector from now on: after each collection it reads
// the live heap and sets the percentage for the next (Percent). It does
// nothing if GOGC is set in the environment (the user's pace is kept),
// or if it was already started.
func Start() {
	if os.Getenv("GOGC") != "" || !started.CompareAndSwap(false, true) {
		return
	}
	arm(defaultPercent)
}

// Percent returns the collector's percentage (GOGC) for a live heap of
// live bytes.
func Percent(live uint64) int {
	if live <= Slack {
		return defaultPercent
	}
	return max(MinPercent, int(defaultPercent*Slack/live))
}

// sentinel is allocated once per collection, unreachable at once, so that
// its cleanup runs after the next collection. Its size keeps it out of the
// tiny allocator, whose blocks are freed only when all they hold is.
type sentinel [32]byte

// arm waits for the next collection, then paces the one after it; pct is
// the percentage now in force.
func arm(pct int) {
	runtime.AddCleanup(new(sentinel), func(pct int) {
		if want := Percent(liveHeap()); want != pct {
			debug.SetGCPercent(want)
			pct = want
		}
		arm(pct)
	}, pct)
}

// liveHeap returns the heap live at the last collection.
func liveHeap() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}
