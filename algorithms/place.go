package algorithms

// The limiters whose per-key state a replay can place in its Block
// (Placer): every value they keep of a key is a PerKey of pointer-free
// values.

func (c *Counter) Place(b *Block)   { c.st.Place(b) }
func (f *Fixed) Place(b *Block)     { f.st.Place(b) }
func (t *Token) Place(b *Block)     { t.st.Place(b) }
func (g *GCRA) Place(b *Block)      { g.st.Place(b) }
func (l *Leaky) Place(b *Block)     { l.st.Place(b) }
func (b *Buckets) Place(blk *Block) { b.st.Place(blk) }

// Blocked places its inner limiter's state, if that can be placed, and
// each key's block end.
func (b *Blocked) Place(blk *Block) {
	if p, ok := b.inner.(Placer); ok {
		p.Place(blk)
	}
	b.until.Place(blk)
}

// The log places each key's ring and bookkeeping; the entries of a key
// that left its ring stay in the log's own WindowSums.
func (l *Log) Place(b *Block) { l.e.Place(b) }
