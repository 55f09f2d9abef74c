package traces

import "sync/atomic"

// Partitioned reading. A consumer that replays the keys of a trace on
// several goroutines, each a disjoint set of keys (each key's requests in
// trace order), can ask a Partitioner to hand its requests over already
// split into those sets: the goroutines that parse the trace write each
// request straight into the part of its key, so that no one goroutine
// copies every request. The requests come in runs, consecutive requests of
// the trace in trace order, each split into parts: a part holds the run's
// requests of its keys in trace order, and the consumer replays the parts
// of one run after those of the run before.

// PartOf names the part a key's requests go to, in [0, n) for n parts, or
// -1 for a key no part takes (its requests are still counted in their run:
// Run.Len, Run.MaxT), and the hash that decided it, handed over with each
// request (Part.Hash). It must always give the same part for the same key,
// and be safe to call from several goroutines at once.
type PartOf func(key []byte) (part int, hash uint64)

// Partitioner is a reader that can hand its requests over in runs split by
// key (Run). Partition switches it to that: from then on NextRun replaces
// Scan and Request, and Err still tells why the requests ended. A
// Partitioner that was scanned already (or cannot) returns false and stays
// a plain Reader. What NextRun hands over, request for request, position
// for position, and the error it ends with, are what Scan would have.
type Partitioner interface {
	Reader
	Partition(n int, of PartOf) bool
	// NextRun returns the next run, nil at the end of the requests (Err
	// then tells whether they ended on an error). The run is the reader's
	// until the consumer has called its Done once for each of its n parts.
	NextRun() *Run
}

// Run is a run of consecutive requests of a trace, split into parts.
type Run struct {
	parts []Part // the n parts, then the requests no part takes (T, At and Pos only)
	n     int    // requests, every part's
	maxT  int64  // the latest time of its requests, -1 for none
	file  string
	rows  bool // Part.Pos holds rows (Parquet), not lines

	dict    uint64   // with refs: the dictionary of the keys (KeyRefer), numbered from 1
	entries [][]byte // and its keys

	pending atomic.Int32 // parts not yet done
	release func(*Run)   // gives the run back to its reader once every part is done
}

// Part is the requests of a run whose keys fall in one part, in trace
// order, in columns: request i is at T[i], of cost Cost[i] and key Key(i)
// (whose PartOf hash is Hash[i]), the At[i]-th request of its run (from
// 0), at line or row Pos[i] of the file (Run.Position).
type Part struct {
	T, Cost []int64
	Hash    []uint64
	At      []int32
	Pos     []int64
	// The keys: key i is Keys[KeyEnd[i-1]:KeyEnd[i]] (from 0 for the
	// first), or when Ref is not empty and Ref[i] >= 0 entry Ref[i] of the
	// run's dictionary (Run.Dict).
	KeyEnd  []int32
	Keys    []byte
	Ref     []int32
	entries [][]byte
}

// Len returns the number of requests in the part.
func (p *Part) Len() int { return len(p.T) }

// Key returns the key of request i; it is the run's, valid until the
// consumer is done with the part.
func (p *Part) Key(i int) []byte {
	if len(p.Ref) != 0 && p.Ref[i] >= 0 {
		return p.entries[p.Ref[i]]
	}
	start := int32(0)
	if i > 0 {
		start = p.KeyEnd[i-1]
	}
	return p.Keys[start:p.KeyEnd[i]]
}

// add appends a request of the run's at-th request, at line or row pos;
// key is copied unless ref names it in the run's dictionary (>= 0).
func (p *Part) add(q Request, h uint64, at int32, pos int64, ref int32) {
	p.T = append(p.T, q.T)
	p.Cost = append(p.Cost, q.Cost)
	p.Hash = append(p.Hash, h)
	p.At = append(p.At, at)
	p.Pos = append(p.Pos, pos)
	if ref < 0 {
		p.Keys = append(p.Keys, q.Key...)
	}
	p.KeyEnd = append(p.KeyEnd, int32(len(p.Keys)))
	if ref >= 0 || len(p.Ref) != 0 {
		for len(p.Ref) < len(p.T)-1 { // the keys before were copied
			p.Ref = append(p.Ref, -1)
		}
		p.Ref = append(p.Ref, ref)
	}
}

// addRest appends a request no part takes: only what Run.MaxT and
// Run.Before read of it.
func (p *Part) addRest(t int64, at int32, pos int64) {
	p.T = append(p.T, t)
	p.At = append(p.At, at)
	p.Pos = append(p.Pos, pos)
}

func (p *Part) reset() {
	p.T, p.Cost, p.Hash, p.At, p.Pos = p.T[:0], p.Cost[:0], p.Hash[:0], p.At[:0], p.Pos[:0]
	p.KeyEnd, p.Keys, p.Ref, p.entries = p.KeyEnd[:0], p.Keys[:0], p.Ref[:0], nil
}

// cut drops the requests from the run's at-th on.
func (p *Part) cut(at int32) {
	j := len(p.At)
	for j > 0 && p.At[j-1] >= at {
		j--
	}
	p.T, p.At, p.Pos = p.T[:j], p.At[:j], p.Pos[:j]
	if len(p.Cost) > j { // not the rest's
		p.Cost, p.Hash, p.KeyEnd = p.Cost[:j], p.Hash[:j], p.KeyEnd[:j]
		end := int32(0)
		if j > 0 {
			end = p.KeyEnd[j-1]
		}
		p.Keys = p.Keys[:end]
		if len(p.Ref) != 0 {
			p.Ref = p.Ref[:j]
		}
	}
}

// newRun returns a run of n parts of the requests of file, positioned by
// rows rather than lines; release, if not nil, takes it back once every
// part is done.
func newRun(n int, file string, rows bool, release func(*Run)) *Run {
	return &Run{parts: make([]Part, n+1), maxT: -1, file: file, rows: rows, release: release}
}

// reset empties the run for its next requests.
func (r *Run) reset() {
	for i := range r.parts {
		r.parts[i].reset()
	}
	r.n, r.maxT, r.dict, r.entries = 0, -1, 0, nil
}

// useDict says that the keys of the requests added with a ref (add) are
// entries of dictionary dict, whose keys are entries.
func (r *Run) useDict(dict uint64, entries [][]byte) {
	r.dict, r.entries = dict, entries
	for i := range r.parts {
		r.parts[i].entries = entries
	}
}

// add appends the next request of the run, at line or row pos, to part
// (-1: the requests no part takes), h its key's hash; ref is its key's
// entry in the run's dictionary, or -1 (the key is copied).
func (r *Run) add(q Request, part int, h uint64, pos int64, ref int32) {
	if part < 0 {
		r.parts[len(r.parts)-1].addRest(q.T, int32(r.n), pos)
	} else {
		r.parts[part].add(q, h, int32(r.n), pos, ref)
	}
	r.maxT = max(r.maxT, q.T)
	r.n++
}

// cut drops the requests from the at-th on, which the reader did not
// reach (it stopped on an error before them).
func (r *Run) cut(at int) {
	if at >= r.n {
		return
	}
	r.n, r.maxT = at, -1
	for i := range r.parts {
		p := &r.parts[i]
		p.cut(int32(at))
		for _, t := range p.T {
			r.maxT = max(r.maxT, t)
		}
	}
}

// posOf returns the line or row of the run's at-th request.
func (r *Run) posOf(at int) int64 {
	for i := range r.parts {
		p := &r.parts[i]
		if j := searchAt(p.At, int32(at)); j < len(p.At) && p.At[j] == int32(at) {
			return p.Pos[j]
		}
	}
	return 0
}

// searchAt returns the first index of at whose value is at least v (at
// increases).
func searchAt(at []int32, v int32) int {
	lo, hi := 0, len(at)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if at[m] < v {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// Len returns the number of requests in the run, those no part takes
// included.
func (r *Run) Len() int { return r.n }

// MaxT returns the latest time of the run's requests (those no part takes
// included), -1 for none.
func (r *Run) MaxT() int64 { return r.maxT }

// Part returns part i of the run.
func (r *Run) Part(i int) *Part { return &r.parts[i] }

// Before returns the latest time of the run's requests before its at-th
// (those no part takes included), -1 for none: what a consumer needs of
// the others' requests to tell how late a request came. It reads every
// part: call it for an error, not per request.
func (r *Run) Before(at int32) int64 {
	latest := int64(-1)
	for i := range r.parts {
		p := &r.parts[i]
		for j := range searchAt(p.At, at) {
			latest = max(latest, p.T[j])
		}
	}
	return latest
}

// Position returns where request i of part p was read.
func (r *Run) Position(p *Part, i int) Position {
	if r.rows {
		return Position{File: r.file, Row: p.Pos[i]}
	}
	return Position{File: r.file, Line: p.Pos[i]}
}

// Dict returns the dictionary the keys of its parts' Ref name (see
// KeyRef): within one dictionary an entry always names the same key.
func (r *Run) Dict() uint64 { return r.dict }

// Done tells the run's reader that the consumer no longer reads one of its
// parts; once it has been called for every part, the reader may reuse the
// run.
func (r *Run) Done() {
	if r.pending.Add(-1) == 0 && r.release != nil {
		r.release(r)
	}
}

// handOut readies the run for the consumer: its n parts pending.
func (r *Run) handOut() *Run {
	r.pending.Store(int32(len(r.parts) - 1))
	return r
}

// runPool keeps the runs a reader made itself (not its pipeline's chunks)
// for reuse.
type runPool struct {
	n    int
	of   PartOf
	file string
	rows bool
	free chan *Run
}

func newRunPool(n int, of PartOf, file string, rows bool) *runPool {
	return &runPool{n: n, of: of, file: file, rows: rows, free: make(chan *Run, 16)}
}

// get returns an empty run.
func (p *runPool) get() *Run {
	select {
	case r := <-p.free:
		r.reset()
		return r
	default:
		return newRun(p.n, p.file, p.rows, p.put)
	}
}

// put takes a run back, unless the pool is full.
func (p *runPool) put(r *Run) {
	select {
	case p.free <- r:
	default:
	}
}

// seqRunMax is how many requests a reader reading one record at a time
// puts in a run.
const seqRunMax = 4096
