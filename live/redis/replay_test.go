package redis

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"ratebench/algorithms"
	"ratebench/generators"
	"ratebench/live"
	"ratebench/summary"
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

// load reads r into a trace, its costs kept.
func load(t *testing.T, r traces.Reader) *live.Trace {
	t.Helper()
	tr, err := live.Load(r, "test", true)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// replay replays tr through the target redis:spec on srv (a server the
// replay is given: its keys are deleted after) under rule, from clients
// clients, at speed (0: 1) for the scripts on Redis's clock.
func replay(t *testing.T, srv *Server, spec string, rule algorithms.Rule, clients int, speed int64, tr *live.Trace) (*summary.Live, error) {
	t.Helper()
	target, variant, ok := live.Find("redis:" + spec)
	if !ok {
		t.Fatalf("no target redis:%s", spec)
	}
	o := live.Options{Variant: variant, Clients: clients, Addr: srv.Addr}
	if speed > 0 {
		o.Speed = big.NewRat(speed, 1)
	}
	return live.Run(context.Background(), target, rule, tr, o)
}

// run is replay, failing the test on an error.
func run(t *testing.T, srv *Server, spec string, rule algorithms.Rule, clients int, speed int64, tr *live.Trace) *summary.Live {
	t.Helper()
	res, err := replay(t, srv, spec, rule, clients, speed, tr)
	if err != nil {
		t.Fatalf("%s with %d clients: %v", spec, clients, err)
	}
	return res
}

// modelAdmitted is what the model admitted: the software's admissions
// less those the model refused, and more those it admitted alone.
func modelAdmitted(res *summary.Live) int64 {
	return res.Admitted - res.Model.SoftwareOnly + res.Model.OtherOnly
}

// checkAgreement fails on a replay whose decisions do not all agree with
// its model, reports one that admits all or nothing (by onOneOutcome:
// t.Errorf where the trace is made to exercise both outcomes, else
// t.Logf), and logs the result's figures.
func checkAgreement(t *testing.T, res *summary.Live, onOneOutcome func(format string, args ...any)) {
	t.Helper()
	n := res.Trace.Requests
	if n == 0 || res.Model.Agree != n {
		t.Errorf("%s with %d clients: %d of %d decisions agree with the model %s (over %d, under %d)",
			res.Target, res.Clients, res.Model.Agree, n, res.ModelSpec, res.Model.SoftwareOnly, res.Model.OtherOnly)
	}
	if res.Admitted == 0 || res.Admitted == n {
		onOneOutcome("%s: admitted %d of %d: the trace does not exercise both outcomes", res.Target, res.Admitted, n)
	}
	t.Logf("%s, %d clients: admitted %d of %d, the model agrees on %d; memory %+v", res.Target, res.Clients, res.Admitted, n, res.Model.Agree, res.Memory)
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
			tr := load(t, c.trace())
			for _, alg := range c.algs {
				checkAgreement(t, run(t, srv, alg, mustRule(t, c.rule), 1, 0, tr), t.Logf)
			}
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

// The race: at each number of clients, the non-atomic counter beside the
// atomic counter script on the same trace.
func TestNonAtomicCounterRace(t *testing.T) {
	srv := StartForTest(t)
	rule := mustRule(t, "50/1s")
	tr := load(t, raceTrace(2, 10, 200, rule.W))
	for _, clients := range []int{1, 16} {
		atomic := run(t, srv, "counter", rule, clients, 0, tr)
		nonAtomic := run(t, srv, "counter-nonatomic", rule, clients, 0, tr)
		extra := nonAtomic.Admitted - atomic.Admitted
		t.Logf("%d clients: atomic admitted %d, non-atomic %d, extra %+d of %d; non-atomic over the model %d",
			clients, atomic.Admitted, nonAtomic.Admitted, extra, len(tr.T), nonAtomic.Model.SoftwareOnly)
		if extra < 0 {
			t.Errorf("%d clients: the non-atomic counter admitted fewer than the atomic one", clients)
		}
		if clients == 1 && (extra != 0 || nonAtomic.Model.Disagree() != 0 || atomic.Model.Disagree() != 0) {
			t.Errorf("1 client: no race expected: extra %d, disagreements %d and %d", extra, nonAtomic.Model.Disagree(), atomic.Model.Disagree())
		}
		// The atomic counter admits L per key and burst whatever the order.
		if want := int64(10 * 2 * rule.L); atomic.Admitted != want {
			t.Errorf("%d clients: the atomic counter admitted %d, want %d", clients, atomic.Admitted, want)
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
	tr := load(t, &sliceReader{reqs: reqs})
	for _, alg := range Algorithms {
		m := run(t, srv, alg, mustRule(t, "1000/1m"), 1, 0, tr).Memory
		if m == nil || m.RedisKeys <= 0 || m.SampledKeys <= 0 || m.BytesPerKey <= 0 || m.ModelBytesPerClient <= 0 {
			t.Fatalf("%s: memory not measured: %+v", alg, m)
		}
		for _, e := range m.Encodings {
			if e.Bytes <= 0 {
				t.Errorf("%s: encoding %s: %d bytes", alg, e.Encoding, e.Bytes)
			}
		}
		if alg == "log" {
			if m.Entries <= 0 || m.BytesPerEntry <= 0 || m.Entries != m.ModelEntries {
				t.Errorf("log: entries %d (model %d), %.1f bytes per entry", m.Entries, m.ModelEntries, m.BytesPerEntry)
			}
		}
		t.Logf("%s: %+v", alg, m)
	}
}

// TestDeterministic: two replays with one client give the same JSON but
// for the timing.
func TestDeterministic(t *testing.T) {
	srv := StartForTest(t)
	tr := load(t, randomTrace(5, 1500, 10, 10e9, 1))
	for _, alg := range Algorithms {
		var out [2][]byte
		for i := range out {
			res := run(t, srv, alg, mustRule(t, "5/10s"), 1, 0, tr)
			res.Timing = summary.LiveTiming{}
			b, err := json.Marshal(res)
			if err != nil {
				t.Fatal(err)
			}
			out[i] = b
		}
		if !bytes.Equal(out[0], out[1]) {
			t.Errorf("%s: two replays differ:\n%s\n%s", alg, out[0], out[1])
		}
	}
}

// TestExistingServer replays against a server the harness does not own:
// its other keys are left alone, and the run's are deleted afterwards.
func TestExistingServer(t *testing.T) {
	srv := StartForTest(t)
	c := goredis.NewClient(&goredis.Options{Addr: srv.Addr})
	defer c.Close()
	ctx := context.Background()
	if err := c.Set(ctx, "someone-else", "1", 0).Err(); err != nil {
		t.Fatal(err)
	}
	tr := load(t, randomTrace(6, 500, 5, 10e9, 1))
	for _, alg := range Algorithms {
		for _, clients := range []int{1, 4} {
			res := run(t, srv, alg, mustRule(t, "5/10s"), clients, 0, tr)
			if !slices.Contains(res.Setup, "server="+srv.Addr) {
				t.Errorf("%s: setup %q, want the server given", alg, res.Setup)
			}
		}
	}
	if n := c.DBSize(ctx).Val(); n != 1 {
		t.Errorf("%d keys left, want only someone-else's", n)
	}
}

func TestErrors(t *testing.T) {
	srv := StartForTest(t)
	cost := load(t, &sliceReader{reqs: []traces.Request{{T: 1, Key: []byte("a"), Cost: 1}, {T: 2, Key: []byte("a"), Cost: 3}}})
	far := load(t, &sliceReader{reqs: []traces.Request{{T: 0, Key: []byte("a"), Cost: 1}, {T: MaxExact, Key: []byte("a"), Cost: 1}}})
	for _, c := range []struct {
		rule, alg string
		tr        *live.Trace
		want      string
	}{
		{"5/1s", "log", cost, "supports cost 1 only, and 1 requests have another cost (the first, request 2, costs 3)"},
		{"5/1s", "counter", far, "Redis replay needs less than 2^52 ns"},
		{"7/1000h", "token", cost, "B*W/gcd(L,W)"},
		{"5/1s", "gcra", cost, "no Redis implementation"},
	} {
		_, err := replay(t, srv, c.alg, mustRule(t, c.rule), 1, 0, c.tr)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %s: err = %v, want %q", c.rule, c.alg, err, c.want)
		}
	}
}
