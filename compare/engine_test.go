package compare

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"

	"ratebench/algorithms"
	"ratebench/summary"
	"ratebench/traces"
)

const sec = int64(time.Second)

type rq struct {
	key     string
	t, cost int64
}

func mustRule(t *testing.T, s string) algorithms.Rule {
	t.Helper()
	r, err := algorithms.ParseRule(s)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func replay(t *testing.T, cfg Config, reqs []rq) *summary.Summary {
	t.Helper()
	return fed(t, cfg, reqs).Summary(summary.TraceInfo{Path: "test", Format: "memory"})
}

// fed returns an engine for cfg that has replayed reqs.
func fed(t *testing.T, cfg Config, reqs []rq) *Engine {
	t.Helper()
	e, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range reqs {
		if err := e.Add([]byte(q.key), q.t, q.cost); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

func findRun(t *testing.T, s *summary.Summary, mode, alg string) summary.Run {
	t.Helper()
	for _, r := range s.Runs {
		if r.Mode == mode && r.Algorithm == alg {
			return r
		}
	}
	t.Fatalf("no run %s/%s", mode, alg)
	return summary.Run{}
}

// docs/definitions.md §17.3: five requests in the first second of a window;
// at 33 s the log admits (its window (3s, 33s] is empty) and the counter
// refuses (it still charges 4.5): one under-admission, 3 s into the window.
func TestEarlyPreviousWindowIsOneUnderAdmission(t *testing.T) {
	t.Parallel()
	var reqs []rq
	for i := range 5 {
		reqs = append(reqs, rq{"k", int64(i) * 200_000_000, 1})
	}
	reqs = append(reqs, rq{"k", 33 * sec, 1})
	cfg := Config{Rules: []algorithms.Rule{mustRule(t, "5/30s")}, Algorithms: []string{"counter"}, Modes: []Mode{Independent}}
	s := replay(t, cfg, reqs)
	if len(s.Runs) != 2 || s.Runs[0].Algorithm != "log" || s.Runs[1].Algorithm != "counter" {
		t.Fatalf("runs: %+v", s.Runs)
	}
	c := s.Runs[1]
	if c.Requests != 6 || c.Admitted != 5 || c.Rejected != 1 || c.Disagree != 1 || c.Under != 1 || c.Over != 0 {
		t.Errorf("counter run: %+v", c)
	}
	if c.KeysUnder != 1 || c.KeysOver != 0 || c.KeysDisagree != 1 || c.Keys != 1 {
		t.Errorf("keys: %+v", c)
	}
	if c.Phase.Under[2] != 1 { // e/W = 3/30 = 0.1: bin 2 of 20
		t.Errorf("phase under: %v", c.Phase.Under)
	}
	if len(c.TopKeys) != 1 || c.TopKeys[0].Burst == nil || *c.TopKeys[0].Burst != 5 {
		t.Fatalf("top keys: %+v", c.TopKeys)
	}
	if k := c.TopKeys[0]; k.Key != "k" || k.Requests != 6 || k.Disagree != 1 || k.Under != 1 || k.Over != 0 {
		t.Errorf("top key: %+v", k)
	}
	if l := s.Runs[0]; l.Admitted != 6 || l.Disagree != 0 || l.Burst.Max != 5 {
		t.Errorf("log run: %+v", l)
	}
}

// docs/definitions.md §17.5: five requests on each side of a window edge. The
// fixed window admits all ten (burst 2L), the log five.
func TestBoundaryBurst(t *testing.T) {
	t.Parallel()
	var reqs []rq
	for range 5 {
		reqs = append(reqs, rq{"a", 59*sec + sec/2, 1})
	}
	for range 5 {
		reqs = append(reqs, rq{"a", 60*sec + sec/2, 1})
	}
	cfg := Config{Rules: []algorithms.Rule{mustRule(t, "5/1m")}, Algorithms: []string{"fixed", "counter"}, Modes: []Mode{Independent}}
	s := replay(t, cfg, reqs)
	log, fixed := findRun(t, s, "independent", "log"), findRun(t, s, "independent", "fixed")
	if log.Burst.Max != 5 || log.Burst.Ratio != 1 || log.Burst.KeysOverL != 0 {
		t.Errorf("log burst %+v", log.Burst)
	}
	if fixed.Burst.Max != 10 || fixed.Burst.Ratio != 2 || fixed.Burst.Key != "a" || fixed.Burst.KeysOverL != 1 {
		t.Errorf("fixed burst %+v", fixed.Burst)
	}
	if fixed.Over != 5 || fixed.Phase.Over[0] != 5 { // 0.5 s into a 60 s window: bin 0
		t.Errorf("fixed over %d, phase %v", fixed.Over, fixed.Phase.Over)
	}
	if mem := fixed.Memory; mem.PeakPerKey != 16 || mem.PeakTotal != 16 {
		t.Errorf("fixed memory %+v", mem)
	}
	if mem := log.Memory; mem.PeakPerKey != 8*5+8 || mem.PeakTotal != 48 {
		t.Errorf("log memory %+v", mem)
	}
}

// In shadow mode the counter's rate error is its estimate minus the log's
// exact count: at 35 s after a full previous window (requests at 1..25 s),
// the counter estimates 5*(25/30) = 4.1667 while the log holds the four
// requests at 7..25 s, those in (5s, 35s].
func TestRateErrorShadow(t *testing.T) {
	t.Parallel()
	reqs := []rq{{"k", 1 * sec, 1}, {"k", 7 * sec, 1}, {"k", 13 * sec, 1}, {"k", 19 * sec, 1}, {"k", 25 * sec, 1}, {"k", 35 * sec, 1}}
	cfg := Config{Rules: []algorithms.Rule{mustRule(t, "5/30s")}, Algorithms: []string{"counter", "token"}, Modes: []Mode{Shadow}}
	s := replay(t, cfg, reqs)
	c := findRun(t, s, "shadow", "counter")
	re := c.RateError
	if re == nil || re.Samples != 6 {
		t.Fatalf("rate error %+v", re)
	}
	// Errors: 0,0,0,0,0 in the first window (estimate = exact = count so far);
	// at 35s: estimate 25/6 = 4.1667, exact = 4 (7,13,19,25 s in (5s,35s]).
	want := 25.0/6 - 4
	if d := re.MaxAbs - want; d > 1e-9 || d < -1e-9 {
		t.Errorf("max error %v, want %v", re.MaxAbs, want)
	}
	if re.SamplesRel != 5 {
		t.Errorf("samples with exact > 0: %d, want 5", re.SamplesRel)
	}
	if tok := findRun(t, s, "shadow", "token"); tok.RateError != nil {
		t.Error("token has no window estimate, but reports a rate error")
	}
	if ind := findRun(t, s, "shadow", "log"); ind.RateError != nil {
		t.Error("the reference reports a rate error")
	}
	if c.Burst != nil || c.TopKeys[0].Burst != nil {
		t.Error("a shadow run reports a burst")
	}
}

func TestTimeGoingBackwardsIsAnError(t *testing.T) {
	t.Parallel()
	e, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Add([]byte("a"), 100, 1); err != nil {
		t.Fatal(err)
	}
	if err := e.Add([]byte("b"), 50, 1); err != nil { // another key may be earlier
		t.Fatal(err)
	}
	err = e.Add([]byte("a"), 99, 1)
	var oe *OrderError
	if !errors.As(err, &oe) || oe.T != 99 || oe.Prev != 100 || oe.Key != "a" {
		t.Fatalf("err = %v", err)
	}
	if got := err.Error(); got != `key "a": time goes backwards by 1ns, to 1970-01-01T00:00:00.000000099Z after 1970-01-01T00:00:00.0000001Z; use -reorder 1ns (ratebench inspect FILE reports the least that works)` {
		t.Errorf("message %q", got)
	}
	for _, bad := range []struct{ t, c int64 }{{-1, 1}, {200, 0}, {200, algorithms.MaxCost + 1}} {
		if err := e.Add([]byte("c"), bad.t, bad.c); err == nil {
			t.Errorf("Add(t=%d, cost=%d) accepted", bad.t, bad.c)
		}
	}
}

func randomTrace(seed uint64, n, keys int, w int64) []rq {
	rng := rand.New(rand.NewPCG(seed, seed+1))
	names := make([]string, keys)
	last := make([]int64, keys)
	for i := range names {
		names[i] = string(rune('a'+i%26)) + string(rune('a'+i/26%26))
		last[i] = rng.Int64N(w)
	}
	out := make([]rq, n)
	for i := range out {
		k := rng.IntN(keys)
		last[k] += int64(rng.ExpFloat64() * float64(w) / 6)
		c := int64(1)
		if rng.IntN(8) == 0 {
			c = 2
		}
		out[i] = rq{names[k], last[k], c}
	}
	return out
}

// Under --count all a window algorithm records every request whatever it or
// the reference decides, so shadow and independent must give the same runs.
func TestCountAllModesCoincide(t *testing.T) {
	t.Parallel()
	reqs := randomTrace(1, 5000, 30, 30*sec)
	base := Config{Rules: []algorithms.Rule{mustRule(t, "5/30s")}, Counts: []Count{CountAll},
		Algorithms: []string{"counter", "counter-lt", "counter-floor", "fixed", "buckets:3", "token"}}
	ind, sh := base, base
	ind.Modes, sh.Modes = []Mode{Independent}, []Mode{Shadow}
	a, b := replay(t, ind, reqs), replay(t, sh, reqs)
	if len(a.Runs) != 7 || len(b.Runs) != 7 {
		t.Fatalf("%d and %d runs", len(a.Runs), len(b.Runs))
	}
	for i := range a.Runs {
		ra, rb := a.Runs[i], b.Runs[i]
		if ra.Mode != "independent" || rb.Mode != "shadow" {
			t.Fatalf("modes %s %s", ra.Mode, rb.Mode)
		}
		if ra.Algorithm == "token" {
			continue // counts only what it admits: the modes differ by design
		}
		rb.Mode = ra.Mode
		if !reflect.DeepEqual(ra, rb) {
			t.Errorf("%s: independent and shadow differ under count all", ra.Algorithm)
		}
		if ra.Algorithm != "log" && ra.RateError == nil {
			t.Errorf("%s: no rate error under count all", ra.Algorithm)
		}
	}
	both := base
	both.Modes = []Mode{Independent, Shadow}
	s := replay(t, both, reqs)
	if len(s.Runs) != 7 || len(s.Notes) != 1 {
		t.Errorf("both modes under count all: %d runs, notes %q", len(s.Runs), s.Notes)
	}
}

// Under --count all the runs do not depend on the order of the modes: the
// window algorithms record every request, and token, gcra, leaky and xrate,
// which count only what they admit, record their own admissions in both
// orders, as in independent mode; the note says so.
func TestCountAllIgnoresModeOrder(t *testing.T) {
	t.Parallel()
	reqs := randomTrace(3, 3000, 20, 30*sec)
	base := Config{Rules: []algorithms.Rule{mustRule(t, "5/30s")}, Counts: []Count{CountAll},
		Algorithms: []string{"counter", "fixed", "token", "gcra", "leaky", "xrate"}}
	sf, is := base, base
	sf.Modes, is.Modes = []Mode{Shadow, Independent}, []Mode{Independent, Shadow}
	a, b := replay(t, sf, reqs), replay(t, is, reqs)
	a.Config.Modes = b.Config.Modes
	if ma, mb := marshal(t, a), marshal(t, b); !bytes.Equal(ma, mb) {
		t.Fatalf("-mode shadow,independent and independent,shadow differ under count all\n%s", firstDiff(ma, mb))
	}
	if len(a.Runs) != 7 {
		t.Fatalf("%d runs, want the log and 6 candidates once", len(a.Runs))
	}
	for _, r := range a.Runs {
		if r.Mode != "independent" {
			t.Errorf("%s: mode %s under count all, want independent", r.Algorithm, r.Mode)
		}
	}
	own := base
	own.Counts, own.Modes = []Count{CountAccepted}, []Mode{Independent}
	ind := replay(t, own, reqs)
	for _, alg := range []string{"token", "gcra", "leaky", "xrate"} {
		got, want := findRun(t, a, "independent", alg), findRun(t, ind, "independent", alg)
		if got.Admitted != want.Admitted || got.Admitted == findRun(t, a, "independent", "log").Admitted {
			t.Errorf("%s under count all admits %d, its own admissions (count accepted, independent) %d, the log %d",
				alg, got.Admitted, want.Admitted, findRun(t, a, "independent", "log").Admitted)
		}
	}
	want := "count all: the window algorithms record every request, so for them the independent and shadow modes coincide; " +
		"the runs under count all are made once, as independent, and the algorithms that count only what they admit (token, gcra, leaky, xrate) record their own admissions there"
	if len(a.Notes) != 1 || a.Notes[0] != want {
		t.Errorf("notes %q, want %q", a.Notes, want)
	}
}

// The figures of the traffic a run lets through (burst, the token bound,
// the client side, the top keys' bursts) are present exactly where the run
// records its own admissions, as docs/summary-schema.md says: in
// independent mode, for the log in every mode, and for the window
// algorithms under count all; the others are where they belong, across
// every mode and count policy.
func TestFiguresPresentWhereTheSchemaSays(t *testing.T) {
	t.Parallel()
	reqs := randomTrace(4, 3000, 20, 30*sec)
	window := map[string]bool{"counter": true, "counter-lt": true, "counter-floor": true, "fixed": true, "buckets:2": true}
	capacity := map[string]bool{"token": true, "gcra": true, "leaky": true, "xrate": true}
	for _, modes := range [][]Mode{{Independent}, {Shadow}, {Independent, Shadow}, {Shadow, Independent}} {
		cfg := Config{Rules: []algorithms.Rule{mustRule(t, "5/30s")}, Counts: []Count{CountAccepted, CountAll}, Modes: modes,
			Algorithms: []string{"counter", "counter-lt", "counter-floor", "fixed", "buckets:2", "token", "gcra", "leaky", "xrate"}}
		s := replay(t, cfg, reqs)
		if len(s.Runs) != 10*len(modes)+10 { // the log and 9 candidates per count and mode, one mode under count all
			t.Fatalf("modes %v: %d runs", modes, len(s.Runs))
		}
		for _, r := range s.Runs {
			where := fmt.Sprintf("modes %v: count %s, mode %s, %s", modes, r.Count, r.Mode, r.Algorithm)
			if r.Count == "all" && r.Mode != string(countAllMode(modes)) {
				t.Errorf("%s: count all runs in mode %s", where, r.Mode)
			}
			own := r.Mode == "independent" || r.Algorithm == "log" || (r.Count == "all" && window[r.Algorithm])
			check := func(what string, got, want bool) {
				if got != want {
					t.Errorf("%s: %s present = %v, want %v", where, what, got, want)
				}
			}
			check("burst", r.Burst != nil, own)
			check("client", r.Client != nil, own)
			check("token_bound", r.Bound != nil, own && capacity[r.Algorithm])
			check("rate_error", r.RateError != nil, window[r.Algorithm] && (r.Mode == "shadow" || r.Count == "all"))
			check("client.delay", r.Client != nil && r.Client.Delay != nil, own && r.Algorithm == "leaky")
			check("vs_token", r.VsToken != nil, r.Algorithm == "leaky")
			check("peer", r.Peer != nil, r.Algorithm == "xrate")
			if r.Algorithm != "log" && len(r.TopKeys) == 0 {
				t.Errorf("%s: no top keys to check", where)
			}
			for _, k := range r.TopKeys {
				check("top_keys.burst", k.Burst != nil, own)
			}
		}
	}
}

func TestRunOrderAndDeterminism(t *testing.T) {
	t.Parallel()
	reqs := randomTrace(2, 4000, 50, sec)
	cfg := Config{
		Rules:      []algorithms.Rule{mustRule(t, "5/1s"), mustRule(t, "20/2s")},
		Counts:     []Count{CountAccepted, CountAll},
		Algorithms: []string{"token", "counter", "log", "buckets:2"},
	}
	s := replay(t, cfg, reqs)
	var got []string
	for _, r := range s.Runs {
		got = append(got, r.Rule+" "+r.Count+" "+r.Mode+" "+r.Algorithm)
	}
	want := []string{}
	for _, rule := range []string{"5/1s", "20/2s"} {
		for _, cm := range [][2]string{{"accepted", "independent"}, {"accepted", "shadow"}, {"all", "independent"}} {
			for _, alg := range []string{"log", "token", "counter", "buckets:2"} {
				want = append(want, rule+" "+cm[0]+" "+cm[1]+" "+alg)
			}
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("run order:\n%q\nwant\n%q", got, want)
	}
	a, _ := s.Marshal()
	b, _ := replay(t, cfg, reqs).Marshal()
	if !bytes.Equal(a, b) {
		t.Fatal("two replays of the same trace give different summaries")
	}
	for _, r := range s.Runs {
		if r.Disagree != r.Over+r.Under || r.Admitted+r.Rejected != r.Requests || r.Requests != 4000 {
			t.Errorf("%s %s %s: inconsistent counts %+v", r.Rule, r.Mode, r.Algorithm, r)
		}
		if r.Algorithm == "log" && r.Count == "accepted" && r.Burst.Ratio > 1 {
			t.Errorf("log burst ratio %v above 1", r.Burst.Ratio)
		}
	}
}

// Algorithms names, before any request, the algorithms of the summary's
// runs, in their order: the log first, each candidate once (the same
// under several rules, or given twice), no product's companion.
func TestAlgorithmsAreTheRuns(t *testing.T) {
	t.Parallel()
	reqs := randomTrace(3, 2000, 20, sec)
	for _, cfg := range []Config{
		{Rules: []algorithms.Rule{mustRule(t, "10/1m"), mustRule(t, "5/1s")}, Algorithms: []string{"nginx", "counter", "gcra:B=3", "counter"}},
		{Layered: [][]algorithms.Rule{{mustRule(t, "2/1s"), mustRule(t, "6/30s")}}, Algorithms: []string{"token", "log"}},
		{Reference: "log:block=1m", Algorithms: []string{"counter:block=1m"}, Counts: []Count{CountAll}},
	} {
		e, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		before := e.Algorithms()
		for _, q := range reqs {
			if err := e.Add([]byte(q.key), q.t, q.cost); err != nil {
				t.Fatal(err)
			}
		}
		var runs []string
		for _, r := range e.Summary(summary.TraceInfo{Path: "test", Format: "memory"}).Runs {
			if !slices.Contains(runs, r.Algorithm) {
				runs = append(runs, r.Algorithm)
			}
		}
		if !reflect.DeepEqual(before, runs) {
			t.Errorf("%v: Algorithms %q, the runs' %q", cfg.Algorithms, before, runs)
		}
	}
}

// The token bucket's bound (docs/definitions.md §16.4) holds for token and gcra (with their own B) on any
// trace, including a burst of 2L at a window edge; the other algorithms do
// not report it, nor does shadow mode, where a bucket's admissions do not
// take its tokens.
func TestTokenBoundHolds(t *testing.T) {
	t.Parallel()
	reqs := randomTrace(3, 20000, 40, 30*sec)
	for range 5 {
		reqs = append(reqs, rq{"edge", 1000*sec - sec/2, 1})
	}
	for range 5 {
		reqs = append(reqs, rq{"edge", 1000*sec + sec/2, 1})
	}
	cfg := Config{Rules: []algorithms.Rule{mustRule(t, "5/30s")}, Algorithms: []string{"token", "gcra:B=3", "token:B=9", "fixed"}}
	s := replay(t, cfg, reqs)
	checked := 0
	for _, r := range s.Runs {
		switch r.Algorithm {
		case "token", "gcra:B=3", "token:B=9":
			if r.Mode == "shadow" {
				if r.Bound != nil {
					t.Errorf("shadow %s reports the token bound", r.Algorithm)
				}
				continue
			}
			want := map[string]int64{"token": 5, "gcra:B=3": 3, "token:B=9": 9}[r.Algorithm]
			if r.Bound == nil || r.Bound.B != want || r.Bound.Violations != 0 {
				t.Errorf("%s %s: bound %+v, want B=%d and no violation", r.Mode, r.Algorithm, r.Bound, want)
			}
			checked++
		default:
			if r.Bound != nil {
				t.Errorf("%s reports the token bound", r.Algorithm)
			}
		}
	}
	if checked != 3 {
		t.Errorf("%d token/gcra runs checked", checked)
	}
}

// The bound check itself must catch a sequence that breaks the bound: feed
// it the fixed window's 2L at an edge.
func TestBoundCheckCatchesViolations(t *testing.T) {
	t.Parallel()
	rule := mustRule(t, "5/30s")
	acc := newBoundAcc(rule, algorithms.NewGCRA(rule, 0))
	acc.grow(1)
	for i := range 10 { // 10 admissions within 2 s
		acc.observe(&observation{id: 0, t: 29*sec + int64(i)*sec/5, cost: 1, admit: true})
	}
	acc.observe(&observation{id: 0, t: 31 * sec, cost: 1}) // refused: not counted
	if acc.violations != 5 {
		t.Errorf("%d violations, want 5 (the 6th to 10th exceed 5 + 2s*5/30s)", acc.violations)
	}
}

// A token bucket's own admissions keep its bound by construction, so its
// run checks none: the check, a token bucket fed them, never lacks a token,
// for any capacity, costs and clock.
func TestTokenKeepsItsBound(t *testing.T) {
	t.Parallel()
	rule := mustRule(t, "5/30s")
	for _, b := range []int64{0, 1, 9} {
		tk := algorithms.NewToken(rule, b)
		if acc := newBoundAcc(rule, tk); acc == nil || acc.check != nil || acc.b != tk.Capacity() {
			t.Fatalf("B=%d: the token run's bound %+v, want its capacity and no check", b, acc)
		}
		check := &boundAcc{b: tk.Capacity(), check: algorithms.NewToken(rule, b)}
		tk.Grow(3)
		check.grow(3)
		admitted := 0
		for _, q := range randomTrace(uint64(b), 5000, 3, 30*sec) {
			id := int32(q.key[0] - 'a')
			admit := tk.Decide(id, q.t, q.cost)
			if admit {
				tk.Record(id, q.t, q.cost)
				admitted++
			}
			check.observe(&observation{id: id, t: q.t, cost: q.cost, admit: admit})
		}
		if check.violations != 0 || admitted == 0 {
			t.Errorf("B=%d: %d of the token bucket's %d admissions break its bound", b, check.violations, admitted)
		}
	}
}

// The burst of a run measured from the reference and the disagreements
// (count accepted) or from every request and the run's refusals (count
// all) equals the burst measured from a window of the run's own
// admissions: for plain and layered rules, with the plain log and the log
// behind a refusal cache as the reference, on clocks fine and coarse.
func TestBurstByDifference(t *testing.T) {
	t.Parallel()
	cfg := Config{
		Rules:      []algorithms.Rule{mustRule(t, "5/30s"), mustRule(t, "3/7s")},
		Layered:    [][]algorithms.Rule{{mustRule(t, "2/1s"), mustRule(t, "6/30s")}},
		Algorithms: []string{"counter", "counter-lt", "fixed", "token", "token:B=9", "buckets:3", "leaky", "counter:block=10s"},
		Modes:      []Mode{Independent, Shadow},
		Counts:     []Count{CountAccepted, CountAll},
	}
	blocked := cfg
	blocked.Layered = nil
	blocked.Reference = "log:block=10s"
	for i, c := range []Config{cfg, blocked} {
		for seed := uint64(10); seed < 16; seed++ {
			reqs := randomTrace(seed, 20000, 25, 30*sec)
			if seed >= 14 { // a clock of whole seconds: many requests of a key at one time, admitted and refused
				for j := range reqs {
					reqs[j].t -= reqs[j].t % sec
				}
			}
			a, _ := replay(t, c, reqs).Marshal()
			own := c
			own.tuning.ownBurst = true
			b, _ := replay(t, own, reqs).Marshal()
			if !bytes.Equal(a, b) {
				t.Fatalf("config %d, seed %d: the burst by difference and by own window disagree", i, seed)
			}
		}
	}
	s := replay(t, cfg, randomTrace(10, 20000, 25, 30*sec))
	for _, r := range s.Runs {
		if r.Algorithm == "fixed" && r.Mode == "independent" && r.Burst.Max <= 5 && r.Rule == "5/30s" {
			t.Errorf("fixed never exceeds L: the comparison lacks power")
		}
	}
}

// The largest cost a trace may hold is the largest a limiter accepts: the
// two packages define it each for itself (neither imports the other), and
// the engine that joins them must find them equal, or a valid trace could
// carry a cost no limiter takes.
func TestTraceAndLimiterMaxCostAgree(t *testing.T) {
	t.Parallel()
	if traces.MaxCost != algorithms.MaxCost {
		t.Errorf("traces.MaxCost = %d, algorithms.MaxCost = %d", int64(traces.MaxCost), int64(algorithms.MaxCost))
	}
}
