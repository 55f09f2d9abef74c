package algorithms

// Log is the sliding window log, the exact reference (SPEC 3.1). The window
// is the half-open span (t-W, t]: a request exactly W old has expired. With
// A the cost recorded in that span, a request is admitted iff A+cost <= L.
//
// Memory: one timestamp per recorded request still in the window, plus its
// cost when that is not 1, plus the running sum: 8*entries + 8*(entries
// with cost != 1) + 8 bytes. Entries are pruned when their key is next
// seen, as an in-process log or a Redis sorted set trimmed on each request
// would. The harness holds each key's entries in a ring buffer that grows
// only to what the window holds, and follows each key's largest analytic
// size as it goes (Memory).
type Log struct {
	rule  Rule
	rings []WindowSum
	keys  []logKey

	relPeakMax, relPeakSum int64 // the peaks of the keys released (Release)
}

// logKey is the memory bookkeeping of one key of the log.
type logKey struct {
	seen bool
	peak int64 // the key's largest analytic size so far
}

// NewLog returns the sliding log for rule r.
func NewLog(r Rule) *Log { return &Log{rule: r} }

func (*Log) Name() string         { return "log" }
func (*Log) FixedSize() bool      { return false }
func (*Log) CountsRejected() bool { return true }

func (l *Log) Grow(n int) {
	l.rings = grow(l.rings, n)
	l.keys = grow(l.keys, n)
}

func (l *Log) Bytes(id int32) int64 { return l.rings[id].Bytes() }

func (l *Log) Decide(id int32, t, cost int64) bool {
	w := &l.rings[id]
	if k := &l.keys[id]; !k.seen {
		k.seen, k.peak = true, w.Bytes()
	} else if w.Len() > 0 {
		w.Expire(t - l.rule.W)
	}
	return cost <= l.rule.L-w.Sum()
}

func (l *Log) Record(id int32, t, cost int64) {
	w := &l.rings[id]
	w.Add(t, cost)
	k := &l.keys[id]
	k.peak = max(k.peak, w.Bytes())
}

// Estimate returns the exact cost in (t-W, t].
func (l *Log) Estimate(id int32, t int64) Rational { return whole(l.rings[id].Sum()) }

// Sum returns the cost recorded for key id in (t-W, t] as of its last
// Decide: the exact count the other algorithms estimate.
func (l *Log) Sum(id int32) int64 { return l.rings[id].Sum() }

// Memory returns the analytic memory the log's keys have held: the largest
// size of one key and the sum over keys of each key's largest size (keys
// count from their first request).
func (l *Log) Memory() (peakPerKey, sumOfPeaks int64) {
	peakPerKey, sumOfPeaks = l.relPeakMax, l.relPeakSum
	for _, k := range l.keys {
		peakPerKey = max(peakPerKey, k.peak)
		sumOfPeaks += k.peak
	}
	return peakPerKey, sumOfPeaks
}
