package summary

// PairResult is what a point of the Cloudflare search measured: a
// candidate's decisions against the log's, both behind the same mechanism,
// a projection of the candidate's run and the log's (experiments/cloudflare) with the
// population's weight against the rule.
type PairResult struct {
	Requests int64 `json:"requests"`
	Keys     int64 `json:"sources"`
	// RefRefused is how many requests the log (behind the cache) refused.
	RefRefused int64 `json:"reference_refused"`
	// Over are requests the candidate admitted and the log refused, Under
	// the reverse; KeysOver and KeysUnder the sources with at least one.
	Over      int64 `json:"over"`
	Under     int64 `json:"under"`
	KeysOver  int64 `json:"sources_over"`
	KeysUnder int64 `json:"sources_under"`
	// KeysBoth are the sources with requests of both kinds.
	KeysBoth int64 `json:"sources_both"`
	// Disagree is Over+Under; DisagreeRate its share of Requests.
	Disagree     int64   `json:"disagree"`
	DisagreeRate float64 `json:"disagree_rate"`
	// BurstRatio is the most the candidate admitted in any window (t-W, t]
	// of one source, divided by L; KeysBurstOverL the sources whose
	// admissions exceeded L in some window.
	BurstRatio     float64 `json:"burst_ratio"`
	KeysBurstOverL int64   `json:"sources_burst_over_l"`
	// MeanGap is the mean of |estimate - exact| / exact over the requests
	// whose exact count is positive, the candidate's estimate against the
	// log's count of what both recorded (a shared history: count all, or
	// no cache under count all); -1 where the histories differ.
	MeanGap float64 `json:"mean_gap"`
	// Load is the traffic's weight against the rule: each source's mean
	// count per window (its requests × W / the trace's span) divided by
	// L, averaged over requests (a source weighs by its requests).
	// NearShare is the share of requests from sources whose mean count per
	// window is at least half of L.
	// Span is the time from the first request to the last, in seconds.
	Span      float64 `json:"span_seconds"`
	Load      float64 `json:"load"`
	NearShare float64 `json:"near_share"`
}
