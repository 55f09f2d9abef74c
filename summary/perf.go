package summary

import "encoding/json"

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
	return WriteFileAtomic(path, data)
}
