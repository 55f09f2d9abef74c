package compare

import (
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"syscall"
	"time"
)

// Perf is what a replay measured of itself: not reproducible, so kept out
// of summary.json, in perf.json beside it.
type Perf struct {
	Requests          int64   `json:"requests"`
	Runs              int     `json:"runs"`
	Seconds           float64 `json:"seconds"`
	RequestsPerSecond float64 `json:"requests_per_second"`
	NsPerRequest      float64 `json:"ns_per_request"`
	// HeapBytes is the live Go heap after the replay, after a collection.
	HeapBytes       uint64  `json:"heap_bytes"`
	HeapBytesPerKey float64 `json:"heap_bytes_per_key"`
	// MaxRSSBytes is the process's peak resident set size so far.
	MaxRSSBytes int64 `json:"max_rss_bytes"`
	// Workers replayed the keys in parallel.
	Workers int `json:"workers"`
	// PeakLiveKeys is the most keys holding state at once (summed over
	// workers), ReleasedKeys how often an idle key's state was released.
	PeakLiveKeys int64 `json:"peak_live_keys"`
	ReleasedKeys int64 `json:"released_keys"`
}

// MeasurePerf fills a Perf for a replay of s by e that took d.
func MeasurePerf(e *Engine, s *Summary, d time.Duration) Perf {
	p := Perf{Requests: s.Trace.Requests, Runs: len(s.Runs), Seconds: d.Seconds(), Workers: max(1, len(e.parts))}
	for _, w := range append([]*Engine{e}, e.parts...) {
		p.PeakLiveKeys += int64(w.rel.peakLive)
		p.ReleasedKeys += w.rel.released
	}
	if d > 0 {
		p.RequestsPerSecond = float64(s.Trace.Requests) / d.Seconds()
	}
	if s.Trace.Requests > 0 {
		p.NsPerRequest = float64(d.Nanoseconds()) / float64(s.Trace.Requests)
	}
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	p.HeapBytes = m.HeapAlloc
	if s.Trace.Keys > 0 {
		p.HeapBytesPerKey = float64(p.HeapBytes) / float64(s.Trace.Keys)
	}
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		p.MaxRSSBytes = int64(ru.Maxrss) * 1024 // Linux reports KiB
	}
	return p
}

// Marshal returns the perf record as indented JSON with a final newline.
func (p Perf) Marshal() ([]byte, error) {
	data, err := json.MarshalIndent(p, "", " ")
	if err != nil {
		return nil, err
	}
	return append(data, '\n'), nil
}

// WriteFile writes the perf record as indented JSON.
func (p Perf) WriteFile(path string) error {
	data, err := p.Marshal()
	if err != nil {
		return err
	}
	return writeAtomic(path, data)
}

// ReadPerfFile reads a perf.json.
func ReadPerfFile(path string) (Perf, error) {
	var p Perf
	data, err := os.ReadFile(path)
	if err != nil {
		return p, err
	}
	if err := json.Unmarshal(data, &p); err != nil {
		return p, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}
