package summary

// The scale of Cloudflare's published experiment: 400 million requests
// from 270,000 sources. The reproduction replays it by default, and a
// search's Scale is CloudflareSources over its points' sources.
const (
	CloudflareRequests = 400_000_000
	CloudflareSources  = 270_000
)

// CloudflareSearch is a search of the space of Cloudflare's mechanism: a
// population replayed through the log and the counter, both behind the
// same mitigation timeout, at every combination of the searched values.
type CloudflareSearch struct {
	// Command reproduces the search.
	Command string `json:"command"`
	// Requests and Sources are each point's population (the full-scale
	// experiment's per-source traffic at a smaller number of sources).
	Requests int64 `json:"requests"`
	Sources  int   `json:"sources"`
	// Scale is the full-scale experiment's sources divided by Sources:
	// the factor by which a point's counts of sources and requests scale.
	Scale  float64       `json:"scale"`
	Count  string        `json:"count"`
	Points []SearchPoint `json:"points"`
	// Check, if not nil, is the closest point replayed again with more
	// sources (the search folder's check/summary.json, a search of one
	// point): how far a point's figures move with the scale. It is read
	// beside the search, not stored in its file.
	Check *CloudflareSearch `json:"-"`
	// Full are points of the search replayed at the full scale of
	// Cloudflare's experiment (the search folder's full/*/summary.json,
	// each a search of one point, in the order of their folders' names):
	// the figures to hold against the published ones. Read as Check is.
	Full []*CloudflareSearch `json:"-"`
}

// SameSetting reports whether p and q are the same combination (rule,
// algorithm, population and timeout), whatever their scale.
func (p *SearchPoint) SameSetting(q *SearchPoint) bool {
	return p.Rule == q.Rule && p.Algorithm == q.Algorithm && p.Rate == q.Rate && p.Alpha == q.Alpha && p.Max == q.Max && p.Block == q.Block
}

// SearchPoint is one combination of the search and what its replay
// measured.
type SearchPoint struct {
	Rule string `json:"rule"`
	// Algorithm is the candidate: the counter or one of its variants.
	Algorithm string  `json:"algorithm"`
	Rate      float64 `json:"rate"`
	Alpha     float64 `json:"alpha"`
	Max       float64 `json:"max"`
	// Block is the mitigation timeout ("" for none, "window" for till the
	// window's end).
	Block string `json:"block"`
	PairResult
}
