package products

import (
	"fmt"
	"strings"
	"time"

	"ratebench/algorithms"
)

func init() {
	algorithms.Register(algorithms.Kind{Spec: "symfony[:policy=fixed_window|sliding_window|token_bucket]", Place: 35, About: "Symfony's RateLimiter on its InMemoryStorage (consume(cost)): fixed window anchored at the key's first hit, its end instant included (the default policy); the sliding window, the previous window's hits weighted and floored; or the token bucket refilled per whole interval; on microtime(true)'s float seconds",
		Build: func(c algorithms.Call, r algorithms.Rule) (algorithms.Limiter, error) {
			return NewSymfony(r, c.Spec, c.Arg, c.HasArg)
		}})
}

// Symfony is the Symfony RateLimiter component (symfony/rate-limiter), a
// RateLimiterFactory on an InMemoryStorage, each request
// $factory->create($key)->consume($cost)->isAccepted(), modelled from
// Debian's php-symfony-rate-limiter 5.4.53 (/usr/share/php/Symfony/
// Component/RateLimiter; line numbers below are its files'). Its policies
// and storage are those of symfony/rate-limiter's 5.4 branch at commit
// 9bd24ef2e0948fff4d6741798ba4c7468b75bc8d (January 2024, v5.4.35), file
// for file; Util/TimeUtil.php and RateLimiterFactory.php since read the
// interval from a whole-second timestamp (to avoid DST), which gives an
// interval of seconds the same length.
//
// The rule L/W is configured as Symfony's documentation writes "L per W":
// ['policy' => 'fixed_window' or 'sliding_window', 'limit' => L,
// 'interval' => 'W seconds'], or for the token bucket ['policy' =>
// 'token_bucket', 'limit' => L, 'rate' => ['interval' => 'W/g seconds',
// 'amount' => L/g]], the rule's rate refilled as often as whole seconds
// allow (g = GCD(L, W in seconds): 10/1m is 1 token every 6 s, 5/1s 5
// every second). Every interval becomes whole seconds
// (TimeUtil::dateIntervalToSeconds, Util/TimeUtil.php:21-26, the
// difference of two whole-second timestamps), so a window that is not
// whole seconds, or below one, is refused.
//
// # What the policies share
//
// The clock is microtime(true), called by the policies and the storage:
// the seconds since the epoch as a PHP float, sec + usec/1e6 in float64
// of whole microseconds (deviation clock, the trace's time floored to
// whole microseconds; the limiter's arithmetic with it is float64,
// deviation float: with float off it is exact, on the clock's integers).
// InMemoryStorage (Storage/InMemoryStorage.php:23-60) keeps each key's
// state serialized with expireAt = microtime(true) + the state's
// getExpirationTime(), set at each save, and drops it at the first fetch
// with expireAt <= microtime(true): the next request starts afresh. A
// state is saved only by a request that changes it; a refused request
// saves nothing (but see the fixed window). A cost above the limit (the
// burst) is refused: reserve throws InvalidArgumentException before
// reading the state (FixedWindowLimiter.php:52-54,
// TokenBucketLimiter.php:56-58), which consume does not catch; the
// sliding window refuses it as any request that does not fit.
//
// # fixed_window (the default; twin fixed)
//
// Window (Policy/Window.php) holds timer, the microtime of the request
// that began it, and hitCount. FixedWindowLimiter::reserve
// (FixedWindowLimiter.php:50-88), through consume (reserve($tokens, 0),
// lines 93-100):
//
//   - a key with no state gets new Window(timer = now, hitCount 0);
//   - available = limit if now - timer > interval, else limit - hitCount
//     (Window.php:68-76);
//   - available >= cost: admitted; add restarts the window at now (timer
//     = now, hitCount = 0) if now - timer > interval, then adds the cost
//     (Window.php:51-61; FixedWindowLimiter.php:66-69); saved with
//     expireAt = now + interval (getExpirationTime, Window.php:46-49);
//   - otherwise refused, with waitDuration = (int) ceil(timer +
//     interval - now) (Window.php:78-85; FixedWindowLimiter.php:71-76):
//     if it is above 0 (maxTime), MaxWaitDurationExceededException,
//     nothing saved; if it is 0, at the window's very last instant, the
//     refused request is added and saved all the same
//     (FixedWindowLimiter.php:78-82).
//
// So the window is anchored at the first request after the previous one
// ended (deviation anchor; off: the epoch's multiples of W) and holds its
// end instant, now - timer = W (deviation closed; off: it ends before).
// The storage drops the key once expireAt <= now: only at that end
// instant does it matter, when every save of the window was at its first
// instant (expireAt = timer + W): the key then starts afresh there (part
// of closed). A request refused at that end instant is counted (deviation
// counts-refused): with cost 1 that changes nothing (the window is full,
// and ends after that instant), a costly one uses up the room of a
// cheaper one at the same instant.
//
// # sliding_window (twin counter)
//
// SlidingWindow (Policy/SlidingWindow.php) holds windowEndAt, hitCount
// and hitCountForLastWindow. SlidingWindowLimiter::consume
// (SlidingWindowLimiter.php:62-87):
//
//   - a key with no state gets windowEndAt = now + interval, both counts 0
//     (SlidingWindow.php:46-54);
//   - a state with now > windowEndAt (isExpired, lines 82-85) is replaced:
//     if now < windowEndAt + interval, by the next window, ending then,
//     whose previous count is the old hitCount; else by a new window
//     ending at now + interval (createFromPreviousWindow, lines 56-67);
//   - hitCount = (int) floor(hitCountForLastWindow * (1 - min((now -
//     (windowEndAt - interval)) / interval, 1)) + hitCount) (getHitCount,
//     lines 95-101), refused iff limit - hitCount < cost, nothing saved
//     (the replacement of an expired state included);
//   - admitted: the cost added, saved with expireAt = now + (int)
//     (windowEndAt + interval - now) (getExpirationTime, lines 77-80).
//
// So its windows are anchored at the key's first request, and again at
// the first after a gap of a window (deviation anchor; off: the epoch's);
// a window holds its end instant (deviation closed: a request at
// windowEndAt counts in the window ending there, where the previous
// count's weight is 0); the weighted previous count is floored before the
// cost is added (deviation floor: admitted iff floor(prev*(W-e)/W) + curr
// + cost <= L, with cost 1 iff the estimate is below L); and the storage
// drops the key at now + the whole seconds of windowEndAt + W - now, up
// to a second before the previous window's hits stop counting (deviation
// expiry). The weight is float64 (deviation float).
//
// # token_bucket (twin token)
//
// TokenBucket (Policy/TokenBucket.php) holds tokens and timer; Rate
// (Policy/Rate.php) refills amount tokens per interval.
// TokenBucketLimiter::reserve (TokenBucketLimiter.php:54-99):
//
//   - a key with no state gets tokens = limit, timer = now
//     (TokenBucket.php:47-57);
//   - getAvailableTokens (lines 79-89): elapsed = max(0, now - timer),
//     cycles = floor(elapsed / interval)
//     (Rate::calculateNewTokensDuringInterval, Rate.php:95-100); timer +=
//     cycles * interval
//     (calculateRefillInterval, lines 107-112); available = min(limit,
//     tokens + cycles * amount);
//   - available >= cost: admitted, tokens = available - cost, saved with
//     expireAt = now + interval * ceil(limit / amount)
//     (getExpirationTime, TokenBucket.php:91-94, Rate.php:75-80: when the
//     bucket is full again); otherwise the wait
//     interval * ceil((cost - available)/amount) is at least a second,
//     above maxTime 0: refused, nothing saved.
//
// So it refills in whole intervals, phased by the key's first request,
// and again by the first request after the storage dropped the key, full
// (deviation interval; off: the bucket refills continuously at L/W and
// the expiry changes nothing). The timer is a float64 sum (deviation
// float, which shows only with interval).
//
// Every deviation off, each policy decides as its twin. Only the fixed
// window counts a refused request (CountsEvery, with counts-refused on).
// The clock shows only where a window starts at a request (anchor) or
// holds its end (closed), or through the token bucket's refills: the
// epoch's windows of whole seconds are the same on whole microseconds.
//
// What changes no decision, and is left out: the lock (NoLock without a
// LockFactory; one process here), the serialization of the states, the
// RateLimit's headers and retry-after.
//
// The live target symfony (package live/php) runs the real component
// under Debian's php-cli, microtime the trace's, beside this model.
//
// Memory: fixed window timer, hitCount and the storage's expireAt, 24
// bytes per key; sliding window windowEndAt, the two counts and
// expireAt, 32 bytes; token bucket timer, tokens and expireAt, 24 bytes.
type Symfony struct {
	algorithms.DeviationSet
	rule   algorithms.Rule
	policy symfonyPolicy
	sec    int64 // the interval, W in whole seconds
	amount int64 // token_bucket: tokens per refill
	every  int64 // token_bucket: seconds per refill

	// the deviations' indices in the list, -1 where the policy has none
	iAnchor, iClosed, iCounts, iFloor, iExpiry, iInterval, iClock, iFloat int

	core symfonyCore // the state on the deviations' clock: exact (ns) or float64 seconds
	tok  algorithms.PerKey[algorithms.TokenState]
}

type symfonyPolicy int

const (
	symfonyFixed symfonyPolicy = iota
	symfonySliding
	symfonyToken
)

var symfonyPolicies = []string{"fixed_window", "sliding_window", "token_bucket"}

// NewSymfony returns Symfony's RateLimiter for rule r; arg is what follows
// "symfony:" in spec ("policy=sliding_window").
func NewSymfony(r algorithms.Rule, spec, arg string, hasArg bool) (*Symfony, error) {
	p := &Symfony{rule: r, iAnchor: -1, iClosed: -1, iCounts: -1, iFloor: -1, iExpiry: -1, iInterval: -1}
	if hasArg {
		v, ok := strings.CutPrefix(strings.TrimSpace(arg), "policy=")
		i := -1
		for j, name := range symfonyPolicies {
			if ok && v == name {
				i = j
			}
		}
		if i < 0 {
			return nil, fmt.Errorf("algorithm %q: want symfony[:policy=fixed_window|sliding_window|token_bucket]", spec)
		}
		p.policy = symfonyPolicy(i)
	}
	sec := int64(time.Second)
	if r.W%sec != 0 || r.W < sec {
		return nil, fmt.Errorf("algorithm %q: Symfony's intervals are whole seconds (TimeUtil::dateIntervalToSeconds), at least one, not %s: give a window of whole seconds", spec, algorithms.FormatWindow(r.W))
	}
	p.sec = r.W / sec
	g := algorithms.GCD(r.L, p.sec)
	p.amount, p.every = r.L/g, p.sec/g
	var devs []algorithms.Deviation
	add := func(i *int, d algorithms.Deviation) { *i = len(devs); devs = append(devs, d) }
	switch p.policy {
	case symfonyFixed:
		add(&p.iAnchor, algorithms.Deviation{Name: "anchor", About: "starts a window at the first request after the previous one ended (timer = microtime), not at the epoch's multiples of W"})
		add(&p.iClosed, algorithms.Deviation{Name: "closed", About: "holds the window's end instant (ended only once now - timer > W), unless every save of the window was at its first instant, when the storage's expiry drops it there"})
		add(&p.iCounts, algorithms.Deviation{Name: "counts-refused", About: "counts a request refused at the window's end instant (its wait, ceil(timer + W - now), is 0)"})
	case symfonySliding:
		add(&p.iAnchor, algorithms.Deviation{Name: "anchor", About: "starts its windows at the key's first request, and again at the first after a window with no request, not at the epoch's multiples of W"})
		add(&p.iClosed, algorithms.Deviation{Name: "closed", About: "holds the window's end instant (isExpired: now > windowEndAt), where the previous count weighs 0"})
		add(&p.iFloor, algorithms.Deviation{Name: "floor", About: "floors the weighted count before adding the cost: admitted iff floor(prev*(W-e)/W + curr) + cost <= L"})
		add(&p.iExpiry, algorithms.Deviation{Name: "expiry", About: "drops the key at now + (int)(windowEndAt + W - now), the whole seconds: up to a second before the previous window's hits stop counting"})
	case symfonyToken:
		add(&p.iInterval, algorithms.Deviation{Name: "interval", About: "refills amount tokens per whole interval from the key's first request, phased again when the storage drops the key (when it would be full again)"})
	}
	add(&p.iClock, algorithms.Deviation{Name: "clock", About: "decides on microtime(true), whole microseconds"})
	add(&p.iFloat, algorithms.Deviation{Name: "float", About: "keeps the times as microtime's float64 seconds and computes in float64"})
	p.SetDeviations(devs...)
	return p, nil
}

func (p *Symfony) Name() string {
	if p.policy == symfonyFixed {
		return "symfony" + p.Suffix()
	}
	return "symfony:policy=" + symfonyPolicies[p.policy] + p.Suffix()
}

func (p *Symfony) Twin() string {
	switch p.policy {
	case symfonySliding:
		return "counter"
	case symfonyToken:
		return algorithms.BucketSpec("token", p.rule.L, p.rule)
	}
	return "fixed"
}

// Refill returns the token bucket's rate: amount tokens every interval
// seconds.
func (p *Symfony) Refill() (amount, seconds int64) { return p.amount, p.every }

// Policy names the policy, as the factory's configuration does.
func (p *Symfony) Policy() string { return symfonyPolicies[p.policy] }

func (p *Symfony) on(i int) bool { return i >= 0 && p.OnAt(i) }

// continuous tells whether the token bucket refills continuously (interval
// off).
func (p *Symfony) continuous() bool { return p.policy == symfonyToken && !p.on(p.iInterval) }

// engine returns the core for the deviations as they are now, made on the
// first call (deviations are turned off before the first Grow).
func (p *Symfony) engine() symfonyCore {
	if p.core == nil {
		if p.on(p.iFloat) {
			p.core = newSymfonyFloat(p)
		} else {
			p.core = newSymfonyExact(p)
		}
	}
	return p.core
}

func (p *Symfony) Grow(n int) {
	if p.continuous() {
		p.tok.Grow(n)
		return
	}
	p.engine().grow(n)
}

func (p *Symfony) Place(b *algorithms.Block) {
	if p.continuous() {
		p.tok.Place(b)
		return
	}
	p.engine().place(b)
}

func (p *Symfony) Bytes(int32) int64 {
	if p.policy == symfonySliding {
		return 32
	}
	return 24
}

func (*Symfony) FixedSize() bool          { return true }
func (p *Symfony) CountsRejected() bool   { return p.policy != symfonyToken }
func (p *Symfony) CountsEvery() bool      { return p.on(p.iCounts) }
func (p *Symfony) Warm(id int32) uint64   { return p.engineOrTok(id) }
func (p *Symfony) tick() int64            { return symfonyTick(p.on(p.iClock)) }
func (p *Symfony) clockNow(t int64) int64 { return algorithms.FloorDiv(t, p.tick()) * p.tick() }

func (p *Symfony) engineOrTok(id int32) uint64 {
	if p.continuous() {
		return p.tok.At(id).X.Lo
	}
	return p.engine().warm(id)
}

// symfonyTick is the clock's tick in ns: a microsecond, or a nanosecond
// with the deviation clock off.
func symfonyTick(clock bool) int64 {
	if clock {
		return int64(time.Microsecond)
	}
	return 1
}

func (p *Symfony) Decide(id int32, t, cost int64) bool {
	now := p.clockNow(t)
	if p.continuous() {
		s := p.tok.At(id)
		s.Refill(now, p.rule)
		return s.Fits(p.rule.L, cost, p.rule)
	}
	admit, _ := p.engine().decide(id, now, cost)
	return admit
}

// Record applies the request as the component does when it saves it: with
// counts-refused on (every request recorded) only what it saves, the
// requests it admits and those refused at a fixed window's end instant.
func (p *Symfony) Record(id int32, t, cost int64) {
	now := p.clockNow(t)
	if p.continuous() {
		s := p.tok.At(id)
		s.Refill(now, p.rule)
		s.Take(cost, p.rule)
		return
	}
	e := p.engine()
	if p.CountsEvery() {
		if _, counted := e.decide(id, now, cost); !counted {
			return
		}
	}
	e.record(id, now, cost)
}

// Idle: the next request of the key decides as a new key's, from t on.
func (p *Symfony) Idle(id int32, t int64) bool {
	now := p.clockNow(t)
	if p.continuous() {
		s := p.tok.At(id)
		s.Refill(now, p.rule)
		return s.X == algorithms.U128{}
	}
	return p.engine().idle(id, now)
}

func (p *Symfony) Release(id int32) {
	if p.continuous() {
		*p.tok.At(id) = algorithms.TokenState{}
		return
	}
	p.engine().release(id)
}
