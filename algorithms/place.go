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

// Blocked places its inner limiter's state, if that can be placed, and
// each key's block end.
func (b *Blocked) Place(blk *Block) {
	if p, ok := b.inner.(Placer); ok {
		p.Place(blk)
	}
	b.until.Place(blk)
}

// The products place the state they keep under their deviations: the
// models of their own, or the textbook limiter a deviation turned off
// leaves them. Nginx's shared zone, whose order couples the keys, stays
// where it is.

func (e *Envoy) Place(b *Block)      { e.st.Place(b) }
func (g *GoLimiter) Place(b *Block)  { g.st.Place(b) }
func (g *Guava) Place(b *Block)      { g.st.Place(b) }
func (k *Kong) Place(b *Block)       { k.st.Place(b) }
func (u *Ulule) Place(b *Block)      { u.st.Place(b) }
func (rc *RedisCell) Place(b *Block) { rc.g.Place(b) }
func (th *Throttled) Place(b *Block) { th.core().Place(b) }
func (u *Upstash) Place(b *Block)    { u.cache.Place(b) } // the cache places its inner limiter, core

func (c *upstashSliding) Place(b *Block) { c.st.Place(b) }
func (c *upstashFixed) Place(b *Block)   { c.st.Place(b) }
func (c *upstashToken) Place(b *Block)   { c.st.Place(b) }

func (j *Juju) Place(b *Block) {
	j.st.Place(b)
	j.cont.Place(b)
}

func (el *EnvoyLocal) Place(b *Block) {
	if el.OnAt(envoyLocalTimerFill) {
		el.st.Place(b)
	} else {
		el.tk.Place(b)
	}
}

func (rr *RedisRate) Place(b *Block) {
	if rr.OnAt(redisRateFloat) {
		rr.st.Place(b)
	} else {
		rr.exact.Place(b)
	}
}

func (ng *Nginx) Place(b *Block) {
	if ng.exact != nil {
		ng.exact.Place(b)
	} else {
		ng.st.Place(b)
	}
}

// The log places each key's ring and bookkeeping; the entries of a key
// that left its ring stay in the log's own WindowSums.
func (l *Log) Place(b *Block) { l.keys.Place(b) }
