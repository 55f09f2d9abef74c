// Package node is the live target of express-rate-limit, Node's Express
// middleware: the npm packages pinned in this folder's package.json and
// package-lock.json (npm ci --prefix live/node), run by node on a driver
// script of this package (driver.cjs), which calls the real middleware on a
// request and response of its own for each request of the trace.
//
// Two targets, as the two stores run on two clocks:
//
//   - express-rate-limit (its default MemoryStore): the clock is driven.
//     Date and the store's timers are fake (@sinonjs/fake-timers), moved
//     to each request's instant in whole milliseconds, Date.now's
//     resolution; the store's sweep of idle clients runs whenever it falls
//     due on the way.
//   - express-rate-limit:store=redis (rate-limit-redis on a redis-server
//     the session starts): the clock is Redis's, which cannot be driven.
//     The trace is replayed in real time (times the speed), and each
//     request is given the millisecond the store's script read Redis's
//     clock at: PEXPIRETIME of its key, read right after the script on the
//     same connection, less the time to expire the script returned (the
//     script's PTTL is the expiry less the clock, and a key it sets anew
//     expires windowMs after the clock). The model is fed those times, so
//     that it sees the windows Redis saw. Should the key have expired
//     before PEXPIRETIME reads it, the request is given Redis TIME's
//     millisecond read just before the script (counted in Approximate).
package node

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"ratebench/algorithms"
	"ratebench/algorithms/products"
	"ratebench/internal/childproc"
	"ratebench/live"
	"ratebench/live/driver"
	liveredis "ratebench/live/redis"
)

//go:embed driver.cjs
var driverScript []byte

// Install is the command that installs the npm packages, from the
// repository's root.
const Install = "npm ci --prefix live/node"

// packages are the npm packages the driver loads, for each store.
var packages = map[bool][]string{
	false: {"express-rate-limit", "@sinonjs/fake-timers"},
	true:  {"express-rate-limit", "rate-limit-redis", "redis"},
}

// minNode is the least major version of Node.js each store's packages
// run on (their engines fields: redis 6 wants 20, express-rate-limit 16).
var minNode = map[bool]int{false: 18, true: 20}

const requires = "Node.js 20 or later and npm (apt-get install nodejs npm; Debian 12's own nodejs is 18, enough for the memory store, NodeSource's is 20) and the npm packages of live/node (" + Install + ")"

func init() {
	live.Register(live.Target{Name: "express-rate-limit",
		About:    "express-rate-limit's middleware with its MemoryStore, in a node process whose Date and timers follow the trace",
		Requires: requires, Driven: true, Variants: []string{"", "store=memory"}, Checks: []string{""},
		Version: func(ctx context.Context, o live.Options) (string, error) { return version(ctx, o, false) },
		Model:   func(r algorithms.Rule, o live.Options) (string, error) { return model(r, o, false) },
		Start: func(ctx context.Context, r algorithms.Rule, _ *live.Trace, o live.Options) (live.Session, error) {
			return start(ctx, r, o, false)
		}})
	live.Register(live.Target{Name: "express-rate-limit:store=redis",
		About:    "express-rate-limit's middleware with rate-limit-redis, in a node process, on a redis-server on a loopback port, in real time",
		Requires: requires + ", and redis-server (apt-get install redis-server)", Variants: []string{""}, Checks: []string{""},
		Version: func(ctx context.Context, o live.Options) (string, error) { return version(ctx, o, true) },
		Model:   func(r algorithms.Rule, o live.Options) (string, error) { return model(r, o, true) },
		Start: func(ctx context.Context, r algorithms.Rule, _ *live.Trace, o live.Options) (live.Session, error) {
			return start(ctx, r, o, true)
		}})
}

// Prefix returns the folder the npm packages are installed in: $RATEBENCH_LIVE_NODE
// when set, else this package's source folder when the program was built
// from it, else live/node under the current directory.
func Prefix() (string, error) {
	var tried []string
	candidates := []string{os.Getenv("RATEBENCH_LIVE_NODE")}
	if _, file, _, ok := runtime.Caller(0); ok && filepath.IsAbs(file) {
		candidates = append(candidates, filepath.Dir(file))
	}
	candidates = append(candidates, filepath.Join("live", "node"))
	for _, dir := range candidates {
		if dir == "" {
			continue
		}
		abs, err := filepath.Abs(dir)
		if err != nil {
			continue
		}
		var pkg struct{ Name string }
		if b, err := os.ReadFile(filepath.Join(abs, "package.json")); err == nil && json.Unmarshal(b, &pkg) == nil && pkg.Name == "ratebench-live-node" {
			return abs, nil
		}
		tried = append(tried, abs)
	}
	return "", fmt.Errorf("the folder live/node of ratebench (its package.json) is not at %s: run from the repository's root, or set RATEBENCH_LIVE_NODE to it", strings.Join(tried, " nor "))
}

// installed checks that node runs (at least minNode) and that
// each package is installed in prefix at the version package.json pins,
// and returns node's path and what runs: "express-rate-limit 8.7.5 (node
// v20.20.2)".
func installed(ctx context.Context, o live.Options, redis bool) (node, prefix, what string, err error) {
	return installedPackages(ctx, o, packages[redis], minNode[redis], requires)
}

// installedPackages is installed for the npm packages pkgs (their
// versions named in what, but for the test helper @sinonjs/fake-timers),
// on Node.js minMajor or later; requires says what to install.
func installedPackages(ctx context.Context, o live.Options, pkgs []string, minMajor int, requires string) (node, prefix, what string, err error) {
	bin := o.Binary
	if bin == "" {
		bin = "node"
	}
	if node, err = exec.LookPath(bin); err != nil {
		return "", "", "", fmt.Errorf("node not found (%v): install %s", err, requires)
	}
	out, err := childproc.Probe(ctx, node, "--version")
	if childproc.Stopped(err) {
		return "", "", "", err
	}
	v := strings.TrimSpace(string(out))
	major, _, _ := strings.Cut(strings.TrimPrefix(v, "v"), ".")
	if n, aerr := strconv.Atoi(major); err != nil || aerr != nil || n < minMajor {
		return "", "", "", fmt.Errorf("%s is node %q (%v): want Node.js %d or later: install %s", node, v, err, minMajor, requires)
	}
	if prefix, err = Prefix(); err != nil {
		return "", "", "", err
	}
	var pins struct{ Dependencies map[string]string }
	b, err := os.ReadFile(filepath.Join(prefix, "package.json"))
	if err == nil {
		err = json.Unmarshal(b, &pins)
	}
	if err != nil {
		return "", "", "", fmt.Errorf("reading %s: %v", filepath.Join(prefix, "package.json"), err)
	}
	var parts []string
	for _, name := range pkgs {
		var got struct{ Version string }
		b, err := os.ReadFile(filepath.Join(prefix, "node_modules", filepath.FromSlash(name), "package.json"))
		if err == nil {
			err = json.Unmarshal(b, &got)
		}
		switch {
		case err != nil:
			return "", "", "", fmt.Errorf("the npm package %s is not installed in %s (%v): run %s", name, prefix, err, Install)
		case got.Version != pins.Dependencies[name]:
			return "", "", "", fmt.Errorf("the npm package %s is %s in %s, not the %s package.json pins: run %s", name, got.Version, prefix, pins.Dependencies[name], Install)
		}
		if name != "@sinonjs/fake-timers" {
			parts = append(parts, name+" "+got.Version)
		}
	}
	return node, prefix, strings.Join(parts, ", ") + " (node " + v + ")", nil
}

func version(ctx context.Context, o live.Options, redis bool) (string, error) {
	if err := variant(o, redis); err != nil {
		return "", err
	}
	_, _, what, err := installed(ctx, o, redis)
	return what, err
}

func variant(o live.Options, redis bool) error {
	if o.Variant == "" || !redis && o.Variant == "store=memory" {
		return nil
	}
	if !redis && o.Variant == "store=redis" {
		return errors.New("express-rate-limit:store=redis runs on Redis's clock: it is the target express-rate-limit:store=redis")
	}
	return fmt.Errorf("express-rate-limit: unknown variant %q", o.Variant)
}

func model(r algorithms.Rule, o live.Options, redis bool) (string, error) {
	if err := variant(o, redis); err != nil {
		return "", err
	}
	if redis {
		return "express-rate-limit:store=redis", nil
	}
	return "express-rate-limit", nil
}

// session is one node process running the middleware (and for the Redis
// store, the redis-server it uses).
type session struct {
	live.Plain
	p      *driver.Proc
	server *liveredis.Server
	base   int64 // the millisecond of Redis's clock at the first request
	begun  bool
	sha    string // the SHA1 of the script the Redis store loaded
	approx int    // requests given TIME's millisecond, not the script's
}

// Approximate is the number of requests the Redis store decided that were
// given the time Redis TIME read before the script, not the script's own
// clock (their key had expired when its expiry was read).
func Approximate(s live.Session) int {
	if ss, ok := s.(*session); ok {
		return ss.approx
	}
	return 0
}

func start(ctx context.Context, r algorithms.Rule, o live.Options, redis bool) (live.Session, error) {
	if err := variant(o, redis); err != nil {
		return nil, err
	}
	node, prefix, _, err := installed(ctx, o, redis)
	if err != nil {
		return nil, err
	}
	m, err := products.NewExpressRateLimit(r, map[bool]string{true: "store=redis"}[redis], redis)
	if err != nil {
		return nil, err
	}
	s := &session{}
	args := []string{prefix, "memory", strconv.FormatFloat(m.WindowMs(), 'g', -1, 64), strconv.FormatInt(r.L, 10)}
	if redis {
		if s.server, err = liveredis.Start(ctx, ""); err != nil {
			return nil, err
		}
		args[1] = "redis"
		args = append(args, s.server.Addr)
	}
	o.Logf("starting %s on the driver, windowMs %s, limit %d", node, args[2], r.L)
	if s.p, err = driver.Start(driver.Spec{Name: "the node driver", Program: node, Script: driverScript, ScriptName: "driver.cjs", Args: args}); err != nil {
		s.Close()
		return nil, err
	}
	ans, err := s.p.Ready(ctx)
	if err == nil {
		f := strings.Fields(ans)
		switch {
		case len(f) == 0 || f[0] != "ready" || len(f) != map[bool]int{false: 1, true: 2}[redis]:
			err = fmt.Errorf("the node driver said %q, not ready", ans)
		case redis:
			s.sha = f[1]
		}
	}
	if err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

func (s *session) Decide(ctx context.Context, q live.Request) (live.Decision, error) {
	key, t := q.Key, q.T
	line := key + " " + strconv.FormatInt(t, 10) + " " + strconv.FormatInt(max(q.Cost, 1), 10)
	if s.server == nil {
		ans, err := s.p.Ask(ctx, line, driver.AnswerTimeout)
		if err != nil {
			return live.Decision{}, err
		}
		if ans != "A" && ans != "R" {
			return live.Decision{}, fmt.Errorf("the node driver answered %q", ans)
		}
		return live.Decision{Admit: ans == "A", At: t}, nil
	}
	ans, err := s.p.Ask(ctx, line, driver.AnswerTimeout)
	if err != nil {
		return live.Decision{}, err
	}
	f := strings.Fields(ans)
	var ms, blockMs int64
	var err2 error
	if len(f) == 3 || len(f) == 5 {
		ms, err = strconv.ParseInt(f[1], 10, 64)
	}
	block := len(f) == 5 && f[0] == "R" && f[3] == "B"
	if block {
		blockMs, err2 = strconv.ParseInt(f[4], 10, 64)
	}
	if len(f) != 3 && !block || err != nil || err2 != nil || f[0] != "A" && f[0] != "R" || f[2] != "=" && f[2] != "~" || block && blockMs < ms {
		return live.Decision{}, fmt.Errorf("the node driver answered %q", ans)
	}
	if f[2] == "~" {
		s.approx++
	}
	if !s.begun {
		s.begun, s.base = true, ms
	}
	d := live.Decision{Admit: f[0] == "A", At: (ms - s.base) * int64(time.Millisecond)}
	if block { // the block's SET, a round trip after the script
		d.Block, d.BlockAt = true, (blockMs-s.base)*int64(time.Millisecond)
	}
	return d, nil
}

// Close kills node and stops redis-server.
func (s *session) Close() error {
	var err error
	if s.p != nil {
		err = s.p.Stop()
	}
	if s.server != nil {
		if serr := s.server.Stop(); serr != nil && err == nil {
			err = serr
		}
	}
	return err
}
