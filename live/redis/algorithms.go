package redis

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"ratebench/algorithms"
	"ratebench/algorithms/products"
)

// Algorithms are the textbook algorithms run as scripts of ratebench's,
// in the order docs list them. token takes a capacity as in-process:
// token:B=N.
var Algorithms = []string{"log", "counter", "counter-nonatomic", "fixed", "token"}

// Products are the products' Redis code run here, each set beside the
// model of the same name; those that read Redis's clock (LiveProducts)
// are targets of their own.
var Products = []string{"upstash", "upstash-fixed", "envoy", "kong", "spring-gateway", "tyk", FlaskMovingRedis}

// LiveProducts are the products whose scripts read Redis's own clock,
// each the target redis:NAME, replayed in real time.
var LiveProducts = []string{"redis_rate", "express-rate-limit:store=redis", "rate-limiter-flexible:store=redis"}

// FlaskMovingRedis is the spec of Flask-Limiter's moving window on Redis.
const FlaskMovingRedis = "flask-limiter:strategy=moving:storage=redis"

// algorithm is one script (or round trips) to run.
type algorithm struct {
	name   string // as the variant names it: log, counter-nonatomic, token:B=20
	model  string // the in-process spec it is set beside
	atomic bool   // one atomic round trip per decision
	// product: a product's own Redis code (see products.go); live: it
	// reads Redis's clock, and is replayed in real time.
	product, live bool
	// costs: it is sent each request's cost (the others refuse a trace
	// with costs).
	costs bool
}

// parseAlgorithm checks spec, an algorithm or product named as its model
// is, against rule r and returns what runs it.
func parseAlgorithm(spec string, r algorithms.Rule) (algorithm, error) {
	spec = strings.TrimSpace(spec)
	if spec == "counter-nonatomic" {
		return algorithm{name: spec, model: "counter", costs: true}, nil
	}
	l, err := algorithms.New(spec, r)
	if err != nil {
		return algorithm{}, err
	}
	name := l.Name()
	switch {
	case name == "log":
		return algorithm{name: name, model: name, atomic: true}, nil
	case name == "counter" || name == "fixed" || strings.HasPrefix(name, "token"):
		return algorithm{name: name, model: name, atomic: true, costs: true}, nil
	}
	if a, ok := productAlgorithm(l); ok {
		return a, nil
	}
	return algorithm{}, fmt.Errorf("algorithm %q has no Redis implementation (available: %s, %s, %s)", spec,
		strings.Join(Algorithms, ", ")+"[:B=N]", strings.Join(Products, ", "), "redis_rate[:burst=N], express-rate-limit:store=redis, rate-limiter-flexible:store=redis[:blockDuration=D]")
}

// productAlgorithm returns the algorithm for a product's model l, or false
// when l is no product with a Redis implementation here.
func productAlgorithm(l algorithms.Limiter) (algorithm, bool) {
	name := l.Name()
	switch l.(type) {
	case *products.Upstash:
		if name == "upstash" || name == "upstash-fixed" {
			return algorithm{name: name, model: name, atomic: true, product: true, costs: true}, true
		}
	case *products.Envoy:
		if name == "envoy" {
			return algorithm{name: name, model: name, product: true, costs: true}, true
		}
	case *products.Kong:
		if name == "kong" {
			return algorithm{name: name, model: name, product: true, costs: true}, true
		}
	case *products.SpringGateway:
		if name == "spring-gateway" {
			return algorithm{name: name, model: name, atomic: true, product: true, costs: true}, true
		}
	case *products.ExpressRateLimit:
		if name == "express-rate-limit:store=redis" {
			return algorithm{name: name, model: name, atomic: true, product: true, live: true}, true
		}
	case *products.RateLimiterFlexible:
		f := l.(*products.RateLimiterFlexible)
		if f.Redis() && !strings.Contains(name, ":without=") {
			return algorithm{name: name, model: name, atomic: true, product: true, live: true, costs: true}, true
		}
	case *products.Tyk:
		if name == "tyk" {
			return algorithm{name: name, model: name, atomic: true, product: true, costs: true}, true
		}
	case *products.FlaskLimiter:
		if name == FlaskMovingRedis {
			return algorithm{name: name, model: name, atomic: true, product: true, costs: true}, true
		}
	case *products.RedisRate:
		if name == "redis_rate" || name == "redis_rate:burst="+strconv.FormatInt(l.(*products.RedisRate).Burst(), 10) {
			return algorithm{name: name, model: name, atomic: true, product: true, live: true, costs: true}, true
		}
	}
	return algorithm{}, false
}

// productTTL is the shortest lifetime a product gives its keys on the
// server's clock (0: not a product replayed on trace time), and the number
// of windows a key is read in (the sliding window reads the previous one).
func productTTL(name string, r algorithms.Rule) (time.Duration, int) {
	switch name {
	case "upstash-fixed", "envoy", "kong":
		return time.Duration(r.W), 1
	case "upstash":
		return 2*time.Duration(r.W) + time.Second, 2
	case "tyk": // EXPIRE per on every request: the key must outlive each gap shorter than W
		return time.Duration(r.W), 2
	}
	return 0, 0
}

// keyLife measures the longest a product's window key has to live on the
// server's clock: from the first request of its window to the last request
// that reads it (in its window, or in the next for a key read in two), as
// the requests are handed to the clients. Windows come in time order.
type keyLife struct {
	w, reads int64
	win      [2]int64 // the current window, the one before
	start    [2]time.Time
	n        int
	max      time.Duration
}

func (l *keyLife) see(t int64, now time.Time) {
	w := t / l.w
	if l.n == 0 || w != l.win[0] {
		l.win[1], l.start[1] = l.win[0], l.start[0]
		l.win[0], l.start[0] = w, now
		l.n++
	}
	from := l.start[0]
	if l.reads == 2 && l.n > 1 && l.win[1] == w-1 {
		from = l.start[1]
	}
	l.max = max(l.max, now.Sub(from))
}
