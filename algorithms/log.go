package algorithms

import "iter"

// Log is the sliding window log, the exact reference (docs/definitions.md §4). The window
// is the half-open span (t-W, t]: a request exactly W old has expired. With
// A the cost recorded in that span, a request is admitted iff A+cost <= L.
//
// Memory: one timestamp per recorded request still in the window, plus its
// cost when that is not 1, plus the running sum: 8*entries + 8*(entries
// with cost != 1) + 8 bytes. Entries are pruned when their key is next
// seen, as an in-process log or a Redis sorted set trimmed on each request
// would. The harness holds each key's entries in a ring of the length the
// rule's limit needs (KeyEntries, RingFor), then in a ring buffer that
// grows only to what the window holds, and follows each key's largest
// analytic size as it goes (Memory).
type Log struct {
	rule Rule
	e    KeyEntries // each key's entries, and its largest analytic size so far (Peak); 0 until its first Decide (or Record)

	relPeakMax, relPeakSum int64 // the peaks of the keys released (Release)
}

// NewLog returns the sliding log for rule r.
func NewLog(r Rule) *Log { return &Log{rule: r, e: NewKeyEntries(RingFor(r.L))} }

func (*Log) Name() string         { return "log" }
func (*Log) FixedSize() bool      { return false }
func (*Log) CountsRejected() bool { return true }

func (l *Log) Grow(n int) { l.e.Grow(n) }

func (l *Log) Bytes(id int32) int64 { return l.e.Key(id).Bytes() }

// Decide counts the key from its first request on: its size then is its
// first peak (never 0: an empty key's size is its sum's 8 bytes).
func (l *Log) Decide(id int32, t, cost int64) bool {
	e := l.e.Key(id)
	if p := e.Peak(); *p == 0 {
		*p = e.Bytes()
	} else {
		e.Expire(t - l.rule.W)
	}
	return cost <= l.rule.L-e.Sum()
}

func (l *Log) Record(id int32, t, cost int64) {
	e := l.e.Key(id)
	e.Add(t, cost)
	p := e.Peak()
	*p = max(*p, e.Bytes())
}

// Estimate returns the exact cost in (t-W, t].
func (l *Log) Estimate(id int32, t int64) Rational { return Whole(l.Sum(id)) }

// Sum returns the cost recorded for key id in (t-W, t] as of its last
// Decide: the exact count the other algorithms estimate.
func (l *Log) Sum(id int32) int64 { return l.e.Key(id).Sum() }

// Len returns the number of key id's entries, as of its last Decide or
// Record.
func (l *Log) Len(id int32) int { return l.e.Key(id).Len() }

// All yields key id's entries, time and cost, oldest first, as of its
// last Decide or Record: what Sum adds up.
func (l *Log) All(id int32) iter.Seq2[int64, int64] { return l.e.Key(id).All() }

// Memory returns the analytic memory the log's keys have held: the largest
// size of one key and the sum over keys of each key's largest size (keys
// count from their first request).
func (l *Log) Memory() (peakPerKey, sumOfPeaks int64) {
	peakPerKey, sumOfPeaks = l.relPeakMax, l.relPeakSum
	for id := range int32(l.e.Len()) {
		p := *l.e.Key(id).Peak()
		peakPerKey = max(peakPerKey, p)
		sumOfPeaks += p
	}
	return peakPerKey, sumOfPeaks
}
