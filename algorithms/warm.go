package algorithms

import "unsafe"

// Warmer is a limiter that can load key id's state ahead of a decision.
// Warm reads the state and returns a word of it, for the caller to keep
// (to add to a sink), so that the load is made. A caller that warms the
// state of every limiter a request will consult before deciding with any
// lets the processor wait for their cache misses together rather than one
// after another; nothing about the state changes.
type Warmer interface {
	Warm(id int32) uint64
}

// Warm loads key id's block, and its entries if they left the block.
func (l *Log) Warm(id int32) uint64 { return l.e.Key(id).Warm() }

func (c *Counter) Warm(id int32) uint64 { return uint64(c.st.At(id).win) }
func (f *Fixed) Warm(id int32) uint64   { return uint64(f.st.At(id).win) }
func (t *Token) Warm(id int32) uint64   { return uint64(t.st.At(id).last) }
func (g *GCRA) Warm(id int32) uint64    { return uint64(g.st.At(id).r) }
func (l *Leaky) Warm(id int32) uint64   { return uint64(l.st.At(id).at) }
func (b *Buckets) Warm(id int32) uint64 { return uint64(*b.st.At(id)) }
func (x *XRate) Warm(id int32) uint64   { return uint64(x.keys[id].twin.last) }

// Ahead is a limiter whose state for a key may reach past the key's part
// of a Block: a sliding log whose entries outgrew their ring, into a
// WindowSum of its pool and that window's ring. A caller that knows a
// key's coming request some requests ahead asks for these addresses one
// depth at a time, a request apart, and prefetches each, so that the
// decision finds them loaded: depth 1 is the address read first past the
// block, found from the block alone (which the caller loaded, or asked
// for, before); depth 2 the one read next, found from what depth 1 named.
// It returns nil where the state holds nothing more, and changes nothing.
type Ahead interface {
	Ahead(id int32, depth int) unsafe.Pointer
}

// Ahead: the key's WindowSum once its entries left the ring, then the
// oldest entry of that window's ring, which Expire reads first.
func (l *Log) Ahead(id int32, depth int) unsafe.Pointer {
	e := l.e.Key(id)
	if e.ext == 0 {
		return nil
	}
	w := e.pool.At(e.ext)
	if depth == 1 {
		return unsafe.Pointer(w)
	}
	if w.n == 0 {
		return nil
	}
	return unsafe.Pointer(&w.ts[w.head])
}
