package redisreplay

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"

	"ratebench/algorithms"
	"ratebench/algorithms/products"
	"ratebench/traces"
)

// Config says what Run replays.
type Config struct {
	// Addr is host:port of the Redis server.
	Addr string
	// Rule is the rate limit.
	Rule algorithms.Rule
	// Algorithms are replayed in this order: log, counter,
	// counter-nonatomic, fixed, token or token:B=N (default all but the
	// token's B, as in the Algorithms variable). counter-nonatomic brings
	// counter with it, its baseline.
	Algorithms []string
	// Clients are the numbers of concurrent clients to replay each
	// algorithm with (default 1).
	Clients []int
	// Flush allows FLUSHDB before each pass: set it only for a server the
	// harness started (Start). Without it, each pass's keys carry their
	// own namespace and are deleted (UNLINK) after they are measured.
	Flush bool
	// MinTTL is the least lifetime given to a key (PEXPIRE), default 10
	// minutes. Expiry is garbage collection only: no script reads a key's
	// TTL, and every script ignores state that the trace's time has left
	// behind. But TTLs run on the server's clock, not the trace's, so a
	// key must not expire during the replay: a key's TTL is the trace time
	// its state matters (W for the log and the fixed window, 2W for the
	// counters, the time to refill for the token bucket) or MinTTL if
	// longer.
	MinTTL time.Duration
	// MemorySample is the most keys MEMORY USAGE is asked about per run
	// (default 2000).
	MemorySample int
	// LatencySample is the size of the latency reservoir (default
	// DefaultLatencySamples).
	LatencySample int
	// Trace names the trace in the result (Path, Format); Run fills the
	// counts.
	Trace TraceInfo
	// Log, if not nil, is told about each pass as it starts.
	Log func(format string, args ...any)
	// Speed is the factor by which a live replay (redis_rate, whose script
	// reads Redis TIME, and express-rate-limit:store=redis, whose script
	// reads Redis's clock through PTTL and PX) runs faster than the trace,
	// its rule's window divided by the same factor (default 1: the trace's
	// own pace).
	Speed int64
}

func (c Config) withDefaults() Config {
	if len(c.Algorithms) == 0 {
		c.Algorithms = slices.Clone(Algorithms)
	}
	if len(c.Clients) == 0 {
		c.Clients = []int{1}
	}
	if c.MinTTL <= 0 {
		c.MinTTL = 10 * time.Minute
	}
	if c.MemorySample <= 0 {
		c.MemorySample = 2000
	}
	if c.Speed <= 0 {
		c.Speed = 1
	}
	if c.LatencySample <= 0 {
		c.LatencySample = DefaultLatencySamples
	}
	return c
}

// algorithm is one algorithm to replay.
type algorithm struct {
	name   string // as reported: log, counter-nonatomic, token:B=20
	model  string // the in-process spec it is compared with
	tag    string // its part of the Redis key namespace
	atomic bool
	// product: a product's own Redis code (see Products); live: it reads
	// Redis TIME and is replayed at the trace's pace (livePass).
	product, live bool
}

// ParseAlgorithms checks a list of algorithm names against rule r and
// returns their canonical names, counter added before counter-nonatomic
// when missing (the race is measured against it), duplicates removed.
func ParseAlgorithms(list []string, r algorithms.Rule) ([]string, error) {
	algs, _, err := parseAlgorithms(list, r)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, a := range algs {
		out = append(out, a.name)
	}
	return out, nil
}

func parseAlgorithms(list []string, r algorithms.Rule) ([]algorithm, []string, error) {
	var out []algorithm
	var notes []string
	seen := map[string]bool{}
	add := func(a algorithm) {
		if !seen[a.name] {
			seen[a.name] = true
			out = append(out, a)
		}
	}
	hasCounter := false
	for _, s := range list {
		s = strings.TrimSpace(s)
		if s == "counter" {
			hasCounter = true
		}
	}
	for _, s := range list {
		s = strings.TrimSpace(s)
		switch {
		case s == "":
			continue
		case s == "counter-nonatomic":
			if !hasCounter {
				hasCounter = true
				add(algorithm{name: "counter", model: "counter", tag: "c", atomic: true})
				notes = append(notes, "counter was added: the non-atomic counter's race is measured against it")
			}
			add(algorithm{name: s, model: "counter", tag: "n"})
			continue
		}
		l, err := algorithms.New(s, r)
		if err != nil {
			return nil, nil, err
		}
		name := l.Name()
		switch {
		case name == "log" || name == "counter" || name == "fixed":
			add(algorithm{name: name, model: name, tag: name[:1], atomic: true})
		case strings.HasPrefix(name, "token"):
			add(algorithm{name: name, model: name, tag: "t", atomic: true})
		default:
			p, ok := productAlgorithm(l)
			if !ok {
				return nil, nil, fmt.Errorf("algorithm %q has no Redis implementation (available: log, counter, counter-nonatomic, fixed, token[:B=N], upstash, upstash-fixed, envoy, redis_rate[:burst=N], kong, spring-gateway, tyk, express-rate-limit:store=redis, "+FlaskMovingRedis+")", s)
			}
			add(p)
		}
	}
	if len(out) == 0 {
		return nil, nil, errors.New("no algorithm named")
	}
	return out, notes, nil
}

// Run replays the trace r against the Redis server at cfg.Addr, once per
// algorithm and number of clients, and compares every decision with the
// in-process algorithm (algorithms.New) driven in trace order with the
// same timestamps, recording what it admits (and, for a product that
// counts every request, algorithms.CountsEvery, every request).
//
// The model of a replay: the trace is read once into a spool (see spool).
// A pass then starts from an empty state (FLUSHDB, or a fresh key
// namespace) and feeds the requests, in trace order, to a channel from
// which Clients goroutines take them and send them to Redis, each waiting
// for its answer before taking the next. With one client Redis sees the
// trace's order and the atomic scripts must agree with the model on every
// decision. With several, requests overlap: an atomic script still
// decides each one alone, on a slightly different order, while the
// non-atomic counter lets concurrent requests of a key read the same
// counts before any of them writes.
//
// Times reach Redis rebased (t - base, base a multiple of W; see
// MaxExact). Every Redis key starts with "rb:<run id>:<algorithm tag><clients>:"
// followed by the trace's key (and ":<window>" for the window keys).
// The log supports cost 1 only: a trace with other costs is refused when
// it is replayed through the log.
func Run(ctx context.Context, cfg Config, r traces.Reader) (*Result, error) {
	cfg = cfg.withDefaults()
	algs, notes, err := cfg.check()
	if err != nil {
		return nil, err
	}
	ops, err := newOps(algs, cfg)
	if err != nil {
		return nil, err
	}
	sp, err := newSpool(r)
	if err != nil {
		return nil, err
	}
	defer sp.close()
	info, err := traceInfo(cfg, sp, algs)
	if err != nil {
		return nil, err
	}
	client, server, err := connect(ctx, cfg)
	if err != nil {
		return nil, err
	}
	defer client.Close()

	var id [4]byte
	rand.Read(id[:])
	rp := &replay{cfg: cfg, client: client, sp: sp, base: info.BaseNS, ns: "rb:" + hex.EncodeToString(id[:])}
	res := &Result{Schema: SchemaVersion, Trace: info, Rule: cfg.Rule.String(), Server: server, Notes: notes,
		Timing: Timing{Method: fmt.Sprintf("Latency per decision: a uniform reservoir of up to %d latencies (algorithm R, seeded), "+
			"p50 and p99 its empirical quantiles (gonum stat.Quantile, Empirical), exact when a run has no more decisions than that; max exact.", cfg.LatencySample)}}
	for i, a := range algs {
		for _, c := range cfg.Clients {
			if cfg.Log != nil {
				cfg.Log("redis: %s with %d client(s)", a.name, c)
			}
			var run Pass
			var tim PassTiming
			if a.live {
				run, tim, err = rp.livePass(ctx, a, ops[i].(liveOp), c)
			} else {
				run, tim, err = rp.pass(ctx, a, ops[i], c)
			}
			if err != nil {
				return nil, fmt.Errorf("%s with %d clients: %w", a.name, c, err)
			}
			res.Runs = append(res.Runs, run)
			res.Timing.Runs = append(res.Timing.Runs, tim)
			res.Notes = append(res.Notes, passNotes(cfg, a, c, run, tim)...)
		}
	}
	res.Races = races(res.Runs)
	if slices.ContainsFunc(cfg.Clients, func(c int) bool { return c > 1 }) {
		res.Notes = append(res.Notes, "runs with more than one client race by design: their counts vary from one replay to the next")
	}
	return res, nil
}

// check validates the rule, the algorithms and the numbers of clients,
// and returns the algorithms to replay and the notes on them.
func (c Config) check() ([]algorithm, []string, error) {
	if c.Rule.L < 1 || c.Rule.W < 1 {
		return nil, nil, fmt.Errorf("rule %s: L and W must be positive", c.Rule)
	}
	algs, notes, err := parseAlgorithms(c.Algorithms, c.Rule)
	if err != nil {
		return nil, nil, err
	}
	for _, n := range c.Clients {
		if n < 1 {
			return nil, nil, fmt.Errorf("clients %d: must be at least 1", n)
		}
	}
	return algs, notes, nil
}

// newOps returns each algorithm's round trip to Redis (a live one's under
// the rule scaled by the speed).
func newOps(algs []algorithm, cfg Config) ([]op, error) {
	ops := make([]op, len(algs))
	minTTL := max(int64(cfg.MinTTL/time.Millisecond), 1)
	for i, a := range algs {
		r := cfg.Rule
		if a.live {
			var err error
			if r, err = liveRule(cfg.Rule, cfg.Speed); err != nil {
				return nil, fmt.Errorf("%s: %w", a.name, err)
			}
		}
		model, err := algorithms.New(a.model, r)
		if err != nil {
			return nil, err
		}
		if a.product {
			ops[i], err = newProductOp(a.name, model, r)
		} else {
			ops[i], err = newOp(a.name, model, r, minTTL)
		}
		if err != nil {
			return nil, err
		}
	}
	return ops, nil
}

// traceInfo describes the spooled trace, its times rebased on the start of
// its first window, and refuses a trace Redis cannot replay exactly: a
// negative time, a span of 2^52 ns or more (Lua numbers are doubles), or
// costs other than 1 for the log and for rate-limit-redis.
func traceInfo(cfg Config, sp *spool, algs []algorithm) (TraceInfo, error) {
	info := cfg.Trace
	info.Requests, info.Keys, info.CostNot1 = sp.n, len(sp.keys), sp.costly
	if sp.n > 0 {
		if sp.first < 0 {
			return info, fmt.Errorf("the trace has a negative time (%d ns)", sp.first)
		}
		info.FirstNS, info.LastNS = sp.first, sp.last
		info.BaseNS = sp.first / cfg.Rule.W * cfg.Rule.W
		if sp.last-info.BaseNS >= MaxExact {
			return info, fmt.Errorf("the trace spans %v from the start of its first window: Redis replay needs less than 2^52 ns (%v), as Lua numbers are doubles",
				time.Duration(sp.last-info.BaseNS), time.Duration(MaxExact))
		}
	}
	if sp.costly > 0 && slices.ContainsFunc(algs, func(a algorithm) bool { return a.name == "log" }) {
		return info, fmt.Errorf("the Redis log supports cost 1 only, and %d requests have another cost (the first at %s): replay without log", sp.costly, sp.firstCostly)
	}
	if sp.costly > 0 && slices.ContainsFunc(algs, func(a algorithm) bool { return a.name == "express-rate-limit:store=redis" }) {
		return info, fmt.Errorf("rate-limit-redis counts one hit per request, and %d requests have another cost (the first at %s): replay without express-rate-limit:store=redis", sp.costly, sp.firstCostly)
	}
	return info, nil
}

// connect opens a client pool to the server at cfg.Addr, large enough for
// the most clients of a pass, reads what the result reports of the server
// and loads the scripts.
func connect(ctx context.Context, cfg Config) (*redis.Client, ServerInfo, error) {
	client := redis.NewClient(&redis.Options{
		Addr:                     cfg.Addr,
		PoolSize:                 slices.Max(cfg.Clients) + 2,
		DisableIdentity:          true,
		Protocol:                 2,
		MaintNotificationsConfig: &maintnotifications.Config{Mode: maintnotifications.ModeDisabled},
	})
	server, err := serverInfo(ctx, client)
	if err != nil {
		client.Close()
		return nil, server, fmt.Errorf("redis at %s: %w", cfg.Addr, err)
	}
	server.Started = cfg.Flush
	if !cfg.Flush {
		server.Addr = cfg.Addr
	}
	for _, s := range []*redis.Script{ScriptLog, ScriptCounter, ScriptFixed, ScriptToken, ScriptUpstashSliding, ScriptUpstashFixed, ScriptRedisRate, ScriptSpringGateway, ScriptTyk, ScriptRateLimitRedis, ScriptLimitsMovingWindow} {
		if err := s.Load(ctx, client).Err(); err != nil {
			client.Close()
			return nil, server, fmt.Errorf("loading a script: %w", err)
		}
	}
	return client, server, nil
}

// passNotes are the warnings a pass of algorithm a with c clients calls
// for: an atomic script or product disagreeing with its model under one
// client (a bug), a live replay that fell behind the trace's pace, a
// product's key outliving the lifetime it is given, or a pass longer than
// the least TTL.
func passNotes(cfg Config, a algorithm, c int, run Pass, tim PassTiming) []string {
	var notes []string
	if (a.atomic || a.product) && c == 1 && run.Agree != run.Decisions {
		notes = append(notes, fmt.Sprintf("%s with 1 client disagrees with the in-process %s on %d decisions: a bug (with one client they must agree exactly)",
			a.name, a.model, run.Decisions-run.Agree))
	}
	if l := tim.Live; l != nil && tim.Seconds > 1.25*l.RequestedSeconds+0.05 {
		notes = append(notes, fmt.Sprintf("%s with %d clients took %.3fs for the %.3fs requested at speed %d: the replay fell behind the trace's pace "+
			"(its decisions still agree, being fed Redis's times, but the trace's timing is lost); lower -speed", a.name, c, tim.Seconds, l.RequestedSeconds, l.Speed))
	}
	if ttl, _ := productTTL(a.name, cfg.Rule); ttl > 0 && time.Duration(tim.KeyLifeNS) > ttl {
		notes = append(notes, fmt.Sprintf("%s with %d clients: a key had to live %v on the server's clock, longer than the lifetime %v the product gives it: a window's count may have expired before its end",
			a.name, c, time.Duration(tim.KeyLifeNS).Round(time.Millisecond), ttl))
	}
	if tim.Seconds > cfg.MinTTL.Seconds() {
		notes = append(notes, fmt.Sprintf("%s with %d clients took %.0fs, longer than the least TTL %v: keys may have expired mid-replay (raise Config.MinTTL / -min-ttl)",
			a.name, c, tim.Seconds, cfg.MinTTL))
	}
	return notes
}

// races pairs counter and counter-nonatomic runs with the same clients.
func races(runs []Pass) []Race {
	var out []Race
	for _, n := range runs {
		if n.Algorithm != "counter-nonatomic" {
			continue
		}
		for _, a := range runs {
			if a.Algorithm != "counter" || a.Clients != n.Clients {
				continue
			}
			x := Race{Clients: n.Clients, Decisions: n.Decisions, AtomicAdmitted: a.Admitted, NonAtomicAdmitted: n.Admitted,
				ExtraAdmitted: n.Admitted - a.Admitted, AtomicDisagree: a.Decisions - a.Agree, AtomicOver: a.Over,
				NonAtomicDisagree: n.Decisions - n.Agree, NonAtomicOver: n.Over}
			if x.Decisions > 0 {
				x.ExtraFraction = float64(x.ExtraAdmitted) / float64(x.Decisions)
			}
			out = append(out, x)
		}
	}
	return out
}

// serverInfo reads the server's version and sorted-set encoding threshold.
func serverInfo(ctx context.Context, c *redis.Client) (ServerInfo, error) {
	var s ServerInfo
	if err := c.Ping(ctx).Err(); err != nil {
		return s, err
	}
	info, err := c.Info(ctx, "server").Result()
	if err != nil {
		return s, err
	}
	for _, line := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "redis_version:"); ok {
			s.Version = v
		}
	}
	for _, name := range []string{"zset-max-listpack-entries", "zset-max-ziplist-entries"} {
		m, err := c.ConfigGet(ctx, name).Result()
		if err == nil && m[name] != "" {
			s.ZsetMaxListpackEntries, _ = strconv.ParseInt(m[name], 10, 64)
			break
		}
	}
	return s, nil
}

// replay is the state shared by the passes of one Run.
type replay struct {
	cfg    Config
	client *redis.Client
	sp     *spool
	base   int64
	ns     string
}

// stats are one client goroutine's counts.
type stats struct {
	decisions, admitted, modelAdmitted, agree, over, under int64
	memberBytes                                            int64 // log: length of the members added
}

// tally counts one decision of Redis (ok) against the model's.
func (st *stats) tally(ok, model bool) {
	st.decisions++
	if ok {
		st.admitted++
	}
	if model {
		st.modelAdmitted++
	}
	switch {
	case ok == model:
		st.agree++
	case ok:
		st.over++
	default:
		st.under++
	}
}

// begin starts a pass from an empty state (FLUSHDB, or a fresh namespace
// whose keys done deletes) and returns the pass's key prefix, each trace
// key's Redis key, and the model for rule r.
func (rp *replay) begin(ctx context.Context, a algorithm, clients int, r algorithms.Rule) (prefix string, rkeys []string, model algorithms.Limiter, done func(), err error) {
	prefix = fmt.Sprintf("%s:%s%d:", rp.ns, a.tag, clients)
	done = func() {}
	if rp.cfg.Flush {
		if err := rp.client.FlushDB(ctx).Err(); err != nil {
			return "", nil, nil, nil, err
		}
	} else {
		done = func() { rp.unlink(context.WithoutCancel(ctx), prefix) }
	}
	if model, err = algorithms.New(a.model, r); err != nil {
		done()
		return "", nil, nil, nil, err
	}
	model.Grow(len(rp.sp.keys))
	rkeys = make([]string, len(rp.sp.keys))
	for i, k := range rp.sp.keys {
		rkeys[i] = prefix + k
	}
	return prefix, rkeys, model, done, nil
}

// pass replays the whole trace through one algorithm with c clients.
func (rp *replay) pass(ctx context.Context, a algorithm, o op, clients int) (Pass, PassTiming, error) {
	prefix, rkeys, model, done, err := rp.begin(ctx, a, clients, rp.cfg.Rule)
	if err != nil {
		return Pass{}, PassTiming{}, err
	}
	defer done()

	all := make([]stats, clients)
	isLog, isTyk := a.name == "log", a.name == "tyk"
	pool, lat := rp.startClients(ctx, clients, 2*clients, func(ctx context.Context, w int, j *job) error {
		ok, err := o.do(ctx, rp.client, j)
		if err != nil {
			return err
		}
		all[w].tally(ok, j.model)
		if ok && isLog {
			all[w].memberBytes += int64(len(logMember(j)))
		}
		if isTyk { // every request: ZADD key now now
			all[w].memberBytes += int64(len(strconv.FormatInt(j.abs, 10)))
		}
		return nil
	})
	every := algorithms.CountsEvery(model)
	ttl, reads := productTTL(a.name, rp.cfg.Rule)
	life := keyLife{w: rp.cfg.Rule.W, reads: int64(reads)}
	err = rp.sp.scan(func(seq, t int64, id int32, cost int64) (bool, error) {
		admit := model.Decide(id, t, cost)
		if admit || every {
			model.Record(id, t, cost)
		}
		if ttl > 0 {
			life.see(t, time.Now())
		}
		return pool.Send(job{seq: seq, t: t - rp.base, abs: t, id: id, cost: cost, key: rkeys[id], model: admit}), nil
	})
	elapsed, err := pool.Finish(err)
	if err != nil {
		return Pass{}, PassTiming{}, err
	}

	run, tim, err := rp.result(ctx, a, o, model, prefix, all, clients, elapsed, lat)
	tim.KeyLifeNS = int64(life.max)
	return run, tim, err
}

// result sums a pass's counts, measures its keys' memory and its timing.
func (rp *replay) result(ctx context.Context, a algorithm, o op, model algorithms.Limiter, prefix string, all []stats, clients int, elapsed time.Duration, lat *reservoir) (Pass, PassTiming, error) {
	isLog := a.name == "log"
	run := Pass{Algorithm: a.name, Model: a.model, Atomic: a.atomic, Product: a.product, Clients: clients}
	var memberBytes int64
	var err error
	for _, s := range all {
		memberBytes += s.memberBytes
		run.Decisions += s.decisions
		run.Admitted += s.admitted
		run.ModelAdmitted += s.modelAdmitted
		run.Agree += s.agree
		run.Over += s.over
		run.Under += s.under
	}
	if run.Decisions > 0 {
		run.AgreeFraction = float64(run.Agree) / float64(run.Decisions)
	}
	zset := isLog || a.name == "tyk" // a sorted set per client
	if run.Memory, err = measureMemory(ctx, rp.client, prefix, rp.cfg.MemorySample, zset); err != nil {
		return Pass{}, PassTiming{}, fmt.Errorf("measuring memory: %w", err)
	}
	run.Memory.KeysPerClient = o.keysPerClient()
	run.Memory.BytesPerClient = run.Memory.BytesPerKey * float64(run.Memory.KeysPerClient)
	modelMemory(&run.Memory, model, len(rp.sp.keys))
	if isLog && run.Admitted > 0 {
		run.Memory.MemberBytes = float64(memberBytes) / float64(run.Admitted)
	}
	if a.name == "tyk" && run.Decisions > 0 {
		run.Memory.MemberBytes = float64(memberBytes) / float64(run.Decisions)
	}

	tim := PassTiming{Algorithm: a.name, Clients: clients, Seconds: elapsed.Seconds(), Latency: lat.latency()}
	if elapsed > 0 {
		tim.OpsPerSecond = float64(run.Decisions) / elapsed.Seconds()
	}
	return run, tim, nil
}

// modelMemory fills in the analytic model's figures from the in-process
// limiter at the end of the trace.
func modelMemory(m *Memory, model algorithms.Limiter, keys int) {
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

// unlink deletes the keys under prefix (on a server the harness does not
// own, after the pass).
func (rp *replay) unlink(ctx context.Context, prefix string) {
	iter := rp.client.Scan(ctx, 0, prefix+"*", 1000).Iterator()
	var batch []string
	for iter.Next(ctx) {
		if batch = append(batch, iter.Val()); len(batch) == 500 {
			rp.client.Unlink(ctx, batch...)
			batch = batch[:0]
		}
	}
	if len(batch) > 0 {
		rp.client.Unlink(ctx, batch...)
	}
}
