package redis

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	goredis "github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"

	"ratebench/algorithms"
	"ratebench/algorithms/products"
	"ratebench/live"
	"ratebench/summary"
)

// MinTTL is the least lifetime given to a textbook script's key
// (PEXPIRE). Expiry is garbage collection only: no script reads a key's
// TTL, and every script ignores state that the trace's time has left
// behind. But TTLs run on the server's clock, not the trace's, so a key
// must not expire during the replay: a key's TTL is the trace time its
// state matters (W for the log and the fixed window, 2W for the counters,
// the time to refill for the token bucket) or MinTTL if longer. A replay
// that lasts longer is noted.
const MinTTL = 24 * time.Hour

// MemorySample is the most keys MEMORY USAGE is asked about.
const MemorySample = 2000

// session is one replay's redis-server (its own, or a running one's) and
// a client pool to it, running one algorithm's script per request.
type session struct {
	srv    *Server // nil for a server given by address
	addr   string
	client *goredis.Client
	alg    algorithm
	op     op
	rule   algorithms.Rule
	prefix string   // the replay's namespace
	keys   []string // each key id's Redis key
	base   int64    // subtracted from the textbook scripts' times
	zset   int64    // the server's zset-max-listpack-entries
	// members sums the lengths of the sorted-set members added (log:
	// the admitted requests'; tyk: every request's).
	members atomic.Int64
}

// start returns the Target.Start of the target for product.
func start(product string) func(ctx context.Context, r algorithms.Rule, tr *live.Trace, o live.Options) (live.Session, error) {
	return func(ctx context.Context, r algorithms.Rule, tr *live.Trace, o live.Options) (live.Session, error) {
		a, err := algorithmOf(product, r, o)
		if err != nil {
			return nil, err
		}
		base, err := checkTrace(tr, r, a)
		if err != nil {
			return nil, fmt.Errorf("live redis: %w", err)
		}
		op, err := newAlgorithmOp(a, r)
		if err != nil {
			return nil, fmt.Errorf("live redis: %w", err)
		}
		s := &session{alg: a, op: op, rule: r, base: base, addr: o.Addr}
		if s.addr == "" {
			if s.srv, err = Start(ctx, o.Binary); err != nil {
				return nil, err
			}
			s.addr = s.srv.Addr
			o.Logf("started redis-server at %s", s.addr)
		}
		if err := s.connect(ctx, o.Clients, tr.Keys); err != nil {
			s.Close()
			return nil, err
		}
		return s, nil
	}
}

// checkTrace refuses a trace Redis cannot replay exactly (a negative
// time, a span of 2^52 ns or more from the start of its first window:
// Lua numbers are doubles) and one with costs for a script that takes
// none, and returns the times' base: the start of the first window.
func checkTrace(tr *live.Trace, r algorithms.Rule, a algorithm) (int64, error) {
	first, last := tr.T[0], tr.T[len(tr.T)-1]
	if first < 0 {
		return 0, fmt.Errorf("the trace has a negative time (%d ns)", first)
	}
	base := first / r.W * r.W
	if last-base >= MaxExact {
		return 0, fmt.Errorf("the trace spans %v from the start of its first window: Redis replay needs less than 2^52 ns (%v), as Lua numbers are doubles",
			time.Duration(last-base), time.Duration(MaxExact))
	}
	if a.costs || tr.Cost == nil {
		return base, nil
	}
	n, at := 0, -1
	for i, c := range tr.Cost {
		if c != 1 {
			if n++; at < 0 {
				at = i
			}
		}
	}
	if n == 0 {
		return base, nil
	}
	what := "the Redis log supports cost 1 only"
	if a.name == "express-rate-limit:store=redis" {
		what = "rate-limit-redis counts one hit per request"
	}
	return 0, fmt.Errorf("%s, and %d requests have another cost (the first, request %d, costs %d)", what, n, at+1, tr.Cost[at])
}

// newAlgorithmOp returns a's round trip to Redis under rule r.
func newAlgorithmOp(a algorithm, r algorithms.Rule) (op, error) {
	model, err := algorithms.New(a.model, r)
	if err != nil {
		return nil, err
	}
	if !a.product {
		return newOp(a.name, model, r, max(int64(MinTTL/time.Millisecond), 1))
	}
	o, err := newProductOp(a.name, model, r)
	if lo, ok := o.(liveOp); ok {
		lo.setRule(r)
	}
	return o, err
}

// newClient is a client pool to addr for n clients.
func newClient(addr string, n int) *goredis.Client {
	return goredis.NewClient(&goredis.Options{
		Addr:                     addr,
		PoolSize:                 max(n, 1) + 2,
		DisableIdentity:          true,
		Protocol:                 2,
		MaintNotificationsConfig: &maintnotifications.Config{Mode: maintnotifications.ModeDisabled},
	})
}

// connect opens the client pool, reads the server's sorted-set threshold,
// loads the scripts and names the replay's keys.
func (s *session) connect(ctx context.Context, clients, keys int) error {
	s.client = newClient(s.addr, clients)
	info, err := readServer(ctx, s.client)
	if err != nil {
		return fmt.Errorf("redis at %s: %w", s.addr, err)
	}
	s.zset = info.zsetMaxListpack
	for _, sc := range []*goredis.Script{ScriptLog, ScriptCounter, ScriptFixed, ScriptToken, ScriptUpstashSliding, ScriptUpstashFixed, ScriptRedisRate, ScriptSpringGateway, ScriptTyk, ScriptRateLimitRedis, ScriptLimitsMovingWindow, ScriptRateLimiterFlexible} {
		if err := sc.Load(ctx, s.client).Err(); err != nil {
			return fmt.Errorf("redis at %s: loading a script: %w", s.addr, err)
		}
	}
	var id [4]byte
	rand.Read(id[:])
	s.prefix = "rb:" + hex.EncodeToString(id[:]) + ":"
	s.keys = make([]string, keys)
	for i := range s.keys {
		s.keys[i] = s.prefix + live.KeyName(int32(i))
	}
	return nil
}

// serverInfo is what the replay reads of the server.
type serverInfo struct {
	version         string
	zsetMaxListpack int64
}

// readServer reads the server's version and sorted-set encoding threshold.
func readServer(ctx context.Context, c *goredis.Client) (serverInfo, error) {
	var s serverInfo
	if err := c.Ping(ctx).Err(); err != nil {
		return s, err
	}
	info, err := c.Info(ctx, "server").Result()
	if err != nil {
		return s, err
	}
	for _, line := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "redis_version:"); ok {
			s.version = v
		}
	}
	for _, name := range []string{"zset-max-listpack-entries", "zset-max-ziplist-entries"} {
		m, err := c.ConfigGet(ctx, name).Result()
		if err == nil && m[name] != "" {
			s.zsetMaxListpack, _ = strconv.ParseInt(m[name], 10, 64)
			break
		}
	}
	return s, nil
}

// Decide runs the script for q: on the trace's time, or for a script on
// Redis's clock, on the time it read, which orders it among the others.
func (s *session) Decide(ctx context.Context, q live.Request) (live.Decision, error) {
	if lo, ok := s.op.(liveOp); ok {
		return lo.allow(ctx, s.client, s.keys[q.ID], q.Cost)
	}
	j := job{seq: int64(q.Index), t: q.T - s.base, abs: q.T, cost: q.Cost, key: s.keys[q.ID]}
	admit, err := s.op.do(ctx, s.client, &j)
	if err != nil {
		return live.Decision{}, err
	}
	switch {
	case s.alg.name == "log" && admit:
		s.members.Add(int64(len(logMember(&j))))
	case s.alg.name == "tyk": // every request: ZADD key now now
		s.members.Add(int64(len(strconv.FormatInt(j.abs, 10))))
	}
	return live.Decision{Admit: admit, At: q.T}, nil
}

// Settle has nothing to add: every answer is whole.
func (s *session) Settle(context.Context, []live.Decision) error { return nil }

// Analyze measures the replay's keys beside the model's memory, says on
// which server it ran when it was given one, and notes a script that
// disagrees with its model with one client, a product's key that had to
// outlive the lifetime it is given, and a replay longer than MinTTL.
func (s *session) Analyze(ctx context.Context, a *live.Analysis) error {
	res := a.Result
	m, err := measureMemory(ctx, s.client, s.prefix, MemorySample, s.alg.name == "log" || s.alg.name == "tyk")
	if err != nil {
		return fmt.Errorf("measuring memory: %w", err)
	}
	m.KeysPerClient = s.op.keysPerClient()
	m.BytesPerClient = m.BytesPerKey * float64(m.KeysPerClient)
	m.ZsetMaxListpackEntries = s.zset
	modelMemory(&m, a.Limiter, a.Trace.Keys)
	switch {
	case s.alg.name == "log" && res.Admitted > 0:
		m.MemberBytes = float64(s.members.Load()) / float64(res.Admitted)
	case s.alg.name == "tyk":
		m.MemberBytes = float64(s.members.Load()) / float64(res.Trace.Requests)
	}
	res.Memory = &m
	if s.srv == nil {
		res.Setup = append(res.Setup, "server="+s.addr)
	}
	if (s.alg.atomic || s.alg.product) && res.Clients == 1 && res.Model.Disagree() > 0 {
		res.Notes = append(res.Notes, fmt.Sprintf("%s with 1 client disagrees with the in-process %s on %d decisions: a bug (with one client they must agree exactly)",
			s.alg.name, s.alg.model, res.Model.Disagree()))
	}
	if ttl, reads := productTTL(s.alg.name, s.rule); ttl > 0 {
		life := keyLife{w: s.rule.W, reads: int64(reads)}
		var t0 time.Time
		for i, t := range a.Trace.T {
			life.see(t, t0.Add(time.Duration(a.Sent[i])))
		}
		if life.max > ttl {
			res.Notes = append(res.Notes, fmt.Sprintf("a key had to live %v on the server's clock, longer than the lifetime %v the product gives it: a window's count may have expired before its end",
				life.max.Round(time.Millisecond), ttl))
		}
	}
	if d := time.Duration(a.DurationNS); d > MinTTL {
		res.Notes = append(res.Notes, fmt.Sprintf("the replay took %v, longer than the least TTL %v: keys may have expired mid-replay", d.Round(time.Second), MinTTL))
	}
	return nil
}

// modelMemory fills in the analytic model's figures from the in-process
// limiter at the end of the trace.
func modelMemory(m *summary.LiveMemory, model algorithms.Limiter, keys int) {
	if y, ok := model.(*products.Tyk); ok {
		// Tyk's sorted set: 8 bytes per entry and the count, over the
		// clients whose set is not empty.
		var bytes, clients int64
		for id := range int32(keys) {
			if n := y.Entries(id); n > 0 {
				m.ModelEntries += int64(n)
				bytes += y.Bytes(id)
				clients++
			}
		}
		m.ModelBytesPerEntry = 8
		if clients > 0 {
			m.ModelBytesPerClient = float64(bytes) / float64(clients)
		}
		return
	}
	log, ok := model.(*algorithms.Log)
	if !ok {
		m.ModelBytesPerClient = float64(model.Bytes(0))
		return
	}
	// The log's analytic size is 8 bytes per entry (cost 1) plus an 8-byte
	// running sum; Redis deletes an empty sorted set, so compare with the
	// clients whose log is not empty.
	var bytes, clients int64
	for id := range int32(keys) {
		if n := log.Sum(id); n > 0 {
			m.ModelEntries += n
			bytes += log.Bytes(id)
			clients++
		}
	}
	m.ModelBytesPerEntry = 8
	if clients > 0 {
		m.ModelBytesPerClient = float64(bytes) / float64(clients)
	}
}

// Close deletes the replay's keys from a server given by address, closes
// the client pool and stops the server the session started (and removes
// its directory).
func (s *session) Close() error {
	var errs []error
	if s.client != nil {
		if s.srv == nil {
			errs = append(errs, s.unlink(context.Background()))
		}
		errs = append(errs, s.client.Close())
	}
	if s.srv != nil {
		errs = append(errs, s.srv.Stop())
	}
	return errors.Join(errs...)
}

// unlink deletes the keys of the replay's namespace.
func (s *session) unlink(ctx context.Context) error {
	iter := s.client.Scan(ctx, 0, s.prefix+"*", 1000).Iterator()
	var batch []string
	for iter.Next(ctx) {
		if batch = append(batch, iter.Val()); len(batch) == 500 {
			if err := s.client.Unlink(ctx, batch...).Err(); err != nil {
				return err
			}
			batch = batch[:0]
		}
	}
	if err := iter.Err(); err != nil {
		return err
	}
	if len(batch) > 0 {
		return s.client.Unlink(ctx, batch...).Err()
	}
	return nil
}
