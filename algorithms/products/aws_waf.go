package products

import (
	"fmt"
	"time"

	"ratebench/algorithms"
)

func init() {
	algorithms.Register(algorithms.Kind{Spec: "aws-waf", Place: 30, About: "AWS WAF rate-based rule (Limit L, EvaluationWindowSec W of 60, 120, 300 or 600, L at least 10), model only: the requests of the last W counted every 10 s, a key over the limit rate-limited till the next check, every request counted",
		Build: func(c algorithms.Call, r algorithms.Rule) (algorithms.Limiter, error) {
			if err := c.NoArg(); err != nil {
				return nil, err
			}
			return NewAWSWAF(r)
		}})
}

// AWSWAF is an AWS WAF rate-based rule statement, modelled from the AWS
// WAF Developer Guide: "Rate-based rule high-level settings in AWS WAF"
// (docs.aws.amazon.com/waf/latest/developerguide/
// waf-rule-statement-type-rate-based-high-level-settings.html), "Applying
// rate limiting to requests in AWS WAF"
// (waf-rule-statement-type-rate-based-request-limiting.html) and the API's
// RateBasedStatement (EvaluationWindowSec). No such service runs here: the
// model is what the documentation says, and where it leaves a choice open
// the model says which it takes.
//
// The rule "L requests per W" is the statement's Limit = L and
// EvaluationWindowSec = W, one aggregation instance per key. "Valid
// settings are 60 (1 minute), 120 (2 minutes), 300 (5 minutes), and 600
// (10 minutes)" and "The lowest limit setting allowed is 10": any other
// rule is refused, naming what the rule can be.
//
// # What the documentation says
//
//   - The window: "when AWS WAF checks the rate, it counts the requests
//     for the 2 minutes immediately preceding the current time" (for
//     120).
//   - The check: "This setting doesn't determine how often AWS WAF checks
//     the rate, but how far back it looks each time it checks. WAF checks
//     the rate about every 10 seconds" (RateBasedStatement,
//     EvaluationWindowSec).
//   - The decision: a request is rate limited when it "belongs to an
//     aggregation instance whose request count is currently over the
//     rule's limit"; "When this limit is breached, AWS WAF applies the rule
//     action setting to additional requests". And "AWS WAF applies rate
//     limiting near the limit that you set, but does not guarantee an
//     exact limit match."
//   - What counts: "AWS WAF only aggregates, counts, and rate limits
//     requests that match the scope-down statement": every matching
//     request is counted, those the rule rate limits among them.
//
// # What the model assumes
//
//   - Checks at the epoch's multiples of 10 s (the documentation says
//     "about every 10 seconds" and not when: the phase, and any jitter,
//     are the model's). The check at c counts the requests of [c−W, c),
//     the W immediately preceding it, and the instance is over the limit
//     iff that count exceeds L; the verdict holds for every request of
//     [c, c+10 s), a request at c decided by the check at c.
//   - Over the limit, a request is rate limited (Block); otherwise it
//     passes this rule. "Near the limit ... not an exact limit match" is
//     not modelled beyond the check: one region's counts seen at once,
//     exactly.
//   - Each request counts one: a rate-based rule counts requests, whatever
//     they cost.
//   - No idle expiry matters: an instance with no request in its last
//     W + 10 s counts nothing at any later check, as a new one.
//
// # Deviations from log (the exact sliding-window log)
//
//   - check: the count is checked every 10 s, on the W before the check,
//     and its verdict holds till the next check (off: each request decides
//     on its own window (t−W, t], itself included, refused iff the count
//     exceeds L: the log).
//   - counts-refused: every request is counted, rate-limited ones too
//     (off: only the admitted).
//   - one-hit: a request counts one whatever its cost (off: its cost).
//
// Memory: with check, a count per 10 s of the window and the verdict,
// 8·(W/10 s) + 8 bytes per key (the checks fall on 10 s boundaries, so
// [c−W, c) is W/10 s whole periods); without it, the log's 16 bytes per
// counted request in the window, + 8.
type AWSWAF struct {
	algorithms.DeviationSet
	rule algorithms.Rule
	keys []wafKey // without check: each key's counted requests

	// With check, what a check reads: each key's counts per 10 s period,
	// a ring of the W/10 s periods a check counts and the one under way,
	// in the block (wafPeriods, periods).
	head    algorithms.PerKey[wafPeriods]
	periods algorithms.PerKey[int64]
}

// wafPeriods is a key's bookkeeping with check: the period (t / 10 s) of
// its newest counted request, whose count is at that period's place in
// the ring (the ring's other places hold the periods before it, those
// older than the ring counting nothing at any later check), that
// request's time, and the verdict of check c.
type wafPeriods struct {
	last, newest, c        int64
	counted, checked, over bool
}

// wafKey is one aggregation instance without check: its counted requests
// of the last W + 10 s, oldest first, ev[head:] (those before head are
// forgotten, and compacted away once they are half of ev, so that
// forgetting costs O(1) a request however many the key holds).
type wafKey struct {
	ev   []wafEvent
	head int
}

// wafEvent is a counted request: its time and what it counts.
type wafEvent struct{ t, n int64 }

const (
	wafCheck = iota
	wafCountsRefused
	wafOneHit
)

// wafCheckEvery is how often WAF checks the rate ("about every 10
// seconds").
const wafCheckEvery = int64(10 * time.Second)

// NewAWSWAF returns the rate-based rule for rule r, or an error when the
// rule is not one WAF takes.
func NewAWSWAF(r algorithms.Rule) (*AWSWAF, error) {
	switch time.Duration(r.W) {
	case time.Minute, 2 * time.Minute, 5 * time.Minute, 10 * time.Minute:
	default:
		return nil, fmt.Errorf("algorithm \"aws-waf\": a rate-based rule's evaluation window is 60, 120, 300 or 600 seconds: give a window of 1m, 2m, 5m or 10m, not %s", algorithms.FormatWindow(r.W))
	}
	if r.L < 10 {
		return nil, fmt.Errorf("algorithm \"aws-waf\": the lowest limit a rate-based rule takes is 10: give a limit of 10 or more, not %d", r.L)
	}
	w := &AWSWAF{rule: r, periods: algorithms.NewPerKey[int64](int(r.W/wafCheckEvery) + 1)}
	w.SetDeviations(
		algorithms.Deviation{Name: "check", About: "checks the count every 10 s on the window before the check, the verdict holding till the next check, not at each request"},
		algorithms.Deviation{Name: "counts-refused", About: "counts every request, the rate-limited ones too"},
		algorithms.Deviation{Name: "one-hit", About: "counts one per request whatever its cost"},
	)
	return w, nil
}

func (w *AWSWAF) Name() string { return "aws-waf" + w.Suffix() }

// Twin is the exact sliding-window log.
func (*AWSWAF) Twin() string { return "log" }

func (w *AWSWAF) Grow(n int) {
	if w.OnAt(wafCheck) {
		w.head.Grow(n)
		w.periods.Grow(n)
		return
	}
	if n > len(w.keys) {
		w.keys = append(w.keys, make([]wafKey, n-len(w.keys))...)
	}
}

// Place puts the counts per period of check in the block; a key's list of
// counted requests, without check, stays on the heap.
func (w *AWSWAF) Place(b *algorithms.Block) {
	if w.OnAt(wafCheck) {
		w.head.Place(b)
		w.periods.Place(b)
	}
}

func (w *AWSWAF) Bytes(id int32) int64 {
	if w.OnAt(wafCheck) {
		return 8*(w.rule.W/wafCheckEvery) + 8
	}
	return 16*int64(len(w.keys[id].live())) + 8
}

func (w *AWSWAF) FixedSize() bool    { return w.OnAt(wafCheck) }
func (*AWSWAF) CountsRejected() bool { return true }

// CountsEvery: with counts-refused, every request is counted.
func (w *AWSWAF) CountsEvery() bool { return w.OnAt(wafCountsRefused) }

// Warm loads key id's bookkeeping ahead of its decision.
func (w *AWSWAF) Warm(id int32) uint64 {
	if w.OnAt(wafCheck) {
		return uint64(w.head.At(id).last)
	}
	return uint64(w.keys[id].head)
}

// live is the key's counted requests not yet forgotten, oldest first.
func (k *wafKey) live() []wafEvent { return k.ev[k.head:] }

// sum returns what the key's counted requests of [from, to) count
// (inclusive of from iff fromIn, of to iff toIn).
func sumEvents(ev []wafEvent, from, to int64, fromIn, toIn bool) int64 {
	var n int64
	for _, e := range ev {
		if (e.t > from || fromIn && e.t == from) && (e.t < to || toIn && e.t == to) {
			n = algorithms.SatAdd(n, e.n)
		}
	}
	return n
}

// Decide: with check, admitted iff the check of t's 10 s period found the
// count of [c−W, c) at most L; without, iff the count of (t−W, t] with
// this request is at most L.
func (w *AWSWAF) Decide(id int32, t, cost int64) bool {
	if !w.OnAt(wafCheck) {
		k := &w.keys[id]
		return oneHit(w.OnAt(wafOneHit), cost) <= w.rule.L-sumEvents(k.live(), t-w.rule.W, t, false, true)
	}
	h := w.head.At(id)
	c := algorithms.FloorDiv(t, wafCheckEvery)
	if !h.checked || h.c != c {
		h.c, h.checked = c, true
		h.over = w.checkCount(h, w.periods.Row(id), c) > w.rule.L
	}
	return !h.over
}

// checkCount is what the check at period c (time c·10 s) counts: the
// periods of [c − W/10 s, c), which are whole since W is a multiple of
// 10 s; those the key's ring holds, the others counting nothing.
func (w *AWSWAF) checkCount(h *wafPeriods, ring []int64, c int64) int64 {
	if !h.counted {
		return 0
	}
	n, count := int64(len(ring)), int64(0)
	for q := max(c-(n-1), h.last-(n-1)); q < c && q <= h.last; q++ {
		count = algorithms.SatAdd(count, ring[mod(q, n)])
	}
	return count
}

// mod is q mod n in [0, n), for q of either sign.
func mod(q, n int64) int64 { return (q%n + n) % n }

// Record counts the request (one, or its cost): with check, in its
// period's count; without, in the key's list, forgetting what no later
// window can count: requests before t − W − 10 s.
func (w *AWSWAF) Record(id int32, t, cost int64) {
	n := oneHit(w.OnAt(wafOneHit), cost)
	if w.OnAt(wafCheck) {
		h, ring := w.head.At(id), w.periods.Row(id)
		size, p := int64(len(ring)), algorithms.FloorDiv(t, wafCheckEvery)
		switch {
		case !h.counted || p-h.last >= size: // every period the ring held is past
			clear(ring)
			h.last, h.counted = p, true
		case p > h.last: // the periods between the newest and p counted nothing
			for q := h.last + 1; q <= p; q++ {
				ring[mod(q, size)] = 0
			}
			h.last = p
		}
		ring[mod(p, size)] = algorithms.SatAdd(ring[mod(p, size)], n)
		h.newest = max(h.newest, t)
		return
	}
	k := &w.keys[id]
	k.ev, k.head = pushLive(k.ev, k.head, wafEvent{t, n})
	w.trim(k, t)
}

func (w *AWSWAF) trim(k *wafKey, t int64) {
	for k.head < len(k.ev) && k.ev[k.head].t < t-w.rule.W-wafCheckEvery {
		k.head++
	}
	if k.head == len(k.ev) {
		k.ev, k.head = k.ev[:0], 0
	} else if k.head >= 32 && 2*k.head >= len(k.ev) {
		k.ev, k.head = append(k.ev[:0], k.ev[k.head:]...), 0
	}
}

// Idle: nothing the key counted can count at t or later: with check, its
// newest counted request is before t − W − 10 s, where the lists' trim
// forgets requests.
func (w *AWSWAF) Idle(id int32, t int64) bool {
	if w.OnAt(wafCheck) {
		h := w.head.At(id)
		return !h.counted || h.newest < t-w.rule.W-wafCheckEvery
	}
	k := &w.keys[id]
	w.trim(k, t)
	return len(k.live()) == 0
}

func (w *AWSWAF) Release(id int32) {
	if w.OnAt(wafCheck) {
		*w.head.At(id) = wafPeriods{}
		clear(w.periods.Row(id))
		return
	}
	w.keys[id] = wafKey{}
}
