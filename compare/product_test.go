package compare

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"ratebench/algorithms"
	"ratebench/summary"
	"ratebench/traces"
)

// A product's analysis counts what separate runs count: the twin's
// disagreement with the log is the twin's run's, and the product with a
// deviation off disagrees with the log as that spec's own run does; the
// companions are not listed as runs; the shares follow from the counts;
// and shards merge to the whole replay's analysis.
func TestProductAnalysisMatchesSeparateRuns(t *testing.T) {
	t.Parallel()
	reqs := randomTrace(16, 6000, 20, 30*sec) // gaps of 5 s on average, about the rate of 10/1m
	rule := mustRule(t, "10/1m")
	modes := []Mode{Independent, Shadow}
	cfg := Config{Rules: []algorithms.Rule{rule}, Algorithms: []string{"nginx"}, Modes: modes, Deviations: true}
	s := replay(t, cfg, reqs)
	if len(s.Runs) != 2*2 || s.Schema != summary.SchemaV1_6 {
		t.Fatalf("%d runs (want the log and nginx per mode), schema %s", len(s.Runs), s.Schema)
	}
	sep := replay(t, Config{Rules: cfg.Rules, Modes: modes, Algorithms: []string{"token",
		"nginx:without=clock", "nginx:without=rate-truncation", "nginx:without=drain-truncation", "nginx:without=one-hit"}}, reqs)
	for _, m := range []string{"independent", "shadow"} {
		p := findRun(t, s, m, "nginx").Product
		if p == nil || p.Twin != "token" || len(p.Deviations) != 4 {
			t.Fatalf("%s: analysis %+v", m, p)
		}
		if tw := findRun(t, sep, m, "token"); p.TwinVsLog != (summary.Disagreement{Over: tw.Over, Under: tw.Under}) {
			t.Errorf("%s: twin vs log %+v, the token run's %d/%d", m, p.TwinVsLog, tw.Over, tw.Under)
		}
		if p.VsTwin.Total() == 0 && m == "independent" {
			t.Errorf("%s: nginx agrees with its twin on every request", m)
		}
		for _, d := range p.Deviations {
			r := findRun(t, sep, m, d.Without)
			if d.VsLog != (summary.Disagreement{Over: r.Over, Under: r.Under}) {
				t.Errorf("%s %s: vs log %+v, its run's %d/%d", m, d.Name, d.VsLog, r.Over, r.Under)
			}
			want := 0.0
			if p.VsTwin.Total() > 0 {
				want = float64(p.VsTwin.Total()-d.VsTwin.Total()) / float64(p.VsTwin.Total())
			}
			if d.Share != want {
				t.Errorf("%s %s: share %v, want %v", m, d.Name, d.Share, want)
			}
		}
	}
	// Each deviation matters somewhere: turning the rate's truncation off
	// removes disagreements with the twin at 10r/m (166 per second).
	if d := findRun(t, s, "independent", "nginx").Product.Deviations[1]; d.Name != "rate-truncation" || d.Share <= 0 {
		t.Errorf("rate-truncation: %+v", d)
	}
	whole, _ := json.Marshal(s.Runs)
	var parts []*summary.Summary
	for i := range 3 {
		c := cfg
		c.Shard = &summary.Shard{Index: i, Count: 3}
		parts = append(parts, replay(t, c, reqs))
	}
	m, err := summary.Merge(parts)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := json.Marshal(m.Runs); string(got) != string(whole) {
		t.Errorf("merged shards differ from the whole replay")
	}
}

// A product listed with its twin is weighed against that run, and the
// twin's run is listed once; a layered rule weighs no product.
func TestProductTwinListedOnce(t *testing.T) {
	t.Parallel()
	reqs := randomTrace(17, 2000, 8, time.Minute.Nanoseconds())
	cfg := Config{Rules: []algorithms.Rule{mustRule(t, "10/1m")}, Algorithms: []string{"token", "nginx"}, Modes: []Mode{Independent}}
	s := replay(t, cfg, reqs)
	if len(s.Runs) != 3 {
		t.Fatalf("%d runs, want log, token, nginx", len(s.Runs))
	}
	tw := findRun(t, s, "independent", "token")
	if p := findRun(t, s, "independent", "nginx").Product; p == nil || p.TwinVsLog != (summary.Disagreement{Over: tw.Over, Under: tw.Under}) {
		t.Errorf("analysis %+v, the token run %d/%d", p, tw.Over, tw.Under)
	}
	ly := replay(t, Config{Layered: [][]algorithms.Rule{{mustRule(t, "10/1m"), mustRule(t, "3/1s")}}, Algorithms: []string{"nginx:rate=10r/m"}, Modes: []Mode{Independent}}, reqs)
	for _, r := range ly.Runs {
		if r.Product != nil {
			t.Errorf("layered %s: analysis %+v", r.Algorithm, r.Product)
		}
	}
}

// A limiter that couples keys (nginx:zone) is replayed by one worker
// whatever -workers says, never in shards, never for one key alone.
func TestCoupledKeysReplayedInOnePass(t *testing.T) {
	t.Parallel()
	// Key a fills its bucket at 0 and returns at 60.2 s, after key b's
	// node, created at 60.1 s, has dropped a's from the zone: a starts
	// afresh and has its 10 admitted, not 9 (see nginx's zone test). b is
	// a key that four workers would give another worker than a's.
	b := "b"
	for i := 0; workerOf(traces.KeyHash([]byte(b)), 4) == workerOf(traces.KeyHash([]byte("a")), 4); i++ {
		b = fmt.Sprintf("b%d", i)
	}
	var reqs []rq
	for range 10 {
		reqs = append(reqs, rq{"a", 0, 1})
	}
	reqs = append(reqs, rq{b, 60100 * sec / 1000, 1})
	for range 10 {
		reqs = append(reqs, rq{"a", 60200 * sec / 1000, 1})
	}
	cfg := Config{Rules: []algorithms.Rule{mustRule(t, "10/1m")}, Algorithms: []string{"nginx:zone"}, Modes: []Mode{Independent}}
	one := replay(t, cfg, reqs)
	if r := findRun(t, one, "independent", "nginx:zone"); r.Admitted != 21 {
		t.Errorf("nginx:zone admitted %d, want 21", r.Admitted)
	}
	cfg.Workers = 4
	four := replay(t, cfg, reqs)
	a, _ := json.Marshal(one)
	f, _ := json.Marshal(four)
	if string(a) != string(f) {
		t.Error("four workers give another summary")
	}
	if len(one.Notes) != 1 || one.Notes[0] != "nginx:zone couples keys (a key's decision depends on the others' requests), so every key was replayed in one pass, in the trace's order" {
		t.Errorf("notes %q", one.Notes)
	}
	cfg.Shard = &summary.Shard{Index: 0, Count: 2}
	if _, err := New(cfg); err == nil || !strings.Contains(err.Error(), "not shard 0/2") {
		t.Errorf("a shard: %v", err)
	}
	if _, err := NewKeyReplay(cfg.Rules, "log", []string{"nginx:zone"}, CountAccepted, Independent); err == nil || !strings.Contains(err.Error(), "one key's requests alone") {
		t.Errorf("one key: %v", err)
	}
}

// A product's companions (its twin, its runs with one deviation off)
// keep only their totals: a key's row holds the log's and the listed
// runs' alone, here the log and nginx in two modes, beside 5 companions
// per mode with Deviations, its twin alone without.
func TestCompanionsKeepNoRow(t *testing.T) {
	rule := mustRule(t, "10/1m")
	for _, c := range []struct {
		deviations bool
		companions int
	}{{true, 10}, {false, 2}} {
		e := fed(t, Config{Rules: []algorithms.Rule{rule}, Algorithms: []string{"nginx"}, Modes: []Mode{Independent, Shadow}, Deviations: c.deviations}, randomTrace(3, 500, 5, 30*sec))
		w := e.workers[0]
		companions := 0
		for _, c := range w.groups[0].cands {
			if c.companion {
				companions++
			}
		}
		if companions != c.companions || len(w.rows.row(0)) != 3 || len(w.runs()) != 3 {
			t.Errorf("deviations %v: %d companions, rows of %d runs (%d with rows); want %d and 3", c.deviations, companions, len(w.rows.row(0)), len(w.runs()), c.companions)
		}
	}
}

// Without Deviations a product is replayed once, beside its twin: its
// analysis against the twin is the one Deviations gives, no deviation is
// listed and the summary records that none was weighed (schema 1.9); every
// other figure is the same. Its shards merge to the whole replay, and do
// not merge with shards that weighed the deviations. A product with every
// deviation off has none to weigh: its summary is the same either way.
func TestProductWithoutDeviations(t *testing.T) {
	t.Parallel()
	reqs := randomTrace(16, 6000, 20, 30*sec)
	rule := mustRule(t, "10/1m")
	cfg := Config{Rules: []algorithms.Rule{rule}, Algorithms: []string{"nginx"}, Modes: []Mode{Independent, Shadow}}
	with := cfg
	with.Deviations = true
	s, w := replay(t, cfg, reqs), replay(t, with, reqs)
	if s.Schema != summary.SchemaV1_9 || w.Schema != summary.SchemaV1_6 || len(s.Runs) != len(w.Runs) {
		t.Fatalf("schemas %s and %s, %d and %d runs", s.Schema, w.Schema, len(s.Runs), len(w.Runs))
	}
	for i := range s.Runs {
		p, pw := s.Runs[i].Product, w.Runs[i].Product
		if (p == nil) != (s.Runs[i].Algorithm == "log") {
			t.Fatalf("%s: analysis %+v", s.Runs[i].Algorithm, p)
		}
		if p == nil {
			continue
		}
		if !p.DeviationsNotMeasured || p.Deviations != nil || pw.DeviationsNotMeasured || len(pw.Deviations) != 4 {
			t.Errorf("%s: not measured %v with %d deviations; with Deviations %v with %d", s.Runs[i].Mode, p.DeviationsNotMeasured, len(p.Deviations), pw.DeviationsNotMeasured, len(pw.Deviations))
		}
		if p.Twin != pw.Twin || p.VsTwin != pw.VsTwin || p.TwinVsLog != pw.TwinVsLog {
			t.Errorf("%s: against the twin %+v, with Deviations %+v", s.Runs[i].Mode, p, pw)
		}
		if s.Runs[i].Mode == "independent" && p.VsTwin.Total() == 0 {
			t.Error("nginx agrees with its twin on every request")
		}
		p.DeviationsNotMeasured, p.Deviations = false, pw.Deviations
	}
	if a, b := jsonOf(t, s.Runs), jsonOf(t, w.Runs); a != b {
		t.Error("the runs differ beyond the deviations")
	}
	s = replay(t, cfg, reqs)
	whole := jsonOf(t, s.Runs)
	var parts, weighed []*summary.Summary
	for i := range 2 {
		c, cw := cfg, with
		c.Shard, cw.Shard = &summary.Shard{Index: i, Count: 2}, &summary.Shard{Index: i, Count: 2}
		parts, weighed = append(parts, replay(t, c, reqs)), append(weighed, replay(t, cw, reqs))
	}
	m, err := summary.Merge(parts)
	if err != nil {
		t.Fatal(err)
	}
	if got := jsonOf(t, m.Runs); got != whole || m.Schema != summary.SchemaV1_9 {
		t.Errorf("merged shards differ from the whole replay (schema %s)", m.Schema)
	}
	for want, mixed := range map[string][]*summary.Summary{"without -deviations, part 1 with:": {parts[0], weighed[1]}, "with -deviations, part 1 without:": {weighed[0], parts[1]}} {
		_, err := summary.Merge(mixed)
		if err == nil || !strings.Contains(err.Error(), "part 0 was replayed "+want) || !strings.Contains(err.Error(), "the products' deviations are weighed in every part or in none") {
			t.Errorf("shards with and without the deviations merged: %v, want %q", err, want)
		}
	}
	off := "nginx:without=clock:without=rate-truncation:without=drain-truncation:without=one-hit"
	cfg.Algorithms, with.Algorithms = []string{off}, []string{off}
	if a, b := jsonOf(t, replay(t, cfg, reqs)), jsonOf(t, replay(t, with, reqs)); a != b {
		t.Errorf("%s: another summary without Deviations", off)
	}
	if p := findRun(t, replay(t, cfg, reqs), "independent", off).Product; p == nil || p.DeviationsNotMeasured || len(p.Deviations) != 0 || p.VsTwin.Total() != 0 {
		t.Errorf("%s: analysis %+v", off, p)
	}
}

// A set of Algorithms ("products") is read against every rule: a product
// one rule refuses (under 5/30s envoy and kong, whose windows are whole
// units, AWS WAF, whose windows are 1, 2, 5 or 10 minutes, and Cloudflare's
// rules, whose periods are 10 s to an hour but not 30 s, and DRF, whose
// are 1s, 1m, 1h or 24h) is left out
// of every experiment, said by Skipped and in the summary's notes, and a
// layered rule's layers each count as a rule; named in the list, the same
// product is refused.
func TestSetsLeaveOutWhatARuleRefuses(t *testing.T) {
	t.Parallel()
	minute, half := mustRule(t, "10/1m"), mustRule(t, "5/30s")
	for _, cfg := range []Config{
		{Rules: []algorithms.Rule{minute, half}, Algorithms: []string{"products"}},
		{Layered: [][]algorithms.Rule{{minute, half}}, Algorithms: []string{"log", "products"}},
	} {
		e, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		var left []string
		for _, s := range e.Skipped() {
			left = append(left, s.Spec)
		}
		if strings.Join(left, ",") != "envoy,kong,aws-waf,cloudflare-waf,drf-throttling" {
			t.Errorf("%v: left out %v, want envoy, kong, aws-waf, cloudflare-waf and drf-throttling", cfg.Rules, left)
		}
		algs := e.Algorithms()
		if len(algs) != len(algorithms.Products())-len(left)+1 || algs[0] != "log" || slices.ContainsFunc(algs, func(a string) bool { return slices.Contains(left, a) }) {
			t.Errorf("runs of %v", algs)
		}
		if len(e.notes) < 2 || e.notes[0] != e.Skipped()[0].String() || e.notes[1] != e.Skipped()[1].String() {
			t.Errorf("notes %q", e.notes)
		}
	}
	if _, err := New(Config{Rules: []algorithms.Rule{minute, half}, Algorithms: []string{"products", "kong"}}); err == nil || !strings.Contains(err.Error(), `algorithm "kong"`) {
		t.Errorf("kong named under 5/30s: %v", err)
	}
}

// jsonOf is v as JSON, to compare whole values.
func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
