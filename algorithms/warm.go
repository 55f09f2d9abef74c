package algorithms

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
