package products

import (
	"fmt"
	"strings"
	"time"

	"ratebench/algorithms"
)

func init() {
	algorithms.Register(algorithms.Kind{Spec: "haproxy[:expire=D]", Place: 17, About: "HAProxy 2.6's stick table (store http_req_rate(W), track-sc0, deny if sc_http_req_rate(0) gt L): sliding window counter anchored at the key's first request, on millisecond ticks, the weighted count rounded down, every request counted; idle entries expire after D (default 3W)",
		Build: func(c algorithms.Call, r algorithms.Rule) (algorithms.Limiter, error) {
			if c.HasArg && strings.TrimSpace(c.Arg) == "" {
				return nil, fmt.Errorf("algorithm %q: want haproxy, or haproxy:expire=D", c.Spec)
			}
			return NewHAProxy(r, c.Arg)
		}})
}

// HAProxy is HAProxy's request rate limit on a stick table, modelled from
// the source of HAProxy 2.6 (tag v2.6.0, commit
// a1efc048bf8a5e14466dbe7317e73117e8d66176). Debian's 2.6.12 is that
// code as far as the main branch's history tells (no later fix to the
// lines below is marked for 2.6), and a real 2.6.12 decides as the model
// (package live/haproxy). The rule L/W is the configuration HAProxy's
// documentation writes for "L requests per W":
//
//	stick-table type string len 32 size 1m expire 3W store http_req_rate(W)
//	http-request track-sc0 req.hdr(X-Key)
//	http-request deny deny_status 429 if { sc_http_req_rate(0) gt L }
//
// # The counter (include/haproxy/freq_ctr.h, src/freq_ctr.c)
//
// http_req_rate(W) stores a struct freq_ctr (freq_ctr-t.h:32-36): curr_tick,
// the tick the current period started at, curr_ctr and prev_ctr, the
// events of the current and of the previous period, all 32-bit. The
// period P is W in milliseconds (the table's ARG_T_DELAY argument,
// stick_table.c:754-760; at least 2 ticks, freq_ctr-t.h:27-30). A tick is
// now_ms, the process's clock in whole milliseconds, wrapping at 2^32
// (src/clock.c:216: the wall clock read by gettimeofday when the event
// loop wakes, line 159, plus an offset, line 187, which moves when the
// loop wakes more than 100 ms after its poll's timeout or before it: the
// clock takes that for a jump of the wall clock and keeps now where it
// was, lines 177-181). The model's clock is those ticks, from an even one
// at the trace's 0.
//
//   - update_freq_ctr_period (freq_ctr.h:38-75) adds the request: while
//     now - curr_tick < P it adds to curr_ctr (lines 51-52); otherwise it
//     rotates: prev_ctr = curr_ctr, curr_ctr = the request, curr_tick += P
//     (line 65), and if now - curr_tick >= P still (two periods or more
//     went by) prev_ctr = 0 and curr_tick = now (66-70). It stores
//     curr_tick & ~1 (line 73): the lowest bit is the rotation's lock, so
//     a period starts on an even tick. An entry is created zeroed
//     (stick_table.c:165), curr_tick 0: its first request rotates twice
//     over and starts the key's first period at its own tick. So periods
//     are anchored at the key's first request, not at multiples of W, and
//     follow on every P ticks while the key is active.
//   - read_freq_ctr_period (freq_ctr.h:99-104, freq_ctr_total at
//     freq_ctr.c:27-97) reads (prev_ctr*remain + curr_ctr*P) / P in
//     integer division, remain = curr_tick + P - now (line 78): the
//     previous period weighted by the part of it still inside the sliding
//     window, rounded down, plus the current one. Its flapping correction
//     (lines 88-93: when curr_ctr is 0 the rate is prev_ctr if that is 0 or
//     1) never applies here: the rate is read right after the request was
//     added to curr_ctr.
//
// # The rule (src/http_act.c, src/stick_table.c)
//
// http-request rules run in order. track-sc0 (http_action_track_sc,
// http_act.c:2001-2081) finds or creates the key's entry (line 2022) and
// adds the request to http_req_rate with update_freq_ctr_period (2055-
// 2057) for every request, before the deny rule reads it: every request
// is counted, refused ones too, one per request. sc_http_req_rate(0)
// (stick_table.c:3846-3879) is read_freq_ctr_period of the entry, and
// "gt L" refuses iff it is above L. The request is refused iff
// floor(prev*remain/P) + curr + 1 > L, curr the count before it: admitted
// iff floor(prev*(W-e)/W) + curr + 1 <= L, e = now - curr_tick the time
// elapsed in the period. "gt" is the counter's own comparison, E + cost
// <= L, because the rate read includes the request itself.
//
// # Idle keys (src/stick_table.c)
//
// track-sc0 touches the entry (stktable_touch_local, line 453, from
// http_act.c:2072): its expiry is now + expire (tick_add). The table's
// expiry task (stktable_trash_expired, lines 562-625) frees an entry once
// now >= its expiry (tick_is_lt at line 586, tick_is_expired at 602), and
// the event loop wakes it then; the next request of the key creates a
// fresh entry. With expire >= 2W (the default here, 3W) that changes
// nothing: two periods without a request reset the counter anyway, at the
// new request's tick, as a fresh entry does. A shorter expire=D (0 < D <
// 2W) forgets the previous period early; its deviation is then listed.
// The table's size is taken to hold every active key (HAProxy evicts the
// oldest entries of a full table, stktable_trash_oldest).
//
// Not modelled: the wrap of now_ms every 2^32 ms (49.7 days), which makes
// a key whose first request falls within 2W after a wrap start its period
// at tick P rather than at its own tick (update_freq_ctr_period from
// curr_tick 0); the 32-bit counts' own wrap after 2^32 requests in a
// period; a request and the expiry of its key's entry in the same
// millisecond (the model expires it: the expiry task runs as the loop
// wakes); several threads or processes, or peers sharing the table.
//
// # Deviations from counter, its twin
//
//   - anchor: periods start at the key's first request (off: at multiples
//     of W from the epoch, the twin's).
//   - clock: decides on now_ms, the time floored to whole milliseconds
//     (off: nanoseconds).
//   - even-tick: a period's start is kept on an even millisecond (the
//     lowest bit cleared), 1 ms before the tick it would be when that is
//     odd; with an odd period each period starts P-1 ms after the one
//     before.
//   - floor: the previous period's weighted count is rounded down (off:
//     exact, prev*(W-e)/W).
//   - counts-refused: every request is counted, refused ones too
//     (CountsEvery; off: only what the harness records).
//   - one-hit: each request counts one, whatever its cost (off: its cost).
//   - expiry (listed only with expire=D below 2W): an entry idle for D is
//     freed, and the key starts afresh.
//
// With all of them off it decides as counter.
//
// Memory: the freq_ctr's three 32-bit words and the entry's 32-bit expiry
// tick, 16 bytes per key (the entry also holds its key, 32 bytes for a
// string key, and three ebtree nodes).
type HAProxy struct {
	algorithms.DeviationSet
	rule     algorithms.Rule
	expire   int64 // the table's expire, ns (a whole number of ms)
	explicit bool  // expire was given and is not the default
	st       algorithms.PerKey[haproxyState]
}

// haproxyState is one key's stick-table entry on the model's clock (ms
// ticks with "clock" on, else ns): the current period's start, the counts
// of the previous and of the current period, and the tick of the key's
// last request. live is false while the key has no entry.
type haproxyState struct {
	start, prev, curr, last int64
	live                    bool
}

const (
	haproxyAnchor = iota
	haproxyClock
	haproxyEvenTick
	haproxyFloor
	haproxyCountsRefused
	haproxyOneHit
	haproxyExpiry // listed only when expire < 2W
)

// haproxyMaxMS is the largest time HAProxy parses, in ms (2^31-1:
// parse_time_err refuses more, src/tools.c).
const haproxyMaxMS = 1<<31 - 1

// NewHAProxy returns HAProxy's stick-table rate limit for rule r; arg is
// what follows "haproxy:" in the spec ("" or "expire=D").
func NewHAProxy(r algorithms.Rule, arg string) (*HAProxy, error) {
	ms := int64(time.Millisecond)
	if r.W%ms != 0 || r.W < 2*ms || r.W/ms > haproxyMaxMS {
		return nil, fmt.Errorf("algorithm \"haproxy\": http_req_rate's period is a whole number of milliseconds from 2ms to %dms; %s is not", int64(haproxyMaxMS), algorithms.FormatWindow(r.W))
	}
	if r.L > 1<<32-2 {
		return nil, fmt.Errorf("algorithm \"haproxy\": the rate a stick table reports is a 32-bit count; the limit %d is too large", r.L)
	}
	h := &HAProxy{rule: r, expire: min(3*(r.W/ms), haproxyMaxMS) * ms}
	if arg != "" {
		v, ok := strings.CutPrefix(strings.TrimSpace(arg), "expire=")
		d, err := time.ParseDuration(v)
		if !ok || err != nil || d < time.Millisecond || int64(d)%ms != 0 || int64(d)/ms > haproxyMaxMS {
			return nil, fmt.Errorf("algorithm \"haproxy:%s\": want haproxy:expire=D, D the table's expire: a whole number of milliseconds from 1ms to %dms", arg, int64(haproxyMaxMS))
		}
		h.explicit = int64(d) != h.expire
		h.expire = int64(d)
	}
	devs := []algorithms.Deviation{
		{Name: "anchor", About: "starts a key's periods of W at its first request (and again after two idle periods), not at multiples of W"},
		{Name: "clock", About: "decides on HAProxy's millisecond ticks (now_ms): the time floored to whole milliseconds"},
		{Name: "even-tick", About: "keeps a period's start on an even millisecond (the tick's lowest bit is a lock), 1 ms early when it falls on an odd one; with an odd period each period starts P-1 ms after the one before"},
		{Name: "floor", About: "rounds the previous period's weighted count down (integer division): admits while floor(prev*(W-e)/W) + curr + 1 <= L"},
		{Name: "counts-refused", About: "counts every request, refused ones too (track-sc0 adds it before the deny rule reads the rate)"},
		{Name: "one-hit", About: "counts one per request whatever its cost"},
	}
	if h.expire < 2*r.W {
		devs = append(devs, algorithms.Deviation{Name: "expiry", About: "frees a key's entry once idle for the table's expire, " + algorithms.FormatWindow(h.expire) + ", less than two periods: the key starts afresh, its previous period forgotten"})
	}
	h.SetDeviations(devs...)
	return h, nil
}

func (h *HAProxy) Name() string {
	name := "haproxy"
	if h.explicit {
		name += ":expire=" + algorithms.FormatWindow(h.expire)
	}
	return name + h.Suffix()
}

func (*HAProxy) Twin() string           { return "counter" }
func (h *HAProxy) Grow(n int)           { h.st.Grow(n) }
func (*HAProxy) Bytes(int32) int64      { return 16 }
func (*HAProxy) FixedSize() bool        { return true }
func (*HAProxy) CountsRejected() bool   { return true }
func (h *HAProxy) CountsEvery() bool    { return h.OnAt(haproxyCountsRefused) }
func (h *HAProxy) Warm(id int32) uint64 { return uint64(h.st.At(id).curr) }
func (h *HAProxy) Place(b *algorithms.Block) {
	h.st.Place(b)
}

// Expire returns the table's expire in ns.
func (h *HAProxy) Expire() int64 { return h.expire }

// units returns t on the model's clock, and the period, the expire and a
// millisecond in its units: ms ticks with "clock", else ns.
func (h *HAProxy) units(t int64) (now, period, expire, ms int64) {
	if h.OnAt(haproxyClock) {
		m := int64(time.Millisecond)
		return algorithms.FloorDiv(t, m), h.rule.W / m, h.expire / m, 1
	}
	return t, h.rule.W, h.expire, int64(time.Millisecond)
}

// even clears the lowest bit of x's millisecond tick (x in units where a
// millisecond is ms): curr_tick & ~1.
func (h *HAProxy) even(x, ms int64) int64 {
	if !h.OnAt(haproxyEvenTick) {
		return x
	}
	return x - ms*(algorithms.FloorDiv(x, ms)&1)
}

// expired reports whether s's entry is gone at now: never created, or
// idle for the table's expire.
func (h *HAProxy) expired(s *haproxyState, now, expire int64) bool {
	if !s.live {
		return true
	}
	return h.expire < 2*h.rule.W && h.OnAt(haproxyExpiry) && now-s.last >= expire
}

// rotated returns s as update_freq_ctr_period leaves it at now before it
// adds the request: a new entry starts its period at now (anchor) or at
// the multiple of the period at or before it; a period over moves to the
// previous one; two periods over start afresh.
func (h *HAProxy) rotated(s haproxyState, now int64) haproxyState {
	_, period, expire, ms := h.units(0)
	anchor := func() int64 {
		if h.OnAt(haproxyAnchor) {
			return now
		}
		return algorithms.FloorDiv(now, period) * period
	}
	if h.expired(&s, now, expire) {
		return haproxyState{start: h.even(anchor(), ms), live: true}
	}
	if now-s.start < period {
		return s
	}
	s.prev, s.curr, s.start = s.curr, 0, s.start+period
	if now-s.start >= period {
		s.prev, s.start = 0, anchor()
	}
	s.start = h.even(s.start, ms)
	return s
}

// hit is what a request of cost adds to the count.
func (h *HAProxy) hit(cost int64) int64 {
	if h.OnAt(haproxyOneHit) {
		return 1
	}
	return cost
}

// Decide reads the rate the request would make, without changing the
// entry: the rotation happens when the request is counted (Record).
func (h *HAProxy) Decide(id int32, t, cost int64) bool {
	now, period, _, _ := h.units(t)
	s := h.rotated(*h.st.At(id), now)
	// 0 <= e <= period on ms ticks: e == period after an odd period's
	// even start (remain 0: the previous period weighs nothing). On a ns
	// clock an even start may lie up to 1 ms further back; it weighs
	// nothing either.
	e := min(now-s.start, period)
	if h.OnAt(haproxyFloor) {
		return algorithms.CounterFloor(s.prev, s.curr, e, h.hit(cost), h.rule.L, period)
	}
	return algorithms.CounterLE(s.prev, s.curr, e, h.hit(cost), h.rule.L, period)
}

// Record is update_freq_ctr_period and the entry's touch.
func (h *HAProxy) Record(id int32, t, cost int64) {
	now, _, _, _ := h.units(t)
	s := h.st.At(id)
	*s = h.rotated(*s, now)
	s.curr = algorithms.SatAdd(s.curr, h.hit(cost))
	s.last = now
}

// Idle: the key has no entry at t, or two periods have passed since its
// period started (the next request starts afresh, as on a new entry).
func (h *HAProxy) Idle(id int32, t int64) bool {
	now, period, expire, _ := h.units(t)
	s := h.st.At(id)
	return h.expired(s, now, expire) || now-s.start >= 2*period
}

func (h *HAProxy) Release(id int32) { *h.st.At(id) = haproxyState{} }
