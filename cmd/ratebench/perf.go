package main

import (
	"runtime"
	"syscall"
	"time"

	"ratebench/compare"
	"ratebench/summary"
)

// keyStats are an engine's workers and keys (Engine.KeyStats) and the Go
// heap it holds, taken once its replay is over so that the engine itself
// can go.
type keyStats struct {
	workers            int
	peakLive, released int64
	heap               uint64 // the Go heap in use, the engine's state still held, after a collection
}

// statsOf returns eng's keyStats.
func statsOf(eng *compare.Engine) keyStats {
	var k keyStats
	k.workers, k.peakLive, k.released = eng.KeyStats()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	k.heap = m.HeapAlloc
	return k
}

// measurePerf fills perf.json's figures for a replay of s whose engine
// kept k and that took d: what a run measures of itself, which the same
// trace does not reproduce (so it is kept out of summary.json).
func measurePerf(k keyStats, s *summary.Summary, d time.Duration) summary.Perf {
	p := summary.Perf{Requests: s.Trace.Requests, Runs: len(s.Runs), Seconds: d.Seconds()}
	p.Workers, p.PeakLiveKeys, p.ReleasedKeys = k.workers, k.peakLive, k.released
	if d > 0 {
		p.RequestsPerSecond = float64(s.Trace.Requests) / d.Seconds()
	}
	if s.Trace.Requests > 0 {
		p.NsPerRequest = float64(d.Nanoseconds()) / float64(s.Trace.Requests)
	}
	p.HeapBytes = k.heap
	if s.Trace.Keys > 0 {
		p.HeapBytesPerKey = float64(p.HeapBytes) / float64(s.Trace.Keys)
	}
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		p.MaxRSSBytes = int64(ru.Maxrss) * 1024 // Linux reports KiB
	}
	return p
}
