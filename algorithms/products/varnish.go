package products

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"ratebench/algorithms"
)

func init() {
	algorithms.Register(algorithms.Kind{Spec: "varnish[:ban=D]", Place: 20, About: "varnish-modules' vsthrottle.is_denied(key, L, W[, D]): token bucket of L refilled in whole tokens, (long)((delta/period)*capacity) in doubles on VTIM_mono, each admitted request restarting the refill (the fraction of a token accrued is lost); ban=D is is_denied's block: a refusal bans the key for D, requests in the ban refused yet taking the tokens they find",
		Build: func(c algorithms.Call, r algorithms.Rule) (algorithms.Limiter, error) {
			var ban int64
			if c.HasArg {
				v, ok := strings.CutPrefix(strings.TrimSpace(c.Arg), "ban=")
				d, err := time.ParseDuration(v)
				if !ok || err != nil || d <= 0 {
					return nil, fmt.Errorf("algorithm %q: want varnish, or varnish:ban=D with D a positive duration (is_denied's block argument)", c.Spec)
				}
				ban = int64(d)
			}
			return NewVsthrottle(r, ban)
		}})
}

// Vsthrottle is varnish-modules' vsthrottle, vsthrottle.is_denied(key,
// limit, period) in VCL, modelled from varnish/varnish-modules at tag
// 0.20.0 (commit a813328270c64b8a7811cac138343701aaa6daba, the version
// Debian 12 ships for Varnish 7.1), src/vmod_vsthrottle.c (line numbers
// below are that file's), with Varnish 7.1.1's clock and VCL compiler
// (varnishcache/varnish-cache at tag varnish-7.1.1, commit
// 7cee1c581bead20e88d101ab3d72afb29f14d87a).
//
// # Configuration
//
// The vmod's documentation (src/vmod_vsthrottle.vcc) writes "a maximum of
// 'limit' requests per 'period'": is_denied(key, L, W) with L an INT and W
// a DURATION literal, no block (its default 0s), as its example
// is_denied(client.identity, 15, 10s) for 15 requests per 10 s. The VCL
// compiler emits a duration literal as "%.3f * %g", the number with three
// decimals times its unit (lib/libvcc/vcc_expr.c:733), so the period the
// vmod gets is a double: W written in whole seconds ("60s") is exact;
// otherwise W is written in milliseconds with three decimals ("1.500ms",
// its double times the double nearest 0.001), which needs W a whole number
// of microseconds (VCLDuration).
//
// # Decision (vmod_is_denied, lines 158-206)
//
// A key's bucket (tbucket, lines 52-62) holds tokens and capacity (longs)
// and last_used (a double). A new bucket is full, tokens = limit, with
// last_used = now (tb_alloc, lines 96-110). At each call, now =
// VTIM_mono(), then calc_tokens (lines 132-142):
//
//	delta = now - last_used
//	tokens += (long)((delta / period) * capacity); capped at capacity
//
// and the request is admitted iff tokens > 0, which takes one token and
// sets last_used = now (lines 186-191). A refused request changes nothing
// (it found 0 tokens and added none), so refused requests do not count.
// Since last_used moves only when a token is taken, each admitted request
// restarts the refill: the fraction of a token accrued since the previous
// admission is lost. At 5/1s, requests every 190 ms get nothing back
// from one admission to the next (0.95 of a token, truncated): after the
// first five, every other one is refused (the refill counting from the
// last admission, 380 ms back). Requests every 300 ms get one token back
// each, as many as they take.
//
// The clock is VTIM_mono (lib/libvarnish/vtim.c:130-147): CLOCK_MONOTONIC
// read to the nanosecond, as the double tv_sec + 1e-9*tv_nsec seconds.
// It counts from the machine's boot; the model reads the trace's time in
// its place (t ns as t/1e9 s and t%1e9 ns), as if the machine had booted
// at the trace's time 0: times on the Unix epoch (1.7e9 s) are rounded to
// 2^-22 s (238 ns) where a machine up for days rounds to a nanosecond.
//
// A refill of 2^63 tokens or more, beyond a long (the conversion is
// undefined in C; x86-64 gives LONG_MIN, which would empty the bucket),
// or one that overflows tokens, is taken as filling the bucket: it needs
// an idle time of 2^63 times W/L (centuries unless L/W is in the
// billions per nanosecond), by when the garbage collector has removed the
// bucket (below) and the next request finds a new, full one.
//
// The vmod has no request cost: is_denied takes one token a call (lines
// 186-191), whatever the request, so a request of cost c counts as one
// (deviation one-hit). With one-hit off, a request of cost c is taken as c
// calls at the same instant, all admitted or none, as the twin takes a
// cost: admitted iff c tokens are left, taking them.
//
// # Idle buckets
//
// Every 1000 calls of one of its 16 partitions (GC_INTVL, lines 84,
// 198-202), run_gc (lines 235-249) frees the partition's buckets with
// now - last_used > period. Such a bucket has been idle for more than a
// period since its last admission, so its next call would refill it full
// anyway ((delta/period) >= 1 in doubles too): freeing it changes no
// decision, and the model keeps every bucket. Idle reports a bucket that
// is full at t, which decides as a new one from then on.
//
// What changes no decision, and is left out: the SHA-256 digest of key,
// limit, period and block that names a bucket (do_digest, lines 144-156:
// one bucket per key and rule), the 16 partitions and their mutexes.
//
// # Block: vsthrottle:ban=D
//
// is_denied(key, L, W, D), its fourth argument block = D > 0 (a VCL
// duration, written as the period is), bans a key after a refusal: a call
// that finds no token and is not banned sets b->block = now + D (line
// 193), and while now < b->block (line 182) every call is refused, yet it
// refills the bucket, sets last_used = now (line 184: the fraction of a
// token accrued is lost, as on an admission) and takes a token if it finds
// one (lines 186-190), which the documentation ("always deny for 'key' for
// that length of time") does not say. The ban is not extended by the calls
// it refuses. It is spelled ban=D here, since block=D is every algorithm's
// refusal cache, which refuses without asking the bucket: that is this one
// with the deviation blocked-takes off. An admission clears b->block (line
// 196), already past. The ban's end is a double (now + D) with float on,
// exact nanoseconds with it off. A ban longer than the period can end
// early in 0.20.0: run_gc frees a bucket idle for more than the period
// whatever its ban (upstream checks the ban from 0.22.0, commit d96544e),
// when its partition's 1000th call comes in time; the model keeps every
// ban.
//
// # As a Product
//
// Its twin is token (capacity L, refilled L/W per ns), with ban=D
// token:block=D (the token bucket behind a refusal cache of D). Its
// deviations are refill-truncation (whole tokens only, the refill
// restarting at each admission: off, the bucket keeps its fraction of a
// token, the exact token bucket), float (the refill in doubles, as
// above: off, exact integers, floor((t - last)*L/W) whole tokens) and
// one-hit (one token a request whatever its cost: off, its cost), and
// with ban=D blocked-takes (a request refused in the ban takes the tokens
// it finds, restarting the refill: off, the ban refuses without touching
// the bucket). With all off it decides as its twin. With only
// refill-truncation off, float keeps the tokens as a double, tokens +
// (delta/period)*capacity capped at capacity, admitting iff at least cost
// tokens remain: the source's float arithmetic without its truncation.
//
// A test drives the installed vmod (Debian's varnish-modules 0.20.0)
// with VTIM_mono replaced by the trace's clock, and it decides as this
// model on every request of whole-millisecond traces, the float roundings
// at whole tokens and the bans included; a real varnishd decides the
// check's trace as the model on the times the vmod read (live/varnish).
//
// Memory: tokens and last_used, 16 bytes per key, the state the decision
// reads, and with ban=D the ban's end, 8 more (the vmod's whole tbucket
// is 104 bytes: also its magic, the 32-byte digest, period, block,
// capacity and three tree links).
type Vsthrottle struct {
	algorithms.DeviationSet
	rule   algorithms.Rule
	period float64 // the period as the vmod gets it, in seconds
	ban    int64   // block, ns; 0: none
	banF   float64 // block as the vmod gets it, in seconds
	st     algorithms.PerKey[vsthrottleState]
	exact  *algorithms.Token // the twin's bucket, for both refill deviations off
}

// vsthrottleState is one key's bucket. The zero value is a key never
// seen: a full bucket.
type vsthrottleState struct {
	deficit int64   // capacity less tokens (whole tokens)
	lastNS  int64   // last_used, exact (float off): the time of the last token taken
	last    float64 // last_used, VTIM_mono seconds (float on)
	tokens  float64 // the tokens as a double (refill-truncation off, float on)
	untilNS int64   // the ban's end, exact (float off)
	until   float64 // the ban's end, b->block (float on)
	seen    bool    // a bucket exists (float on: last and tokens are set)
	banned  bool    // a ban was set (it may be over)
}

// The deviations, in the order of the list.
const (
	vsthrottleTruncation = iota
	vsthrottleFloat
	vsthrottleOneHit
	vsthrottleTakes // listed only with ban=D
)

// NewVsthrottle returns vsthrottle for rule r with block ban ns (0: none),
// or an error when VCL cannot write r as is_denied's limit and period, or
// ban as its block.
func NewVsthrottle(r algorithms.Rule, ban int64) (*Vsthrottle, error) {
	if r.L > vclIntMax {
		return nil, fmt.Errorf("algorithm \"varnish\": limit %d is beyond VCL's integers (at most %d)", r.L, int64(vclIntMax))
	}
	_, period, err := VCLDuration(r.W)
	if err != nil {
		return nil, fmt.Errorf("algorithm \"varnish\": %w", err)
	}
	v := &Vsthrottle{rule: r, period: period, ban: ban, exact: algorithms.NewToken(r, 0)}
	devs := []algorithms.Deviation{
		{Name: "refill-truncation", About: "refills whole tokens only, counted from the last admitted request: each admission restarts the refill and the fraction of a token accrued is lost"},
		{Name: "float", About: "refills (long)((delta/period)*capacity) tokens in doubles, delta a difference of VTIM_mono's double seconds: a refill that is a whole number of tokens may fall short of it"},
		{Name: "one-hit", About: "takes one token per request whatever its cost (is_denied has no cost)"},
	}
	if ban != 0 {
		if _, v.banF, err = VCLDuration(ban); err != nil {
			return nil, fmt.Errorf("algorithm \"varnish:ban=%s\": the block: %w", algorithms.FormatWindow(ban), err)
		}
		devs = append(devs, algorithms.Deviation{Name: "blocked-takes", About: "a request refused in the ban still refills the bucket, restarts the refill and takes a token if it finds one"})
	}
	v.SetDeviations(devs...)
	return v, nil
}

// vclIntMax is the largest VCL INT (VRT_INTEGER_MAX).
const vclIntMax = 999_999_999_999_999

// VCLDuration returns the VCL duration literal that writes w ns (as
// is_denied's period or block), and the double a vmod then gets: whole
// seconds as "Ns" (N.000 * 1, exact); otherwise milliseconds with three
// decimals, "I.FFFms" (I.FFF * 0.001 in doubles), which needs w a whole
// number of microseconds.
func VCLDuration(w int64) (literal string, seconds float64, err error) {
	const s, ms, us = int64(time.Second), int64(time.Millisecond), int64(time.Microsecond)
	switch {
	case w <= 0:
		return "", 0, fmt.Errorf("the duration %d ns is not positive", w)
	case w%s == 0 && w/s < 1<<53:
		return strconv.FormatInt(w/s, 10) + "s", float64(w / s), nil
	case w%us != 0:
		return "", 0, fmt.Errorf("VCL writes a duration to the microsecond (three decimals of milliseconds), not %s: give a window of whole microseconds", algorithms.FormatWindow(w))
	}
	num := fmt.Sprintf("%d.%03d", w/ms, w%ms/us)
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || w/ms >= 1<<43 {
		return "", 0, fmt.Errorf("%s is beyond VCL's durations", algorithms.FormatWindow(w))
	}
	milli := 0.001 // a variable: the product is rounded at run time, as C's constant folding rounds it
	return num + "ms", v * milli, nil
}

func (v *Vsthrottle) Name() string {
	if v.ban != 0 {
		return "varnish:ban=" + algorithms.FormatWindow(v.ban) + v.Suffix()
	}
	return "varnish" + v.Suffix()
}

func (v *Vsthrottle) Twin() string {
	if v.ban != 0 {
		return "token:block=" + algorithms.FormatWindow(v.ban)
	}
	return "token"
}

func (v *Vsthrottle) Bytes(int32) int64 {
	if v.ban != 0 {
		return 24
	}
	return 16
}

func (*Vsthrottle) FixedSize() bool      { return true }
func (*Vsthrottle) CountsRejected() bool { return false }

// twin reports whether both refill deviations are off: the exact token
// bucket.
func (v *Vsthrottle) twin() bool { return !v.OnAt(vsthrottleTruncation) && !v.OnAt(vsthrottleFloat) }

func (v *Vsthrottle) Grow(n int) {
	if v.twin() {
		v.exact.Grow(n)
	}
	if !v.twin() || v.ban != 0 {
		v.st.Grow(n)
	}
}

func (v *Vsthrottle) Place(b *algorithms.Block) {
	if v.twin() {
		v.exact.Place(b)
	}
	if !v.twin() || v.ban != 0 {
		v.st.Place(b)
	}
}

// mono is VTIM_mono's reading at trace time t: tv_sec + 1e-9*tv_nsec.
func mono(t int64) float64 {
	sec := algorithms.FloorDiv(t, int64(time.Second))
	nsec := t - sec*int64(time.Second)
	return float64(sec) + float64(1e-9*float64(nsec)) // each operation rounded, as in C (no fused multiply-add)
}

// refill returns the tokens (as capacity less them, never below 0) key s
// holds at t after calc_tokens, with refill-truncation on, and the clock's
// reading (float on). It changes nothing: Record stores what it returns.
func (v *Vsthrottle) refill(s *vsthrottleState, t int64) (deficit int64, now float64) {
	capa := v.rule.L
	if !v.OnAt(vsthrottleFloat) { // exact: floor((t - last)*L/W) whole tokens
		dt := max(t-s.lastNS, 0)
		if s.deficit <= 0 || !algorithms.Mul(dt, v.rule.L).Lt(algorithms.Mul(s.deficit, v.rule.W)) {
			return 0, 0
		}
		k, _, _ := algorithms.DivMod(dt, v.rule.L, v.rule.W) // < deficit: fits
		return s.deficit - k, 0
	}
	now = mono(t)
	if !s.seen { // tb_alloc: full, last_used = now, and calc_tokens adds nothing
		return 0, now
	}
	delta := max(now-s.last, 0)                                   // the vmod asserts delta >= 0
	x := float64(float64(delta/v.period) * float64(capa))         // (delta / b->period) * b->capacity
	if !(x < 0x1p63) || int64(x) >= s.deficit || s.deficit <= 0 { // capped (or beyond a long: see the type's comment)
		return 0, now
	}
	return s.deficit - int64(x), now // (long) truncates toward zero; x >= 0
}

// fractional returns the tokens as a double at t, with refill-truncation
// off and float on.
func (v *Vsthrottle) fractional(s *vsthrottleState, t int64) (tokens, now float64) {
	capa := float64(v.rule.L)
	now = mono(t)
	if !s.seen {
		return capa, now
	}
	delta := max(now-s.last, 0)
	tokens = s.tokens + float64(float64(delta/v.period)*capa)
	return min(tokens, capa), now
}

// Decide: with ban=D a key in its ban is refused (and with blocked-takes
// the call refills the bucket and takes a token if it finds one); a
// refusal outside a ban starts one.
func (v *Vsthrottle) Decide(id int32, t, cost int64) bool {
	cost = oneHit(v.OnAt(vsthrottleOneHit), cost)
	if v.ban == 0 {
		return v.fits(id, t, cost)
	}
	s := v.st.At(id)
	if v.banned(s, t) {
		if v.OnAt(vsthrottleTakes) {
			v.touch(id, t, cost)
		}
		return false
	}
	if v.fits(id, t, cost) {
		return true
	}
	s.banned = true
	if v.OnAt(vsthrottleFloat) {
		s.until = float64(mono(t) + v.banF) // b->block = now + block
	} else {
		s.untilNS = algorithms.SatAdd(t, v.ban)
	}
	return false
}

// banned reports whether key s is in its ban at t: now < b->block.
func (v *Vsthrottle) banned(s *vsthrottleState, t int64) bool {
	if !s.banned {
		return false
	}
	if v.OnAt(vsthrottleFloat) {
		return mono(t) < s.until
	}
	return t < s.untilNS
}

// touch is a call in the ban: calc_tokens, last_used = now, and a token
// (cost tokens) taken if there are as many.
func (v *Vsthrottle) touch(id int32, t, cost int64) {
	switch {
	case v.twin():
		if v.exact.Decide(id, t, cost) {
			v.exact.Record(id, t, cost)
		}
		return
	case !v.OnAt(vsthrottleTruncation):
		s := v.st.At(id)
		tokens, now := v.fractional(s, t)
		if tokens >= float64(cost) {
			tokens -= float64(cost)
		}
		s.tokens, s.last, s.seen = tokens, now, true
		return
	}
	s := v.st.At(id)
	d, now := v.refill(s, t)
	if cost <= v.rule.L && d <= v.rule.L-cost {
		d += cost
	}
	s.deficit, s.lastNS, s.last, s.seen = d, t, now, true
}

// fits reports whether the bucket holds cost tokens at t.
func (v *Vsthrottle) fits(id int32, t, cost int64) bool {
	switch {
	case v.twin():
		return v.exact.Decide(id, t, cost)
	case !v.OnAt(vsthrottleTruncation):
		tokens, _ := v.fractional(v.st.At(id), t)
		return tokens >= float64(cost)
	}
	d, _ := v.refill(v.st.At(id), t)
	return cost <= v.rule.L && d <= v.rule.L-cost
}

func (v *Vsthrottle) Record(id int32, t, cost int64) {
	cost = oneHit(v.OnAt(vsthrottleOneHit), cost)
	if v.twin() {
		v.exact.Record(id, t, cost)
		return
	}
	s := v.st.At(id)
	if !v.OnAt(vsthrottleTruncation) {
		tokens, now := v.fractional(s, t)
		s.tokens, s.last, s.seen = tokens-float64(cost), now, true
		return
	}
	d, now := v.refill(s, t)
	s.deficit, s.lastNS, s.last, s.seen = algorithms.SatAdd(d, cost), t, now, true
}

// Idle: the bucket is full at t (or was never made), and stays full until
// a request takes a token, as a new bucket is; and no ban holds at t.
func (v *Vsthrottle) Idle(id int32, t int64) bool {
	if v.ban != 0 && v.banned(v.st.At(id), t) {
		return false
	}
	switch {
	case v.twin():
		return v.exact.Idle(id, t)
	case !v.OnAt(vsthrottleTruncation):
		tokens, _ := v.fractional(v.st.At(id), t)
		return tokens == float64(v.rule.L)
	}
	d, _ := v.refill(v.st.At(id), t)
	return d == 0
}

func (v *Vsthrottle) Release(id int32) {
	if v.twin() {
		v.exact.Release(id)
	}
	if !v.twin() || v.ban != 0 {
		*v.st.At(id) = vsthrottleState{}
	}
}
