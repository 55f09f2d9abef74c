package algorithms

import "math/bits"

// TokenState is one key's token deficit D = B - tokens, kept exactly as
// x = D*W (D = dq + dr/W with 0 <= dr < W, x = dq*W + dr), so that a
// refill, a decision and a record multiply and never divide. The zero value
// is a full bucket. In shadow mode a bucket may record requests it had no
// token for; D then exceeds B (the tokens are negative: a debt) until
// refills repay it. The whole part dq saturates at the largest int64 (x
// stays below 2^63*W).
type TokenState struct {
	X    U128  // the deficit times W
	last int64 // time of the last refill
}

// Refill advances the bucket to time t: the deficit shrinks by
// (t-last)*L/W, never below zero (the bucket never holds more than B). It
// has no branch on the state: x - (t-last)*L, or 0 where that borrows (a
// time that goes back refills nothing).
func (s *TokenState) Refill(t int64, r Rule) {
	dt := t - s.last
	s.last = t
	if dt < 0 {
		dt = 0
	}
	dh, dl := bits.Mul64(uint64(dt), uint64(r.L))
	lo, b := bits.Sub64(s.X.Lo, dl, 0)
	hi, b := bits.Sub64(s.X.Hi, dh, b)
	if b != 0 {
		hi, lo = 0, 0
	}
	s.X = U128{hi, lo}
}

// Fits reports whether cost tokens are available with capacity b:
// B - D >= cost, that is D*W <= (B-cost)*W.
func (s *TokenState) Fits(b, cost int64, r Rule) bool {
	room := b - cost
	if room < 0 {
		return false
	}
	rh, rl := bits.Mul64(uint64(room), uint64(r.W))
	return le128(s.X.Hi, s.X.Lo, rh, rl)
}

// Take records cost tokens taken: D grows by cost, its whole part
// saturating at the largest int64 (as SatAdd) and its fraction kept.
func (s *TokenState) Take(cost int64, r Rule) {
	x, big := s.plus(cost, r)
	if big {
		x = s.saturate(x, r)
	}
	s.X = x
}

// plus returns x + cost*W, and whether D may have reached 2^63 (x >=
// 2^63*W), for saturate to tell.
func (s *TokenState) plus(cost int64, r Rule) (U128, bool) {
	ch, cl := bits.Mul64(uint64(cost), uint64(r.W))
	lo, c := bits.Add64(s.X.Lo, cl, 0)
	x := U128{s.X.Hi + ch + c, lo} // below 2^127: no wrap
	return x, x.Hi >= uint64(r.W)>>1
}

// saturate returns x = D*W, or its whole part saturated at the largest
// int64 when D >= 2^63: take's slow path.
func (s *TokenState) saturate(x U128, r Rule) U128 {
	if top := (U128{uint64(r.W) >> 1, uint64(r.W) << 63}); !x.Lt(top) { // D >= 2^63
		_, dr := s.deficit(r)
		x = Mul(1<<63-1, r.W).AddInt(dr)
	}
	return x
}

// deficit returns D = dq + dr/W, 0 <= dr < W.
func (s *TokenState) deficit(r Rule) (dq, dr int64) {
	dq, dr, _ = s.X.quoRem(r.W) // x < 2^63*W: dq fits
	return dq, dr
}

// Token is the token bucket with lazy refill (docs/definitions.md §7): it starts full with
// B tokens (default L) and refills L/W tokens per nanosecond up to B. A
// request is admitted iff the bucket holds at least cost tokens; recording it
// takes cost tokens. It counts only what it records, whatever the policy.
//
// Memory: the token count and the time of the last refill, 16 bytes per key.
type Token struct {
	rule  Rule
	b     int64
	named bool              // B was given explicitly
	st    PerKey[tokenCell] // each key's TokenState, narrow (cells.go)
	wide  wideStates[TokenState]
}

// NewToken returns the token bucket for rule r with capacity b (b <= 0
// means L).
func NewToken(r Rule, b int64) *Token {
	tk := &Token{rule: r, b: b, named: b > 0}
	if b <= 0 {
		tk.b = r.L
	}
	return tk
}

func (tk *Token) Name() string {
	if !tk.named {
		return "token"
	}
	return "token:B=" + itoa(tk.b)
}

func (tk *Token) Grow(n int)        { tk.st.Grow(n) }
func (*Token) Bytes(int32) int64    { return 16 }
func (*Token) FixedSize() bool      { return true }
func (*Token) CountsRejected() bool { return false }

// Capacity returns B.
func (tk *Token) Capacity() int64 { return tk.b }

func (tk *Token) Decide(id int32, t, cost int64) bool {
	return tk.RefillFits(id, t, tk.b, cost)
}

// RefillFits refills key id's bucket to t and reports whether cost tokens
// are available with capacity b (TokenState.Fits): Decide, for a product
// whose model holds a token bucket and asks it outside Decide (nginx's
// zone).
func (tk *Token) RefillFits(id int32, t, b, cost int64) bool {
	k, s := tk.load(id)
	s.Refill(t, tk.rule)
	tk.keep(id, k, s)
	return s.Fits(b, cost, tk.rule)
}

func (tk *Token) Record(id int32, t, cost int64) {
	k, s := tk.load(id)
	s.Refill(t, tk.rule)
	x, big := s.plus(cost, tk.rule) // take, inlined
	if big {
		x = s.saturate(x, tk.rule)
	}
	s.X = x
	tk.keep(id, k, s)
}

// Rule returns the token bucket's rule.
func (tk *Token) Rule() Rule { return tk.rule }

// Rule returns the rule of the GCRA.
func (g *GCRA) Rule() Rule { return g.rule }

// GCRA is the generic cell rate algorithm (docs/definitions.md §8): emission interval
// T = W/L, burst B (default L). It keeps one theoretical arrival time TAT per
// key and admits iff max(TAT, t) + cost*T - t <= B*T; recording sets
// TAT = max(TAT, t) + cost*T. It decides exactly as Token with the same B.
//
// TAT is kept exactly (tat): T = W/L is never rounded to whole nanoseconds,
// and a TAT beyond the largest int64 nanosecond is not saturated. The zero
// value (TAT = 0, in the past of every request) is a full bucket.
//
// Memory: the TAT, 8 bytes per key.
type GCRA struct {
	rule  Rule
	b     int64
	named bool // B was given explicitly
	stepQ U128 // the emission interval W/L = stepQ + stepR/L
	stepR int64
	st    PerKey[tatCell] // each key's TAT, narrow (cells.go)
	wide  wideStates[TAT]
}

// NewGCRA returns GCRA for rule r with burst b (b <= 0 means L).
func NewGCRA(r Rule, b int64) *GCRA {
	g := &GCRA{rule: r, b: b, named: b > 0}
	if b <= 0 {
		g.b = r.L
	}
	g.stepQ, g.stepR = Mul(1, r.W).QuoRemWide(r.L)
	return g
}

func (g *GCRA) Name() string {
	if !g.named {
		return "gcra"
	}
	return "gcra:B=" + itoa(g.b)
}

func (g *GCRA) Grow(n int)         { g.st.Grow(n) }
func (*GCRA) Bytes(int32) int64    { return 8 }
func (*GCRA) FixedSize() bool      { return true }
func (*GCRA) CountsRejected() bool { return false }

// Decide admits iff X + cost*W/L <= B*W/L, where X = max(TAT-t, 0), that is
// X*L <= (B-cost)*W.
func (g *GCRA) Decide(id int32, t, cost int64) bool {
	if cost > g.b {
		return false
	}
	_, v := g.load(id)
	if v.Q.Hi != 0 {
		return v.fitsWide(t, g.b-cost, g.rule)
	}
	return v.fitsNarrow(t, g.b-cost, g.rule) // fits, inlined
}

// Record sets TAT = max(TAT, t) + cost*W/L.
func (g *GCRA) Record(id int32, t, cost int64) {
	k, v := g.load(id)
	if cost != 1 {
		v.Push(t, cost, g.rule)
	} else {
		v.pushStep(t, g.stepQ, g.stepR, g.rule.L) // W/L, divided once
	}
	g.keep(id, k, v)
}

// Capacity returns B.
func (g *GCRA) Capacity() int64 { return g.b }
