package algorithms

// Log is the sliding window log, the exact reference (docs/definitions.md §4). The window
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
	rule Rule
	keys []logKey

	relPeakMax, relPeakSum int64 // the peaks of the keys released (Release)
}

// logInline is the number of entries a key of the log holds in its own
// logKey: with the bookkeeping, one 128-byte block (two cache lines).
const logInline = 12

// logKey is one key of the log: its entries and its memory bookkeeping,
// together, so that a decision touches one block. A key whose entries all
// cost 1 and number at most logInline keeps them in ts, a ring of n entries
// from head (the sum is then n); a key that records a cost other than 1 or
// outgrows ts moves them to ext and keeps them there until Release.
type logKey struct {
	peak    int64      // the key's largest analytic size so far
	ext     *WindowSum // the key's entries, once they left ts; nil before
	head, n int32      // the ring in ts, while ext is nil
	seen    bool
	ts      [logInline]int64
}

// sum returns the cost of the key's entries.
func (k *logKey) sum() int64 {
	if k.ext != nil {
		return k.ext.Sum()
	}
	return int64(k.n)
}

// len returns the number of the key's entries.
func (k *logKey) len() int {
	if k.ext != nil {
		return k.ext.Len()
	}
	return int(k.n)
}

// bytes is WindowSum.Bytes of the key's entries.
func (k *logKey) bytes() int64 {
	if k.ext != nil {
		return k.ext.Bytes()
	}
	return 8*int64(k.n) + 8
}

// newest returns the time of the newest entry; there must be one.
func (k *logKey) newest() int64 {
	if k.ext != nil {
		return k.ext.Newest()
	}
	return k.ts[ringIndex(k.head+k.n-1)]
}

// ringIndex reduces an index into ts below 2*logInline to the ring.
func ringIndex(i int32) int32 {
	if i >= logInline {
		i -= logInline
	}
	return i
}

// expire drops the entries at or before cutoff, as WindowSum.Expire.
func (k *logKey) expire(cutoff int64) {
	if k.ext != nil {
		k.ext.Expire(cutoff)
		return
	}
	for k.n > 0 && k.ts[k.head] <= cutoff {
		k.head = ringIndex(k.head + 1)
		k.n--
	}
}

// add appends an entry at time t, which must not be before the newest.
func (k *logKey) add(t, cost int64) {
	if k.ext == nil {
		if cost == 1 && k.n < logInline {
			k.ts[ringIndex(k.head+k.n)] = t
			k.n++
			return
		}
		w := &WindowSum{}
		for i := range k.n {
			w.Add(k.ts[ringIndex(k.head+i)], 1)
		}
		k.ext, k.head, k.n = w, 0, 0
	}
	k.ext.Add(t, cost)
}

// coveredAt is WindowSum.coveredAt of the key's entries.
func (k *logKey) coveredAt(need int64) (int64, bool) {
	if k.ext != nil {
		return k.ext.coveredAt(need)
	}
	switch { // every cost is 1: the need-th oldest entry
	case k.n == 0 || need > int64(k.n):
		return 0, false
	case need < 1:
		need = 1
	}
	return k.ts[ringIndex(k.head+int32(need)-1)], true
}

// NewLog returns the sliding log for rule r.
func NewLog(r Rule) *Log { return &Log{rule: r} }

func (*Log) Name() string         { return "log" }
func (*Log) FixedSize() bool      { return false }
func (*Log) CountsRejected() bool { return true }

func (l *Log) Grow(n int) { l.keys = grow(l.keys, n) }

func (l *Log) Bytes(id int32) int64 { return l.keys[id].bytes() }

func (l *Log) Decide(id int32, t, cost int64) bool {
	k := &l.keys[id]
	if !k.seen {
		k.seen, k.peak = true, k.bytes()
	} else {
		k.expire(t - l.rule.W)
	}
	return cost <= l.rule.L-k.sum()
}

func (l *Log) Record(id int32, t, cost int64) {
	k := &l.keys[id]
	k.add(t, cost)
	k.peak = max(k.peak, k.bytes())
}

// Estimate returns the exact cost in (t-W, t].
func (l *Log) Estimate(id int32, t int64) Rational { return whole(l.keys[id].sum()) }

// Sum returns the cost recorded for key id in (t-W, t] as of its last
// Decide: the exact count the other algorithms estimate.
func (l *Log) Sum(id int32) int64 { return l.keys[id].sum() }

// Memory returns the analytic memory the log's keys have held: the largest
// size of one key and the sum over keys of each key's largest size (keys
// count from their first request).
func (l *Log) Memory() (peakPerKey, sumOfPeaks int64) {
	peakPerKey, sumOfPeaks = l.relPeakMax, l.relPeakSum
	for i := range l.keys {
		peakPerKey = max(peakPerKey, l.keys[i].peak)
		sumOfPeaks += l.keys[i].peak
	}
	return peakPerKey, sumOfPeaks
}
