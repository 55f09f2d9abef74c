// Package spread places each request of a trace whose times are whole
// multiples of a unit U (whole seconds, whole minutes) uniformly at random
// inside its timestamp's unit, [t, t+U) (compare -spread), so that the
// replay sees gaps between the requests of one unit instead of a burst at
// one instant: comparing with the replay of the times as read shows how
// much of the disagreement the clock makes.
//
// The reader holds the requests of one timestamp at a time (at most
// Options.MaxUnit: more is an error naming the line), draws each an
// offset in [0, U) from a generator of the seed, gives each key's
// requests its offsets in increasing order (a key's requests keep their
// order), and emits them by new time, ties in trace order. The units of
// two timestamps do not overlap, so the trace stays in time order: the
// input must be in time order (-reorder sorts one that is not), and every
// time a multiple of U (Unit measures it). The arithmetic is in integers
// and the draws are the same for a seed on every machine.
package spread

import (
	"bytes"
	"fmt"
	"hash/maphash"
	"math/rand/v2"
	"slices"
	"time"

	"ratebench/algorithms"
	"ratebench/internal/mix"
	"ratebench/traces"
)

// keySeed seeds the hash that groups a timestamp's requests by key.
var keySeed = maphash.MakeSeed()

// DefaultMaxUnit is the most requests of one timestamp a Reader holds by
// default: about 64 MiB and the keys' bytes.
const DefaultMaxUnit = 1 << 20

// Options say how to spread.
type Options struct {
	Unit    int64  // U, in ns: every time of the trace is a multiple of it (Unit)
	Seed    uint64 // the draws' seed
	MaxUnit int    // the most requests of one timestamp held; 0: DefaultMaxUnit
	// Counts says which keys SameTime counts (a shard's); nil: all.
	Counts func(key []byte) bool
}

// Unit reads r to its end and returns the gcd of its times in ns, the
// coarsest unit they are all multiples of (0 for no request, or every
// time 0).
func Unit(r traces.Reader) (int64, error) {
	var u int64
	for r.Scan() {
		if t := r.Request().T; u == 0 || t%u != 0 {
			u = algorithms.GCD(u, t)
		}
	}
	return u, r.Err()
}

// item is a held request: its new time, where its key's bytes are in the
// arena, and where it was read.
type item struct {
	t, cost  int64
	from, to int32 // the key is keys[from:to]
	seq      int32 // its place among the requests of its timestamp
	same     bool  // as read, at its key's previous request's time (a key of Options.Counts)
	pos      traces.Position
}

// Reader is a trace reader that spreads the requests of another inside
// their timestamps' unit. It does not close the reader it wraps until
// Close.
type Reader struct {
	src  traces.Reader
	opt  Options
	rng  *rand.PCG
	buf  []item // the requests of the current timestamp, then the first of the next (ahead)
	keys []byte
	n    int // how many of buf are the current timestamp's
	out  int // the next of them to emit
	// ahead says buf[n] is the first request of the next timestamp, read
	// ahead; done that src has ended.
	ahead, done bool
	err         error
	cur         item
	counted     bool // cur is counted in sameTime
	sameTime    int64
	perKey      []int    // scratch: the requests of the timestamp by key
	hashes      []uint64 // scratch: each request's key hash, by its index in the group
	offsets     []int64  // scratch: one key's offsets
}

// New returns a reader of src's requests spread by opt (opt.Unit > 0).
func New(src traces.Reader, opt Options) *Reader {
	if opt.MaxUnit <= 0 {
		opt.MaxUnit = DefaultMaxUnit
	}
	return &Reader{src: src, opt: opt, rng: rand.NewPCG(opt.Seed, mix.Mix64(opt.Seed))}
}

// SameTime returns how many of the requests taken so far (by Request; of
// the keys of Options.Counts) were, as read, at the same time as their
// key's previous request. A request scanned but not taken (a replay
// interrupted) does not count.
func (r *Reader) SameTime() int64 { return r.sameTime }

// Scan advances to the next spread request.
func (r *Reader) Scan() bool {
	r.counted = false
	if r.out < r.n {
		r.cur = r.buf[r.out]
		r.out++
		return true
	}
	if r.err != nil || !r.fill() {
		return false
	}
	r.cur = r.buf[0]
	r.out = 1
	return true
}

// Request returns the current request; its key is valid until the next
// Scan.
func (r *Reader) Request() traces.Request {
	if !r.counted {
		r.counted = true
		if r.cur.same {
			r.sameTime++
		}
	}
	return traces.Request{T: r.cur.t, Key: r.keys[r.cur.from:r.cur.to], Cost: r.cur.cost}
}

// Pos returns where the current request was read.
func (r *Reader) Pos() traces.Position { return r.cur.pos }

// Err returns the first error, the wrapped reader's or the spreading's.
func (r *Reader) Err() error {
	if r.err != nil {
		return r.err
	}
	return r.src.Err()
}

// Close closes the wrapped reader.
func (r *Reader) Close() error { return r.src.Close() }

// fill reads the requests of the next timestamp and spreads them,
// reporting whether there are any.
func (r *Reader) fill() bool {
	if r.ahead { // move the request read ahead to the front
		a := r.buf[r.n]
		k := len(r.keys[a.from:a.to])
		copy(r.keys, r.keys[a.from:a.to])
		r.keys = r.keys[:k]
		a.from, a.to, a.seq = 0, int32(k), 0
		r.buf = append(r.buf[:0], a)
	} else {
		r.buf, r.keys = r.buf[:0], r.keys[:0]
	}
	r.ahead, r.n, r.out = false, 0, 0
	for !r.done && !r.ahead {
		if !r.src.Scan() {
			r.done = true
			break
		}
		if !r.hold(r.src.Request(), r.src.Pos()) {
			return false
		}
	}
	r.n = len(r.buf)
	if r.ahead {
		r.n--
	}
	if r.n == 0 {
		return false
	}
	r.spread(r.buf[:r.n])
	return true
}

// hold appends a request read to buf, marking it read ahead if it is of a
// later timestamp than those held; false on an error.
func (r *Reader) hold(q traces.Request, pos traces.Position) bool {
	u := r.opt.Unit
	if q.T%u != 0 {
		r.err = &traces.ParseError{Pos: pos, Msg: fmt.Sprintf("-spread: time %d ns is not a multiple of %v, the unit the trace was measured in (did the file change?)", q.T, time.Duration(u))}
		return false
	}
	if len(r.buf) > 0 {
		switch t0 := r.buf[0].t; {
		case q.T < t0:
			r.err = &traces.ParseError{Pos: pos, Msg: fmt.Sprintf("-spread needs the trace in time order: this request, at %d ns, comes after one at %d ns (sort the trace, or use -reorder)", q.T, t0)}
			return false
		case q.T > t0:
			r.ahead = true
		case len(r.buf) >= r.opt.MaxUnit:
			r.err = &traces.ParseError{Pos: pos, Msg: fmt.Sprintf("-spread holds the requests of one timestamp in memory, at most %d; more share the time %d ns: replay without -spread", r.opt.MaxUnit, q.T)}
			return false
		}
	}
	from := int32(len(r.keys))
	r.keys = append(r.keys, q.Key...)
	r.buf = append(r.buf, item{t: q.T, cost: q.Cost, from: from, to: int32(len(r.keys)), seq: int32(len(r.buf)), pos: pos})
	return true
}

// spread gives the requests of one timestamp, in trace order, their new
// times and sorts them by it: offsets drawn in trace order, each key's
// given to its requests in increasing order, ties kept in trace order.
func (r *Reader) spread(group []item) {
	u := uint64(r.opt.Unit)
	if len(group) == 1 {
		group[0].t += int64(mix.Uniform(r.rng, u))
		return
	}
	for i := range group {
		group[i].t += int64(mix.Uniform(r.rng, u)) // the time as read is the same for all
	}
	key := func(i int) []byte { return r.keys[group[i].from:group[i].to] }
	// The requests grouped by key, each key's in trace order: sorted by
	// the key's hash, then its bytes (two keys of one hash), then the
	// index. Only each key's order counts, not the order of the keys, so
	// the hash's seed changes nothing; comparing hashes first spares most
	// byte comparisons.
	r.perKey, r.hashes = r.perKey[:0], r.hashes[:0]
	for i := range group {
		r.perKey = append(r.perKey, i)
		r.hashes = append(r.hashes, maphash.Bytes(keySeed, key(i)))
	}
	slices.SortFunc(r.perKey, func(a, b int) int {
		if ha, hb := r.hashes[a], r.hashes[b]; ha != hb {
			if ha < hb {
				return -1
			}
			return 1
		}
		if c := bytes.Compare(key(a), key(b)); c != 0 {
			return c
		}
		return a - b
	})
	for lo := 0; lo < len(r.perKey); {
		hi := lo + 1
		for hi < len(r.perKey) && bytes.Equal(key(r.perKey[hi]), key(r.perKey[lo])) {
			hi++
		}
		if r.opt.Counts == nil || r.opt.Counts(key(r.perKey[lo])) {
			for _, i := range r.perKey[lo+1 : hi] { // after the key's first here, each is at its previous request's time
				group[i].same = true
			}
		}
		if hi-lo > 1 {
			run := r.perKey[lo:hi] // in trace order
			r.offsets = r.offsets[:0]
			for _, i := range run {
				r.offsets = append(r.offsets, group[i].t)
			}
			slices.Sort(r.offsets)
			for j, i := range run {
				group[i].t = r.offsets[j]
			}
		}
		lo = hi
	}
	slices.SortFunc(group, func(a, b item) int {
		if a.t != b.t {
			if a.t < b.t {
				return -1
			}
			return 1
		}
		return int(a.seq - b.seq)
	})
}
