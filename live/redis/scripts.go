package redis

import (
	"context"
	_ "embed"
	"fmt"
	"math/bits"
	"strconv"

	goredis "github.com/redis/go-redis/v9"

	"ratebench/algorithms"
)

// MaxExact is the bound below which the scripts' integers must stay: 2^52.
// Redis runs Lua 5.1, whose numbers are IEEE doubles, exact for integers up
// to 2^53. The scripts need one bit of headroom: below 2^52 a sum of two
// values is exact and math.floor(p/q) is the exact quotient (see
// lua/common.lua). Times are therefore rebased before they reach a script:
// t' = t - base, where base is the start of the fixed window that holds the
// trace's earliest request (a multiple of W, so w(t') = w(t) - base/W and
// every decision is unchanged); the trace must then span less than 2^52 ns
// (52 days). L and W must be below 2^52 too, and for the token bucket
// B*W/gcd(L, W) as well.
const MaxExact = 1 << 52

var (
	//go:embed lua/common.lua
	luaCommon string
	//go:embed lua/log.lua
	luaLog string
	//go:embed lua/counter.lua
	luaCounter string
	//go:embed lua/fixed.lua
	luaFixed string
	//go:embed lua/token.lua
	luaToken string
)

// Scripts are the Lua scripts, each the common prelude (le, int) followed
// by the algorithm. Every script takes the request's trace time as its
// first argument, a decimal integer string (never a float), so that a
// replay is deterministic and independent of the server's clock.
var (
	ScriptLog     = goredis.NewScript(luaCommon + luaLog)
	ScriptCounter = goredis.NewScript(luaCommon + luaCounter)
	ScriptFixed   = goredis.NewScript(luaCommon + luaFixed)
	ScriptToken   = goredis.NewScript(luaCommon + luaToken)
)

// op decides one request against Redis.
type op interface {
	// do sends the request and returns Redis's decision.
	do(ctx context.Context, c *goredis.Client, r *job) (bool, error)
	// keysPerClient is the number of Redis keys a deployment keeps per
	// client: 2 for the counter (the current and the previous window), 1
	// for the others.
	keysPerClient() int
}

// job is one request on its way to Redis.
type job struct {
	seq  int64  // index in the trace
	t    int64  // rebased time, ns
	abs  int64  // the trace's time, ns (the products' clocks)
	cost int64  //
	key  string // the client's Redis key or key prefix
}

// scriptOp runs one of the atomic scripts: one round trip per decision.
type scriptOp struct {
	script *goredis.Script
	args   func(r *job) []any
	perKey int
}

func (s *scriptOp) do(ctx context.Context, c *goredis.Client, r *job) (bool, error) {
	v, err := s.script.EvalSha(ctx, c, []string{r.key}, s.args(r)...).Int64()
	if err != nil {
		return false, err
	}
	return v == 1, nil
}

func (s *scriptOp) keysPerClient() int { return s.perKey }

// ttlMillis converts a trace-time lifetime in ns to a PEXPIRE argument in
// ms, rounded up, and at least minTTL.
func ttlMillis(ns int64, minTTL int64) string {
	ms := ns / 1e6
	if ns%1e6 != 0 {
		ms++
	}
	return strconv.FormatInt(max(ms, minTTL), 10)
}

// newOp returns the Redis implementation of algorithm name (a canonical
// name: "log", "counter", "counter-nonatomic", "fixed", "token" or
// "token:B=N") for rule r. model is the in-process limiter it is compared
// with. minTTL is the least key lifetime in ms (see MinTTL).
func newOp(name string, model algorithms.Limiter, r algorithms.Rule, minTTL int64) (op, error) {
	if r.L >= MaxExact || r.W >= MaxExact {
		return nil, fmt.Errorf("rule %s: Redis replay needs L and W (in ns) below 2^52 (Lua numbers are doubles)", r)
	}
	L, W := strconv.FormatInt(r.L, 10), strconv.FormatInt(r.W, 10)
	ts := func(j *job) string { return strconv.FormatInt(j.t, 10) }
	cost := func(j *job) string { return strconv.FormatInt(j.cost, 10) }
	switch name {
	case "log":
		ttl := ttlMillis(r.W, minTTL)
		return &scriptOp{script: ScriptLog, perKey: 1, args: func(j *job) []any {
			return []any{ts(j), cost(j), L, W, logMember(j), ttl}
		}}, nil
	case "counter":
		ttl := ttlMillis(2*r.W, minTTL)
		return &scriptOp{script: ScriptCounter, perKey: 2, args: func(j *job) []any {
			return []any{ts(j), cost(j), L, W, ttl}
		}}, nil
	case "fixed":
		ttl := ttlMillis(r.W, minTTL)
		return &scriptOp{script: ScriptFixed, perKey: 1, args: func(j *job) []any {
			return []any{ts(j), cost(j), L, W, ttl}
		}}, nil
	case "counter-nonatomic":
		return &nonAtomicCounter{rule: r, counter: algorithms.NewCounter(r), ttl: ttlMillis(2*r.W, minTTL)}, nil
	}
	if tk, ok := model.(*algorithms.Token); ok {
		b := tk.Capacity()
		g := algorithms.GCD(r.L, r.W)
		wr, lr := r.W/g, r.L/g
		if hi, lo := bits.Mul64(uint64(b), uint64(wr)); hi != 0 || lo >= MaxExact {
			return nil, fmt.Errorf("%s with rule %s: Redis replay needs B*W/gcd(L,W) = %d*%d below 2^52 (Lua numbers are doubles)", name, r, b, wr)
		}
		B, Wr, Lr, minT := strconv.FormatInt(b, 10), strconv.FormatInt(wr, 10), strconv.FormatInt(lr, 10), strconv.FormatInt(minTTL, 10)
		return &scriptOp{script: ScriptToken, perKey: 1, args: func(j *job) []any {
			return []any{ts(j), cost(j), B, Wr, Lr, minT}
		}}, nil
	}
	return nil, fmt.Errorf("algorithm %q has no Redis implementation (available: log, counter, counter-nonatomic, fixed, token[:B=N])", name)
}

// logMember is the sorted-set member of a request in the log:
// "<rebased time>:<index in the trace>", unique per request.
func logMember(j *job) string {
	return strconv.FormatInt(j.t, 10) + ":" + strconv.FormatInt(j.seq, 10)
}

// nonAtomicCounter is a common Redis snippet of the sliding window counter: it reads
// both windows in one pipelined round trip (GET previous, GET current),
// decides in Go, and, if it admits, sends INCRBY and PEXPIRE in a second
// round trip. Between the two, other clients may read the same counts and
// admit too: that race is what it measures. It decides by the rule of
// counter (docs/definitions.md §5, prev*(W-e) + (curr+cost)*W <= L*W, exactly: counter's
// Admits), not by the snippet's E < L (§5.1, counter-lt), so that its
// difference from the atomic counter script is the race alone.
type nonAtomicCounter struct {
	rule    algorithms.Rule
	counter *algorithms.Counter // decides
	ttl     string
}

func (*nonAtomicCounter) keysPerClient() int { return 2 }

func (n *nonAtomicCounter) do(ctx context.Context, c *goredis.Client, r *job) (bool, error) {
	W := n.rule.W
	w := r.t / W // rebased times are never negative
	e := r.t - w*W
	ck := r.key + ":" + strconv.FormatInt(w, 10)
	pk := r.key + ":" + strconv.FormatInt(w-1, 10)
	pipe := c.Pipeline()
	pg := pipe.Get(ctx, pk)
	cg := pipe.Get(ctx, ck)
	if _, err := pipe.Exec(ctx); err != nil && err != goredis.Nil {
		return false, err
	}
	prev, err := count(pg)
	if err != nil {
		return false, err
	}
	curr, err := count(cg)
	if err != nil {
		return false, err
	}
	if !n.counter.Admits(prev, curr, e, r.cost) {
		return false, nil
	}
	pipe = c.Pipeline()
	pipe.IncrBy(ctx, ck, r.cost)
	pipe.Do(ctx, "PEXPIRE", ck, n.ttl)
	if _, err := pipe.Exec(ctx); err != nil {
		return false, err
	}
	return true, nil
}

// count reads a window count: 0 when the key does not exist.
func count(c *goredis.StringCmd) (int64, error) {
	v, err := c.Int64()
	if err == goredis.Nil {
		return 0, nil
	}
	if err == nil && v < 0 {
		err = fmt.Errorf("negative window count %d", v)
	}
	return v, err
}
