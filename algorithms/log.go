package algorithms

// Log is the sliding window log, the exact reference (SPEC 3.1). The window
// is the half-open span (t-W, t]: a request exactly W old has expired. With
// A the cost recorded in that span, a request is admitted iff A+cost <= L.
//
// Memory: one timestamp per recorded request still in the window, plus its
// cost when that is not 1, plus the running sum: 8*entries + 8*(entries
// with cost != 1) + 8 bytes. The harness holds each key's entries in a ring
// buffer that grows only to what the window holds.
type Log struct {
	rule  Rule
	rings []WindowSum
}

// NewLog returns the sliding log for rule r.
func NewLog(r Rule) *Log { return &Log{rule: r} }

func (*Log) Name() string           { return "log" }
func (l *Log) Grow(n int)           { l.rings = grow(l.rings, n) }
func (*Log) FixedSize() bool        { return false }
func (*Log) CountsRejected() bool   { return true }
func (l *Log) Bytes(id int32) int64 { return l.rings[id].Bytes() }

func (l *Log) Decide(id int32, t, cost int64) bool {
	w := &l.rings[id]
	w.Expire(t - l.rule.W)
	return cost <= l.rule.L-w.Sum()
}

func (l *Log) Record(id int32, t, cost int64) { l.rings[id].Add(t, cost) }

// Estimate returns the exact cost in (t-W, t].
func (l *Log) Estimate(id int32, t int64) float64 { return float64(l.rings[id].Sum()) }

// Sum returns the cost recorded for key id in (t-W, t] as of its last
// Decide: the exact count the other algorithms estimate.
func (l *Log) Sum(id int32) int64 { return l.rings[id].Sum() }
