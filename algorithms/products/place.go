package products

import "ratebench/algorithms"

// The products place the state they keep under their deviations: the
// models of their own, or the textbook limiter a deviation turned off
// leaves them. Nginx's shared zone, whose order couples the keys, stays
// where it is.

func (e *Envoy) Place(b *algorithms.Block)         { e.st.Place(b) }
func (g *GoLimiter) Place(b *algorithms.Block)     { g.st.Place(b) }
func (g *Guava) Place(b *algorithms.Block)         { g.st.Place(b) }
func (k *Kong) Place(b *algorithms.Block)          { k.st.Place(b) }
func (u *Ulule) Place(b *algorithms.Block)         { u.st.Place(b) }
func (rc *RedisCell) Place(b *algorithms.Block)    { rc.g.Place(b) }
func (th *Throttled) Place(b *algorithms.Block)    { th.core().Place(b) }
func (u *Upstash) Place(b *algorithms.Block)       { u.cache.Place(b) }  // the cache places its inner limiter, core
func (c *Caddy) Place(b *algorithms.Block)         { c.events.Place(b) } // each key's events, while they fit its ring
func (c *LuaRestyCount) Place(b *algorithms.Block) { c.st.Place(b) }     // the dict's queue, which couples keys, stays

func (c *upstashSliding) Place(b *algorithms.Block) { c.st.Place(b) }
func (c *upstashFixed) Place(b *algorithms.Block)   { c.st.Place(b) }
func (c *upstashToken) Place(b *algorithms.Block)   { c.st.Place(b) }

func (j *Juju) Place(b *algorithms.Block) {
	j.st.Place(b)
	j.cont.Place(b)
}

func (el *EnvoyLocal) Place(b *algorithms.Block) {
	if el.OnAt(envoyLocalTimerFill) {
		el.st.Place(b)
	} else {
		el.tk.Place(b)
	}
}

func (rr *RedisRate) Place(b *algorithms.Block) {
	if rr.OnAt(redisRateFloat) {
		rr.st.Place(b)
	} else {
		rr.exact.Place(b)
	}
}

func (ng *Nginx) Place(b *algorithms.Block) {
	if ng.exact != nil {
		ng.exact.Place(b)
	} else {
		ng.st.Place(b)
	}
}

// FlaskLimiter places its fixed window keys; a moving window key's list
// stays on the heap.
func (f *FlaskLimiter) Place(b *algorithms.Block) {
	if !f.moving {
		f.fixed.Place(b)
	}
}

func (d *DRFThrottling) Place(b *algorithms.Block) {
	d.keys.Place(b)
	d.hist.Place(b) // each key's history, while it fits its ring
}

func (y *Tyk) Place(b *algorithms.Block) { y.sets.Place(b) } // each key's set, while it fits its ring

func (tr *Traefik) Place(b *algorithms.Block) { tr.keys.Place(b) } // the map's capacity (sources) stays on the heap

func (n *NestThrottler) Place(b *algorithms.Block) {
	n.st.Place(b)
	n.hits.Place(b) // each key's hits, while they fit its ring
}

// LuaRestyReq places the record its deviations keep: doubles, whole
// milli-requests, or the exact token bucket.
func (q *LuaRestyReq) Place(b *algorithms.Block) {
	switch {
	case q.exact != nil:
		q.exact.Place(b)
	case q.OnAt(luaReqFloatDev):
		q.fl.Place(b)
	default:
		q.in.Place(b)
	}
}
