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

// Run is a run of consecutive requests of a trace, split into parts. Its
// keys are all copied into its parts, or all entries of one dictionary
// (Run.Dict, Part.Ref).
type Run struct {
	parts []Part // the n parts, then the requests no part takes (T, At and Pos only)
	n     int    // requests, every part's
	maxT  int64  // the latest time of its requests, -1 for none
	file  string
	rows  bool // positions are rows (Parquet), not lines

	// Positions: request at is at pos0 + at, until a request is not
	// (gaps): the parts then hold every request's position (Part.Pos).
	pos0 int64
	gaps bool

	dict uint64    // for keys that are entries: their dictionary (KeyRefer), numbered from 1; 0 for copied keys
	keys *dictKeys // and its keys

	pending atomic.Int32 // parts not yet done
	release func(*Run)   // gives the run back to its reader once every part is done
}

// Part is the requests of a run whose keys fall in one part, in trace
// order, in columns: request i is at T[i], of cost Cost[i] and key Key(i),
// the At[i]-th request of its run (from 0), at the line or row
// Run.Position tells.
type Part struct {
	T, Cost []int64
	At      []int32
	Pos     []int64 // the positions, when they do not follow from At (Run.Position)
	// Copied keys: key i is Keys[KeyEnd[i-1]:KeyEnd[i]] (from 0 for the
	// first), and PartOf gave it hash Hash[i].
	Hash   []uint64
	KeyEnd []int32
	Keys   []byte
	// Or keys that are entries of the run's dictionary (Run.Dict): key i is
	// entry Ref[i]. The consumer hashes an entry itself, when it needs to
	// (once per entry).
	Ref  []int32
	dict *dictKeys
}

// dictKeys are the keys of a dictionary: entry i is data[off[i]:off[i+1]].
type dictKeys struct {
	data []byte
	off  []uint32
}

// len returns the number of entries.
func (d *dictKeys) len() int { return max(len(d.off)-1, 0) }

// at returns entry i.
func (d *dictKeys) at(i int32) []byte { return d.data[d.off[i]:d.off[i+1]:d.off[i+1]] }

// Len returns the number of requests in the part.
func (p *Part) Len() int { return len(p.T) }

// Key returns the key of request i; it is the run's, valid until the
// consumer is done with the part.
func (p *Part) Key(i int) []byte {
	if p.dict != nil {
		return p.dict.at(p.Ref[i])
	}
	start := int32(0)
	if i > 0 {
		start = p.KeyEnd[i-1]
	}
	return p.Keys[start:p.KeyEnd[i]]
}

func (p *Part) reset() {
	p.T, p.Cost, p.At, p.Pos = p.T[:0], p.Cost[:0], p.At[:0], p.Pos[:0]
	p.Hash, p.KeyEnd, p.Keys, p.Ref, p.dict = p.Hash[:0], p.KeyEnd[:0], p.Keys[:0], p.Ref[:0], nil
}

// cut drops the requests from the run's at-th on.
func (p *Part) cut(at int32) {
	j := searchAt(p.At, at)
	p.T, p.At = p.T[:j], p.At[:j]
	p.Cost, p.Pos, p.Hash, p.KeyEnd, p.Ref = upTo(p.Cost, j), upTo(p.Pos, j), upTo(p.Hash, j), upTo(p.KeyEnd, j), upTo(p.Ref, j)
	end := int32(0)
	if len(p.KeyEnd) > 0 {
		end = p.KeyEnd[len(p.KeyEnd)-1]
	}
	p.Keys = p.Keys[:end]
}

// upTo returns the first j elements of s, or s if it has no more.
func upTo[T any](s []T, j int) []T { return s[:min(j, len(s))] }

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
	r.n, r.maxT, r.gaps, r.dict, r.keys = 0, -1, false, 0, nil
}

// next returns the place in the run of its next request, at line or row
// pos, for an add, which counts it.
func (r *Run) next(pos int64) int32 {
	at := int32(r.n)
	if r.n == 0 {
		r.pos0 = pos
	} else if !r.gaps && pos != r.pos0+int64(at) {
		r.gaps = true
		for i := range r.parts {
			p := &r.parts[i]
			for _, a := range p.At {
				p.Pos = append(p.Pos, r.pos0+int64(a))
			}
		}
	}
	return at
}

// counted counts a request of time t, whose place was at (next), added to
// part p at pos.
func (r *Run) counted(p *Part, t int64, pos int64) {
	if r.gaps {
		p.Pos = append(p.Pos, pos)
	}
	r.maxT = max(r.maxT, t)
	r.n++
}

// add appends the next request of the run, at line or row pos, to part
// (-1: the requests no part takes), h its key's hash, copying its key. The
// run's keys must be copied ones (its Dict 0).
func (r *Run) add(q Request, part int, h uint64, pos int64) {
	at := r.next(pos)
	if part < 0 {
		r.addRest(q.T, at, pos)
		return
	}
	p := &r.parts[part]
	p.T = append(p.T, q.T)
	p.Cost = append(p.Cost, q.Cost)
	p.At = append(p.At, at)
	p.Hash = append(p.Hash, h)
	p.Keys = append(p.Keys, q.Key...)
	p.KeyEnd = append(p.KeyEnd, int32(len(p.Keys)))
	r.counted(p, q.T, pos)
}

// addEntry appends the next request of the run, at time t, of cost cost
// and at line or row pos, to part (-1: the requests no part takes); its
// key is entry ref of the run's dictionary (useDict).
func (r *Run) addEntry(t, cost int64, part int, pos int64, ref int32) {
	at := r.next(pos)
	if part < 0 {
		r.addRest(t, at, pos)
		return
	}
	p := &r.parts[part]
	p.T = append(p.T, t)
	p.Cost = append(p.Cost, cost)
	p.At = append(p.At, at)
	p.Ref = append(p.Ref, ref)
	r.counted(p, t, pos)
}

// addRest appends a request no part takes: only what Run.MaxT and
// Run.Before read of it.
func (r *Run) addRest(t int64, at int32, pos int64) {
	p := &r.parts[len(r.parts)-1]
	p.T = append(p.T, t)
	p.At = append(p.At, at)
	r.counted(p, t, pos)
}

// useDict makes the keys of the run's requests entries of dictionary dict
// (from 1), whose keys are keys: before its first request.
func (r *Run) useDict(dict uint64, keys *dictKeys) {
	r.dict, r.keys = dict, keys
	for i := range r.parts {
		r.parts[i].dict = keys
	}
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
	if !r.gaps {
		return r.pos0 + int64(at)
	}
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
	pos := r.pos0 + int64(p.At[i])
	if r.gaps {
		pos = p.Pos[i]
	}
	if r.rows {
		return Position{File: r.file, Row: pos}
	}
	return Position{File: r.file, Line: pos}
}

// Dict returns the dictionary whose entries its parts' keys are (Part.Ref,
// numbered as KeyRef numbers them: within one dictionary an entry always
// names the same key), 0 when its keys are copied.
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
