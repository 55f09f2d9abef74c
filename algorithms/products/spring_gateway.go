package products

import (
	"fmt"
	"time"

	"ratebench/algorithms"
)

func init() {
	algorithms.Register(algorithms.Kind{Spec: "spring-gateway", Place: 16, About: "Spring Cloud Gateway's RedisRateLimiter (request_rate_limiter.lua): token bucket refilled on Redis TIME's whole seconds, replenishRate L/g tokens a second, requestedTokens W/g (W in seconds, g their gcd), burstCapacity L*W/g",
		Build: func(c algorithms.Call, r algorithms.Rule) (algorithms.Limiter, error) {
			if err := c.NoArg(); err != nil {
				return nil, err
			}
			return NewSpringGateway(r)
		}})
}

// SpringGateway is Spring Cloud Gateway's RedisRateLimiter, modelled from
// spring-cloud/spring-cloud-gateway at commit
// 5227205c743d6d2b743bedf2f58cc76c65ca7408: the Java side
// (spring-cloud-gateway-server-webflux/.../ratelimit/RedisRateLimiter.java,
// isAllowed, lines 245-290) runs the script
// META-INF/scripts/request_rate_limiter.lua with the route's
// replenishRate, burstCapacity, "" for the time and requestedTokens
// (line 265), on the keys request_rate_limiter.{route.id}.tokens and
// .timestamp (getKeys, lines 160-170).
//
// The rule L/W is configured as Spring's documentation writes a rate
// slower than one a second: replenishRate tokens a second, each request
// asking requestedTokens, the burst burstCapacity tokens. With W a whole
// number of seconds S and g = gcd(L, S): replenishRate = L/g,
// requestedTokens = S/g, burstCapacity = L*S/g, that is L requests per W
// and L at once. A request of cost c asks for c*requestedTokens, as a
// route configured for that cost would.
//
// The script (lines as in the file):
//
//   - now = tonumber(ARGV[3]) or redis.call('TIME')[1] (line 8): the Java
//     side passes "", so the time is Redis TIME's whole seconds;
//   - a missing key is a full bucket, a missing timestamp 0 (lines 14-15);
//   - filled = min(capacity, tokens + max(0, now-last)*rate) (lines 17-18),
//     allowed iff filled >= requested (line 19), the tokens left filled
//     less requested if allowed, else filled (line 20), both keys written
//     with the time, whatever the decision (lines 22-25).
//
// Every value is a whole number of tokens (Lua's numbers are doubles,
// exact below 2^53), so the bucket is the token bucket of capacity L,
// rate L/W, but refilled a second's worth at a time: the deviation clock
// (off, the exact token bucket: its twin, token). The keys' time to live,
// twice the time the bucket takes to fill (line 12), expires only a bucket
// that would be full by then, and changes no decision.
//
// Memory: the tokens and the timestamp, two Redis values, 16 bytes per
// key.
type SpringGateway struct {
	algorithms.DeviationSet
	rule                      algorithms.Rule
	rate, requested, capacity int64 // replenishRate, requestedTokens, burstCapacity
	st                        algorithms.PerKey[springState]
	exact                     *algorithms.Token // the twin, for clock off
}

// springState is one key's bucket: the tokens it lacks (capacity less the
// tokens key) and the timestamp key, in seconds. The zero value is a
// missing key: a full bucket, timestamp 0.
type springState struct {
	deficit, last int64
}

const springClock = 0

// NewSpringGateway returns Spring Cloud Gateway's RedisRateLimiter for
// rule r, or an error when no route configuration expresses r.
func NewSpringGateway(r algorithms.Rule) (*SpringGateway, error) {
	if r.W%int64(time.Second) != 0 {
		return nil, fmt.Errorf("algorithm \"spring-gateway\": replenishRate is tokens a second: give a window of whole seconds, not %s", algorithms.FormatWindow(r.W))
	}
	s := r.W / int64(time.Second)
	g := algorithms.GCD(r.L, s)
	rate, requested := r.L/g, s/g
	if rate > 1<<31-1 || requested > 1<<31-1 || rate > (1<<53)/s {
		return nil, fmt.Errorf("algorithm \"spring-gateway\": rule %s needs replenishRate %d and requestedTokens %d, beyond Java's int or the script's exact numbers", r, rate, requested)
	}
	sg := &SpringGateway{rule: r, rate: rate, requested: requested, capacity: rate * s, exact: algorithms.NewToken(r, 0)}
	sg.SetDeviations(algorithms.Deviation{Name: "clock", About: "refills on Redis TIME's whole seconds: a second's worth of tokens at a time"})
	return sg, nil
}

// Config returns the route's configuration: replenishRate, requestedTokens
// and burstCapacity.
func (sg *SpringGateway) Config() (rate, requested, capacity int64) {
	return sg.rate, sg.requested, sg.capacity
}

func (sg *SpringGateway) Name() string      { return "spring-gateway" + sg.Suffix() }
func (*SpringGateway) Twin() string         { return "token" }
func (*SpringGateway) Bytes(int32) int64    { return 16 }
func (*SpringGateway) FixedSize() bool      { return true }
func (*SpringGateway) CountsRejected() bool { return false }
func (sg *SpringGateway) clockOn() bool     { return sg.OnAt(springClock) }
func (sg *SpringGateway) Place(b *algorithms.Block) {
	if sg.clockOn() {
		sg.st.Place(b)
	} else {
		sg.exact.Place(b)
	}
}

func (sg *SpringGateway) Grow(n int) {
	if sg.clockOn() {
		sg.st.Grow(n)
	} else {
		sg.exact.Grow(n)
	}
}

// advance refills key id's bucket to t's second, as the script does
// before it decides (and writes back whatever it decides).
func (sg *SpringGateway) advance(id int32, t int64) *springState {
	s := sg.st.At(id)
	now := t / int64(time.Second) // Redis TIME's seconds; t >= 0
	if delta := now - s.last; delta > 0 && s.deficit > 0 {
		if delta > (s.deficit-1)/sg.rate { // delta*rate >= deficit: full, without a product that could overflow
			s.deficit = 0
		} else {
			s.deficit -= delta * sg.rate
		}
	}
	s.last = max(s.last, now)
	return s
}

func (sg *SpringGateway) Decide(id int32, t, cost int64) bool {
	if !sg.clockOn() {
		return sg.exact.Decide(id, t, cost)
	}
	s := sg.advance(id, t)
	want, ok := algorithms.MulOK(cost, sg.requested)
	return ok && want <= sg.capacity-s.deficit
}

func (sg *SpringGateway) Record(id int32, t, cost int64) {
	if !sg.clockOn() {
		sg.exact.Record(id, t, cost)
		return
	}
	s := sg.advance(id, t)
	want, _ := algorithms.MulOK(cost, sg.requested)
	s.deficit = algorithms.SatAdd(s.deficit, want)
}

// Idle: the bucket is full at t (what a missing key is).
func (sg *SpringGateway) Idle(id int32, t int64) bool {
	if !sg.clockOn() {
		return sg.exact.Idle(id, t)
	}
	return sg.advance(id, t).deficit == 0
}

func (sg *SpringGateway) Release(id int32) {
	if !sg.clockOn() {
		sg.exact.Release(id)
		return
	}
	*sg.st.At(id) = springState{}
}
