package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"ratebench/algorithms"
	"ratebench/internal/escape"
	"ratebench/redisreplay"
	"ratebench/summary/resultsdir"
)

const redisSynopsis = "(FILE | -gen SCENARIO) [-rule L/W] [-alg log,counter,counter-nonatomic,fixed,token,upstash,envoy,...] [-clients 1,4,16] [-speed S] [-addr HOST:PORT] [-o DIR]\n\n" +
	"FILE (or -trace FILE) is the trace to replay; -gen replays a generated one instead."

// runRedis replays a trace against a real Redis server through Lua
// scripts (and a non-atomic counter that reads, then increments), compares every decision
// with the in-process algorithm, and writes DIR/redis.json and
// DIR/redis.md.
func runRedis(stdout, stderr io.Writer, args []string) error {
	fs := newFlagSet("redis", stderr, redisSynopsis)
	var tf traceFlags
	tf.register(fs)
	genSpec := fs.String("gen", "", "replay a generated `scenario` instead of a trace, e.g. 'mix:poisson=0.7,boundary=0.3,requests=20000,keys=200' (see ratebench gen -list)")
	ruleS := fs.String("rule", "5/30s", "rate limit `L/W`")
	algs := fs.String("alg", strings.Join(redisreplay.Algorithms, ","), "comma-separated `algorithms`: log, counter, counter-nonatomic (two round trips: read, then increment), fixed, token[:B=N]; "+
		"and the products' own Redis code against their models: upstash, upstash-fixed (their Lua scripts), envoy (INCRBY+EXPIRE), kong (read, then increment), redis_rate[:burst=N] (its script, live on Redis TIME: see -speed), spring-gateway and tyk (their scripts, on the trace's clock), express-rate-limit:store=redis (rate-limit-redis's script, live on Redis's clock: see -speed)")
	speed := fs.Int64("speed", 1, "replay redis_rate and express-rate-limit:store=redis, whose scripts read Redis's clock, live at the trace's pace times `S`, its rule's window divided by S")
	clients := fs.String("clients", "1,4,16", "comma-separated numbers of concurrent `clients`; each algorithm is replayed with each")
	addr := fs.String("addr", "", "`host:port` of a running Redis server to use (never flushed: the run's keys are deleted after it); default: start redis-server on a free port")
	server := fs.String("redis-server", "", "redis-server `program` to start (default redis-server from $PATH)")
	out := fs.String("o", "", "output `dir` (default results/redis/<trace name>)")
	minTTL := fs.Duration("min-ttl", 10*time.Minute, "least `duration` a key is given to live (PEXPIRE); no key may expire during the replay")
	sample := fs.Int("sample", 2000, "most keys per run whose MEMORY USAGE is measured")
	if err := parseCommand(fs, args, tf.operand()); err != nil {
		return err
	}
	rule, err := algorithms.ParseRule(*ruleS)
	if err != nil {
		return usageError{err.Error()}
	}
	algList, err := redisreplay.ParseAlgorithms(strings.Split(*algs, ","), rule)
	if err != nil {
		return usageError{err.Error()}
	}
	var cs []int
	for _, s := range strings.Split(*clients, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			return usageError{fmt.Sprintf("-clients %q: want positive integers, e.g. 1,4,16", *clients)}
		}
		cs = append(cs, n)
	}
	if *sample < 1 || *minTTL <= 0 || *speed < 1 {
		return usageError{"-sample, -min-ttl and -speed must be positive"}
	}

	// A signal stops the reading of the trace too, even while it waits for
	// input.
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	tf.cancel = ctx.Done()
	r, path, format, name, err := tf.openOrGenerate(*genSpec)
	if err != nil {
		return err
	}
	defer r.Close()
	dir := *out
	if dir == "" {
		dir = filepath.Join("results", "redis", name)
	}

	// The folder is locked before the replay, so a second run into it
	// fails at once rather than after its replay.
	rd, err := resultsdir.Lock(dir)
	if err != nil {
		return err
	}
	defer rd.Close()

	cfg := redisreplay.Config{Addr: *addr, Rule: rule, Algorithms: algList, Clients: cs, MinTTL: *minTTL, MemorySample: *sample, Speed: *speed,
		Trace: redisreplay.TraceInfo{Path: path, Format: format},
		Log:   func(f string, a ...any) { fmt.Fprintf(stderr, f+"\n", a...) }}
	if cfg.Addr == "" {
		srv, err := redisreplay.Start(ctx, *server)
		if err != nil {
			return err
		}
		defer srv.Stop()
		cfg.Addr, cfg.Flush = srv.Addr, true
		fmt.Fprintf(stderr, "started redis-server at %s\n", srv.Addr)
	}
	res, err := redisreplay.Run(ctx, cfg, r)
	if err != nil {
		return err
	}
	if s := unitText(timeUnit(r)); s != "" {
		fmt.Fprintf(stderr, "timestamps in %s\n", s)
	}
	if err := res.WriteFiles(rd.Stage()); err != nil {
		return err
	}
	if err := rd.Commit(ownsRedis); err != nil {
		return err
	}
	if err := res.WriteMarkdown(stdout); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "\nwrote %s and %s\n", escape.Visible(filepath.Join(dir, "redis.json")), escape.Visible(filepath.Join(dir, "redis.md")))
	return nil
}

// ownsRedis tells the files a run of redis owns in its results folder.
func ownsRedis(rel string) bool { return rel == "redis.json" || rel == "redis.md" }
