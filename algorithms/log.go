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
	keys PerKey[logKey]
	exts WindowPool // the entries of the keys that left their ring (logKey.ext)

	relPeakMax, relPeakSum int64 // the peaks of the keys released (Release)
}

// logInline is the number of entries a key of the log holds in its own
// logKey: with the bookkeeping, 120 bytes (under two cache lines).
const logInline = 13

// logKey is one key of the log: its entries and its memory bookkeeping,
// together, so that a decision touches one block. A key whose entries all
// cost 1 and number at most logInline keeps them in ts, a ring of n entries
// from head (the sum is then n); a key that records a cost other than 1 or
// outgrows ts moves them to a WindowSum of the log's, ext, and keeps them
// there until Release. It holds no pointer, so that a replay can place it
// in its Block (Placer). Its methods take w, its WindowSum (Log.key), nil
// while it has none.
type logKey struct {
	peak    int64  // the key's largest analytic size so far
	ext     uint32 // the handle of its WindowSum in Log.exts, once its entries left ts; 0 before
	head, n uint8  // the ring in ts, while ext is 0
	seen    bool
	ts      [logInline]int64
}

// key returns key id's logKey and its WindowSum, nil if it has none.
func (l *Log) key(id int32) (*logKey, *WindowSum) {
	k := l.keys.At(id)
	if k.ext == 0 {
		return k, nil
	}
	return k, l.exts.At(k.ext)
}

// sum returns the cost of the key's entries.
func (k *logKey) sum(w *WindowSum) int64 {
	if w != nil {
		return w.Sum()
	}
	return int64(k.n)
}

// len returns the number of the key's entries.
func (k *logKey) len(w *WindowSum) int {
	if w != nil {
		return w.Len()
	}
	return int(k.n)
}

// bytes is WindowSum.Bytes of the key's entries.
func (k *logKey) bytes(w *WindowSum) int64 {
	if w != nil {
		return w.Bytes()
	}
	return 8*int64(k.n) + 8
}

// newest returns the time of the newest entry; there must be one.
func (k *logKey) newest(w *WindowSum) int64 {
	if w != nil {
		return w.Newest()
	}
	return k.ts[ringIndex(k.head+k.n-1)]
}

// ringIndex reduces an index into ts below 2*logInline to the ring.
func ringIndex(i uint8) uint8 {
	if i >= logInline {
		i -= logInline
	}
	return i
}

// expire drops the entries at or before cutoff, as WindowSum.Expire.
func (k *logKey) expire(w *WindowSum, cutoff int64) {
	if w != nil {
		w.Expire(cutoff)
		return
	}
	for k.n > 0 && k.ts[k.head] <= cutoff {
		k.head = ringIndex(k.head + 1)
		k.n--
	}
}

// add appends an entry at time t to key k, whose WindowSum is w, which
// must not be before the newest, and returns the key's WindowSum after it.
func (l *Log) add(k *logKey, w *WindowSum, t, cost int64) *WindowSum {
	if w == nil {
		if cost == 1 && k.n < logInline {
			k.ts[ringIndex(k.head+k.n)] = t
			k.n++
			return nil
		}
		k.ext, w = l.exts.New()
		for i := range k.n {
			w.Add(k.ts[ringIndex(k.head+i)], 1)
		}
		k.head, k.n = 0, 0
	}
	w.Add(t, cost)
	return w
}

// drop frees key k's WindowSum, if it has one, and resets the key.
func (l *Log) drop(k *logKey) {
	if k.ext != 0 {
		l.exts.Free(k.ext)
	}
	*k = logKey{}
}

// coveredAt is WindowSum.coveredAt of the key's entries.
func (k *logKey) coveredAt(w *WindowSum, need int64) (int64, bool) {
	if w != nil {
		return w.coveredAt(need)
	}
	switch { // every cost is 1: the need-th oldest entry
	case k.n == 0 || need > int64(k.n):
		return 0, false
	case need < 1:
		need = 1
	}
	return k.ts[ringIndex(k.head+uint8(need)-1)], true
}

// NewLog returns the sliding log for rule r.
func NewLog(r Rule) *Log { return &Log{rule: r} }

func (*Log) Name() string         { return "log" }
func (*Log) FixedSize() bool      { return false }
func (*Log) CountsRejected() bool { return true }

func (l *Log) Grow(n int) { l.keys.Grow(n) }

func (l *Log) Bytes(id int32) int64 {
	k, w := l.key(id)
	return k.bytes(w)
}

func (l *Log) Decide(id int32, t, cost int64) bool {
	k, w := l.key(id)
	if !k.seen {
		k.seen, k.peak = true, k.bytes(w)
	} else {
		k.expire(w, t-l.rule.W)
	}
	return cost <= l.rule.L-k.sum(w)
}

func (l *Log) Record(id int32, t, cost int64) {
	k, w := l.key(id)
	w = l.add(k, w, t, cost)
	k.peak = max(k.peak, k.bytes(w))
}

// Estimate returns the exact cost in (t-W, t].
func (l *Log) Estimate(id int32, t int64) Rational { return Whole(l.Sum(id)) }

// Sum returns the cost recorded for key id in (t-W, t] as of its last
// Decide: the exact count the other algorithms estimate.
func (l *Log) Sum(id int32) int64 {
	k, w := l.key(id)
	return k.sum(w)
}

// Memory returns the analytic memory the log's keys have held: the largest
// size of one key and the sum over keys of each key's largest size (keys
// count from their first request).
func (l *Log) Memory() (peakPerKey, sumOfPeaks int64) {
	peakPerKey, sumOfPeaks = l.relPeakMax, l.relPeakSum
	for id := range int32(l.keys.Len()) {
		p := l.keys.At(id).peak
		peakPerKey = max(peakPerKey, p)
		sumOfPeaks += p
	}
	return peakPerKey, sumOfPeaks
}
