package products

import (
	"fmt"

	"ratebench/algorithms"
)

// The products whose whole state of a key is their PerKey values and the
// textbook limiters they hold (algorithms.KeyCopier): CopyKey makes key
// id's state that of from, the same product built from the same spec and
// rule, in the values its deviations have it keep (as Grow grows them). Nginx's zone couples keys, and a replay copies no key of a
// limiter that does (algorithms.CouplesKeys); the products that keep a
// list per key, a refusal cache or a table across keys (Tyk, Caddy,
// Flask-Limiter's moving window, Upstash, Traefik's sources, ...) copy
// none.

func (k *Kong) CopyKey(from algorithms.Limiter, id int32) { *k.st.At(id) = *sameAs(k, from).st.At(id) }
func (g *GoLimiter) CopyKey(from algorithms.Limiter, id int32) {
	*g.st.At(id) = *sameAs(g, from).st.At(id)
}
func (g *Guava) CopyKey(from algorithms.Limiter, id int32) { *g.st.At(id) = *sameAs(g, from).st.At(id) }
func (u *Ulule) CopyKey(from algorithms.Limiter, id int32) { *u.st.At(id) = *sameAs(u, from).st.At(id) }
func (e *Envoy) CopyKey(from algorithms.Limiter, id int32) { *e.st.At(id) = *sameAs(e, from).st.At(id) }
func (h *HTTPRate) CopyKey(from algorithms.Limiter, id int32) {
	*h.st.At(id) = *sameAs(h, from).st.At(id)
}
func (h *HAProxy) CopyKey(from algorithms.Limiter, id int32) {
	*h.st.At(id) = *sameAs(h, from).st.At(id)
}
func (r *RackAttack) CopyKey(from algorithms.Limiter, id int32) {
	*r.st.At(id) = *sameAs(r, from).st.At(id)
}
func (f *Fiber) CopyKey(from algorithms.Limiter, id int32) { *f.st.At(id) = *sameAs(f, from).st.At(id) }
func (g *Gubernator) CopyKey(from algorithms.Limiter, id int32) {
	*g.st.At(id) = *sameAs(g, from).st.At(id)
}
func (e *ExpressRateLimit) CopyKey(from algorithms.Limiter, id int32) {
	*e.st.At(id) = *sameAs(e, from).st.At(id)
}

func (f *FastifyRateLimit) CopyKey(from algorithms.Limiter, id int32) {
	*f.st.At(id) = *sameAs(f, from).st.At(id)
}
func (l *Laravel) CopyKey(from algorithms.Limiter, id int32) {
	*l.st.At(id) = *sameAs(l, from).st.At(id)
}
func (d *Dotnet) CopyKey(from algorithms.Limiter, id int32) {
	*d.st.At(id) = *sameAs(d, from).st.At(id)
}
func (r *RateLimiterFlexible) CopyKey(from algorithms.Limiter, id int32) {
	*r.st.At(id) = *sameAs(r, from).st.At(id)
}
func (g *AWSAPIGateway) CopyKey(from algorithms.Limiter, id int32) {
	g.tk.CopyKey(sameAs(g, from).tk, id)
}

// CopyKey makes key id's record from's: doubles, whole milli-requests or
// the exact bucket, as the deviations keep it.
func (q *LuaRestyReq) CopyKey(from algorithms.Limiter, id int32) {
	f := sameAs(q, from)
	switch {
	case q.exact != nil:
		q.exact.CopyKey(f.exact, id)
	case q.OnAt(luaReqFloatDev):
		*q.fl.At(id) = *f.fl.At(id)
	default:
		*q.in.At(id) = *f.in.At(id)
	}
}

func (j *Juju) CopyKey(from algorithms.Limiter, id int32) {
	f := sameAs(j, from)
	*j.st.At(id) = *f.st.At(id)
	j.cont.CopyKey(f.cont, id)
}

func (rc *RedisCell) CopyKey(from algorithms.Limiter, id int32) {
	rc.g.CopyKey(sameAs(rc, from).g, id)
}

func (th *Throttled) CopyKey(from algorithms.Limiter, id int32) {
	th.core().CopyKey(sameAs(th, from).core(), id)
}

func (rr *RedisRate) CopyKey(from algorithms.Limiter, id int32) {
	f := sameAs(rr, from)
	if rr.OnAt(redisRateFloat) {
		*rr.st.At(id) = *f.st.At(id)
	} else {
		rr.exact.CopyKey(f.exact, id)
	}
}

func (el *EnvoyLocal) CopyKey(from algorithms.Limiter, id int32) {
	f := sameAs(el, from)
	if el.OnAt(envoyLocalTimerFill) {
		*el.st.At(id) = *f.st.At(id)
	} else {
		el.tk.CopyKey(f.tk, id)
	}
}

func (sg *SpringGateway) CopyKey(from algorithms.Limiter, id int32) {
	f := sameAs(sg, from)
	if sg.clockOn() {
		*sg.st.At(id) = *f.st.At(id)
	} else {
		sg.exact.CopyKey(f.exact, id)
	}
}

func (v *Vsthrottle) CopyKey(from algorithms.Limiter, id int32) {
	f := sameAs(v, from)
	if v.twin() {
		v.exact.CopyKey(f.exact, id)
	}
	if !v.twin() || v.ban != 0 {
		*v.st.At(id) = *f.st.At(id)
	}
}

// CopyKey makes key id's excess, or with the drain's truncation off its
// exact bucket, from's.
func (ng *Nginx) CopyKey(from algorithms.Limiter, id int32) {
	f := sameAs(ng, from)
	if ng.exact != nil {
		ng.exact.CopyKey(f.exact, id)
	} else {
		*ng.st.At(id) = *f.st.At(id)
	}
}

// sameAs returns from as a product of p's type and name (its spec, with
// its deviations); it panics otherwise.
func sameAs[P interface {
	*T
	algorithms.Limiter
}, T any](p P, from algorithms.Limiter) P {
	f, ok := from.(P)
	if !ok || f.Name() != p.Name() {
		panic(fmt.Sprintf("products: a key's state copied into %s from %s, not built alike", p.Name(), from.Name()))
	}
	return f
}
