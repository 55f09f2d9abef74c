package redisreplay

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"ratebench/algorithms"
	"ratebench/generators"
	"ratebench/traces"
)

// sliceReader replays requests held in memory (test traces are small).
type sliceReader struct {
	reqs []traces.Request
	i    int
}

func (s *sliceReader) Scan() bool {
	s.i++
	return s.i <= len(s.reqs)
}
func (s *sliceReader) Request() traces.Request { return s.reqs[s.i-1] }
func (s *sliceReader) Pos() traces.Position    { return traces.Position{File: "test", Row: int64(s.i)} }
func (s *sliceReader) Err() error              { return nil }
func (s *sliceReader) Close() error            { return nil }

// randomTrace returns n requests over the given keys, in time order,
// with gaps drawn so that windows of w ns roll over now and then, and
// costs in [1, maxCost].
func randomTrace(seed uint64, n, keys int, w int64, maxCost int64) *sliceReader {
	rng := rand.New(rand.NewPCG(seed, 7))
	t := generators.DefaultStart + rng.Int64N(w)
	var reqs []traces.Request
	for range n {
		switch rng.IntN(20) {
		case 0:
			t += rng.Int64N(3 * w) // a long gap
		case 1, 2, 3:
			// same instant as the previous request
		default:
			t += rng.Int64N(w/20 + 1)
		}
		cost := int64(1)
		if maxCost > 1 {
			cost = 1 + rng.Int64N(maxCost)
		}
		reqs = append(reqs, traces.Request{T: t, Key: []byte(fmt.Sprintf("k%d", rng.IntN(keys))), Cost: cost})
	}
	return &sliceReader{reqs: reqs}
}

func mustRule(t *testing.T, s string) algorithms.Rule {
	t.Helper()
	r, err := algorithms.ParseRule(s)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// checkAgreement fails on a pass whose decisions do not all agree with
// its model, reports one that admits all or nothing (by onOneOutcome:
// t.Errorf where the trace is made to exercise both outcomes, else
// t.Logf), and logs the result's Markdown.
func checkAgreement(t *testing.T, res *Result, onOneOutcome func(format string, args ...any)) {
	t.Helper()
	for _, p := range res.Runs {
		if p.Decisions == 0 || p.Agree != p.Decisions {
			t.Errorf("%s: %d of %d decisions agree with the model %s (over %d, under %d)",
				p.Algorithm, p.Agree, p.Decisions, p.Model, p.Over, p.Under)
		}
		if p.Admitted == 0 || p.Admitted == p.Decisions {
			onOneOutcome("%s: admitted %d of %d: the trace does not exercise both outcomes", p.Algorithm, p.Admitted, p.Decisions)
		}
	}
	var md bytes.Buffer
	res.WriteMarkdown(&md)
	t.Logf("\n%s", md.String())
}

func run(t *testing.T, srv *Server, cfg Config, r traces.Reader) *Result {
	t.Helper()
	cfg.Addr, cfg.Flush = srv.Addr, true
	res, err := Run(context.Background(), cfg, r)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestAtomicScriptsAgreeWithOneClient is the main correctness check: with
// one client, every atomic script decides exactly as the in-process
// algorithm on every request (and so does the non-atomic counter, which
// has nobody to race with).
func TestAtomicScriptsAgreeWithOneClient(t *testing.T) {
	srv := StartForTest(t)
	cases := []struct {
		name  string
		rule  string
		algs  []string
		trace func() traces.Reader
	}{
		{"generated mix 5/30s", "5/30s", Algorithms, func() traces.Reader {
			g, err := generators.New("mix:poisson=0.5,onoff=0.2,early=0.15,boundary=0.15,requests=3000,keys=30,rate=1", generators.Params{})
			if err != nil {
				t.Fatal(err)
			}
			return g
		}},
		{"random 7/1500ms", "7/1500ms", []string{"log", "counter", "counter-nonatomic", "fixed", "token", "token:B=3"}, func() traces.Reader {
			return randomTrace(1, 2000, 5, 1500e6, 1)
		}},
		// costs, and L*W = 3.6e17 > 2^53: the counter's comparison must not
		// round.
		{"random costs 100000/1h", "100000/1h", []string{"counter", "counter-nonatomic", "fixed", "token", "token:B=150000"}, func() traces.Reader {
			return randomTrace(2, 2000, 3, int64(time.Hour), 20000)
		}},
		// a window that is not a whole number of ms, costs
		{"random costs 3/7ns", "3/7ns", []string{"counter", "fixed", "token"}, func() traces.Reader {
			return randomTrace(3, 1000, 2, 7, 3)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := run(t, srv, Config{Rule: mustRule(t, c.rule), Algorithms: c.algs}, c.trace())
			checkAgreement(t, res, t.Logf)
		})
	}
}

// raceTrace is designed for the race: keys few, each burst of requests on
// one key far beyond the limit, bursts 3W apart so that each starts with
// empty windows. In a burst the atomic counter admits exactly L per key;
// the non-atomic one reads counts that can only be stale (lower), so it
// admits at least L.
func raceTrace(keys, bursts, perBurst int, w int64) *sliceReader {
	var reqs []traces.Request
	t0 := generators.DefaultStart
	for b := range bursts {
		for i := range perBurst {
			for k := range keys {
				reqs = append(reqs, traces.Request{T: t0 + int64(b)*3*w + int64(i)*1000, Key: []byte(fmt.Sprintf("hot%d", k)), Cost: 1})
			}
		}
	}
	return &sliceReader{reqs: reqs}
}

func TestNonAtomicCounterRace(t *testing.T) {
	srv := StartForTest(t)
	rule := mustRule(t, "50/1s")
	res := run(t, srv, Config{Rule: rule, Algorithms: []string{"counter", "counter-nonatomic"}, Clients: []int{1, 16}},
		raceTrace(2, 10, 200, rule.W))
	if len(res.Races) != 2 {
		t.Fatalf("races = %+v", res.Races)
	}
	for _, x := range res.Races {
		t.Logf("%d clients: atomic admitted %d, non-atomic %d, extra %+d (%.2f%% of %d); non-atomic over the model %d",
			x.Clients, x.AtomicAdmitted, x.NonAtomicAdmitted, x.ExtraAdmitted, 100*x.ExtraFraction, x.Decisions, x.NonAtomicOver)
		if x.ExtraAdmitted < 0 {
			t.Errorf("%d clients: the non-atomic counter admitted fewer than the atomic one", x.Clients)
		}
		if x.Clients == 1 && (x.ExtraAdmitted != 0 || x.NonAtomicDisagree != 0 || x.AtomicDisagree != 0) {
			t.Errorf("1 client: no race expected: %+v", x)
		}
		// The atomic counter admits L per key and burst whatever the order.
		if want := int64(10 * 2 * rule.L); x.AtomicAdmitted != want {
			t.Errorf("%d clients: the atomic counter admitted %d, want %d", x.Clients, x.AtomicAdmitted, want)
		}
	}
}

func TestMemoryUsage(t *testing.T) {
	srv := StartForTest(t)
	// 1000/1m, two hot keys whose logs grow past 128 entries (skiplist)
	// and cold ones that stay short (listpack).
	var reqs []traces.Request
	for i := range 2000 {
		t := generators.DefaultStart + int64(i)*int64(time.Millisecond)
		reqs = append(reqs, traces.Request{T: t, Key: []byte(fmt.Sprintf("hot%d", i%2)), Cost: 1})
		if i%50 == 0 {
			reqs = append(reqs, traces.Request{T: t, Key: []byte(fmt.Sprintf("cold%d", i%7)), Cost: 1})
		}
	}
	res := run(t, srv, Config{Rule: mustRule(t, "1000/1m"), Algorithms: Algorithms}, &sliceReader{reqs: reqs})
	for _, p := range res.Runs {
		m := p.Memory
		if m.RedisKeys <= 0 || m.SampledKeys <= 0 || m.BytesPerKey <= 0 || m.ModelBytesPerClient <= 0 {
			t.Errorf("%s: memory not measured: %+v", p.Algorithm, m)
		}
		for _, e := range m.Encodings {
			if e.Bytes <= 0 {
				t.Errorf("%s: encoding %s: %d bytes", p.Algorithm, e.Encoding, e.Bytes)
			}
		}
		if p.Algorithm == "log" {
			if m.Entries <= 0 || m.BytesPerEntry <= 0 || m.Entries != m.ModelEntries {
				t.Errorf("log: entries %d (model %d), %.1f bytes per entry", m.Entries, m.ModelEntries, m.BytesPerEntry)
			}
		}
		t.Logf("%s: %+v", p.Algorithm, m)
	}
}

// TestDeterministic: two replays with one client give the same JSON but
// for the timing.
func TestDeterministic(t *testing.T) {
	srv := StartForTest(t)
	var out [2][]byte
	for i := range out {
		res := run(t, srv, Config{Rule: mustRule(t, "5/10s"), Algorithms: Algorithms, Trace: TraceInfo{Path: "x", Format: "test"}},
			randomTrace(5, 1500, 10, 10e9, 1))
		res.Timing = Timing{}
		b, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = b
	}
	if !bytes.Equal(out[0], out[1]) {
		t.Errorf("two replays differ:\n%s\n%s", out[0], out[1])
	}
}

// TestExistingServer replays against a server the harness does not own:
// no FLUSHDB, and the run's keys are deleted afterwards.
func TestExistingServer(t *testing.T) {
	srv := StartForTest(t)
	c := redis.NewClient(&redis.Options{Addr: srv.Addr})
	defer c.Close()
	ctx := context.Background()
	if err := c.Set(ctx, "someone-else", "1", 0).Err(); err != nil {
		t.Fatal(err)
	}
	res, err := Run(ctx, Config{Addr: srv.Addr, Rule: mustRule(t, "5/10s"), Algorithms: Algorithms, Clients: []int{1, 4}}, randomTrace(6, 500, 5, 10e9, 1))
	if err != nil {
		t.Fatal(err)
	}
	if res.Server.Started || res.Server.Addr != srv.Addr {
		t.Errorf("server = %+v", res.Server)
	}
	if n := c.DBSize(ctx).Val(); n != 1 {
		t.Errorf("%d keys left, want only someone-else's", n)
	}
}

func TestErrors(t *testing.T) {
	srv := StartForTest(t)
	ctx := context.Background()
	cost := &sliceReader{reqs: []traces.Request{{T: 1, Key: []byte("a"), Cost: 1}, {T: 2, Key: []byte("a"), Cost: 3}}}
	far := &sliceReader{reqs: []traces.Request{{T: 0, Key: []byte("a"), Cost: 1}, {T: MaxExact, Key: []byte("a"), Cost: 1}}}
	for _, c := range []struct {
		rule, alg string
		r         traces.Reader
		want      string
	}{
		{"5/1s", "log", cost, "supports cost 1 only, and 1 requests have another cost (the first at test: row 2: cost 3)"},
		{"5/1s", "counter", far, "Redis replay needs less than 2^52 ns"},
		{"7/1000h", "token", cost, "B*W/gcd(L,W)"},
		{"5/1s", "gcra", cost, "no Redis implementation"},
	} {
		_, err := Run(ctx, Config{Addr: srv.Addr, Flush: true, Rule: mustRule(t, c.rule), Algorithms: []string{c.alg}}, c.r)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %s: err = %v, want %q", c.rule, c.alg, err, c.want)
		}
		cost.i, far.i = 0, 0
	}
}
