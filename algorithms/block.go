package algorithms

import (
	"fmt"
	"math"
	"time"
)

// Blocked is any limiter behind a refusal cache ("ALG:block" or
// "ALG:block=D"): once the limiter refuses a key, the cache refuses the key
// without asking the limiter until the end of the window of the rule in
// which the refusal fell, the windows aligned to the epoch
// (floor(t/W)+1)*W, as Upstash's ephemeral cache keeps a refused key until
// its window's reset; or, with block=D, for D from the refusal, as
// Cloudflare's mitigation timeout. A refusal by the cache does not extend
// the block, and nothing reaches the limiter: in independent mode a
// request the cache refuses is not counted (under count all it is, as any
// refused request). In shadow mode the harness records what the reference
// admits, cached refusals included, in the limiter.
//
// The cache is part of the decision: Decide sets the block when the
// limiter refuses, so it must be called once per request, as the harness
// does.
//
// Memory: the limiter's, plus the end of the block, 8 bytes per key.
type Blocked struct {
	inner Limiter
	w     int64         // the rule's window, or 0 with d
	d     int64         // the block's duration, or 0 for till the window's end
	until PerKey[int64] // the block's end XOR math.MinInt64: the zero value is no block
	name  string
	// reset, when set, gives the block's end for a refusal of key id at t
	// instead of the rule's window or the duration: a product whose cache
	// keeps the reset its limiter returns (Upstash).
	reset func(id int32, t int64) int64
}

// BlockedUntil returns when key id's block ends (math.MinInt64: none).
func (b *Blocked) BlockedUntil(id int32) int64 { return (*b.until.At(id)) ^ math.MinInt64 }

// NewBlocked puts l behind a refusal cache for rule r: how is "window"
// (till the window's end) or a duration as time.ParseDuration reads it.
func NewBlocked(l Limiter, r Rule, how string) (*Blocked, error) {
	b := &Blocked{inner: l, w: r.W, name: l.Name() + ":block"}
	if how != "window" {
		d, err := time.ParseDuration(how)
		if err != nil || d <= 0 {
			return nil, fmt.Errorf("algorithm %q: block=%s is not a positive duration (e.g. block=30s); block alone blocks till the window's end", l.Name()+":block="+how, how)
		}
		b.d, b.w = int64(d), 0
		b.name += "=" + FormatWindow(b.d)
	}
	return b, nil
}

// SetReset makes the cache keep a refused key until reset(id, t), for a
// refusal of key id at t, instead of the rule's window or the duration: a
// product whose cache keeps the reset its limiter returns (Upstash).
func (b *Blocked) SetReset(reset func(id int32, t int64) int64) { b.reset = reset }

// Inner returns the limiter behind the cache.
func (b *Blocked) Inner() Limiter { return b.inner }

// end returns when a block set by a refusal at t ends.
func (b *Blocked) end(t int64) int64 {
	if b.w == 0 {
		return SatAdd(t, b.d)
	}
	return SatAdd(FloorDiv(t, b.w)*b.w, b.w)
}

func (b *Blocked) Name() string { return b.name }

// Decide refuses a key blocked at t; otherwise it asks the limiter, and
// blocks the key if the limiter refuses.
func (b *Blocked) Decide(id int32, t, cost int64) bool {
	if t < b.BlockedUntil(id) {
		return false
	}
	return b.Gate(id, t, b.inner.Decide(id, t, cost))
}

// Gate puts the cache in front of admit, the limiter's decision at t, for
// a caller that asks the limiter itself, blocked or not (the harness's
// reference, which reads the log's exact count at every request): a key
// blocked at t is refused, and a refusal by the limiter blocks the key.
func (b *Blocked) Gate(id int32, t int64, admit bool) bool {
	if t < b.BlockedUntil(id) {
		return false
	}
	if admit {
		return true
	}
	end := b.end(t)
	if b.reset != nil {
		end = b.reset(id, t)
	}
	*b.until.At(id) = end ^ math.MinInt64
	return false
}

func (b *Blocked) Record(id int32, t, cost int64) { b.inner.Record(id, t, cost) }

func (b *Blocked) Grow(n int) {
	b.inner.Grow(n)
	b.until.Grow(n)
}

func (b *Blocked) Bytes(id int32) int64 { return b.inner.Bytes(id) + 8 }
func (b *Blocked) FixedSize() bool      { return b.inner.FixedSize() }
func (b *Blocked) CountsRejected() bool { return b.inner.CountsRejected() }
func (b *Blocked) CountsEvery() bool    { return CountsEvery(b.inner) }
func (b *Blocked) CouplesKeys() bool    { return CouplesKeys(b.inner) }

// Warm loads the limiter's state and the block's end.
func (b *Blocked) Warm(id int32) uint64 {
	w := uint64(*b.until.At(id))
	if wm, ok := b.inner.(Warmer); ok {
		w += wm.Warm(id)
	}
	return w
}

// Blocking says whether key id is blocked at t.
func (b *Blocked) Blocking(id int32, t int64) bool { return t < b.BlockedUntil(id) }

// Idle: the block is over and the limiter is idle (never, for a limiter
// that cannot tell).
func (b *Blocked) Idle(id int32, t int64) bool {
	rl, ok := b.inner.(Releaser)
	return ok && t >= b.BlockedUntil(id) && rl.Idle(id, t)
}

func (b *Blocked) Release(id int32) {
	b.inner.(Releaser).Release(id)
	*b.until.At(id) = 0
}
