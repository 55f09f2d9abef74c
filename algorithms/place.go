package algorithms

// The limiters whose per-key state a replay can place in its Block
// (Placer): every value they keep of a key is a PerKey of pointer-free
// values.

func (c *Counter) Place(b *Block) { c.st.Place(b) }
func (f *Fixed) Place(b *Block)   { f.st.Place(b) }
func (t *Token) Place(b *Block)   { t.st.Place(b) }
func (g *GCRA) Place(b *Block)    { g.st.Place(b) }
func (l *Leaky) Place(b *Block)   { l.st.Place(b) }
func (b *Buckets) Place(blk *Block) {
	b.hdr.Place(blk)
	b.c.Place(blk)
}
