package varnish

import (
	"context"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"ratebench/algorithms"
	"ratebench/live"
	"ratebench/summary"
)

// requireVarnish fails (never skips) when varnishd or the vmod is
// missing: a skipped live test proves nothing.
func requireVarnish(t *testing.T) string {
	t.Helper()
	v, err := Version(context.Background(), live.Options{})
	if err != nil {
		t.Fatalf("this test replays a trace through a real varnishd with vsthrottle: %v", err)
	}
	return v
}

// Serially, at the trace's own pace, real vsthrottle decides every
// request of the check's trace as its model does on the times the vmod
// read, and refuses some: the agreement is not vacuous.
func TestBursty3KeysAgreesWithModel(t *testing.T) {
	checkBursty3Keys(t, live.Bursty3Keys(), nil, "")
}

// Four times as fast, the rule 5/250ms: the period is written in
// milliseconds ("250.000ms"), and the vmod still decides as its model.
func TestBursty3KeysAtSpeed4AgreesWithModel(t *testing.T) {
	checkBursty3Keys(t, live.Bursty3Keys(), big.NewRat(4, 1), "")
}

// is_denied takes no cost: sent the check's requests (four times as
// fast), varnishd decides each as the model decides the check's trace
// with costs, one token per request, and not as the model charging the
// costs (one-hit off).
func TestBursty3KeysWithCostsAgreesWithModel(t *testing.T) {
	checkBursty3Keys(t, live.Bursty3KeysWithCosts(), big.NewRat(4, 1), "")
}

// With is_denied's block (ban=2s of the trace, 500 ms at speed 4): a
// refusal bans the key, and the requests in the ban take the tokens they
// find, as the model's blocked-takes says (on the trace's times, give or
// take 10 ms of lateness, at least 4 requests tell it).
func TestBursty3KeysWithBanAgreesWithModel(t *testing.T) {
	res := checkBursty3Keys(t, live.Bursty3Keys(), big.NewRat(4, 1), "ban=2s")
	if res.ModelSpec != "varnish:ban=500ms" {
		t.Errorf("model %q", res.ModelSpec)
	}
}

// checkBursty3Keys replays the check's trace (tr: with or without costs)
// through varnishd and requires its model to decide every request as it
// did; each of the model's deviations, turned off, must disagree with it
// somewhere (the deviations the trace exercises: all, but float, whose
// boundaries need exact times, and one-hit when every cost is 1).
func checkBursty3Keys(t *testing.T, tr *live.Trace, speed *big.Rat, variant string) *summary.Live {
	t.Logf("software: %s", requireVarnish(t))
	r, err := algorithms.ParseRule(live.CheckRule)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	target, rec := recording(Target())
	res, err := live.Run(ctx, target, r, tr, live.Options{Speed: speed, Variant: variant, Log: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	n := int64(len(tr.T))
	t.Logf("%d requests: %d admitted, %d refused; model on the vmod's times %d/%d; on the trace's times %d/%d; exact log %d/%d %+v",
		n, res.Admitted, res.Refused, res.Model.Agree, n, res.Intended.Agree, n, res.Log.Agree, n, res.Log.Classes)
	t.Logf("on the trace's times: %+v", res.Intended.Classes)
	if res.Model.Agree != n || len(res.Differences) != 0 {
		t.Errorf("vsthrottle disagrees with its model on %d of %d requests: %+v", n-res.Model.Agree, n, res.Differences)
	}
	if res.Refused == 0 || res.Admitted == 0 {
		t.Errorf("admitted %d, refused %d: the trace must cross the limit", res.Admitted, res.Refused)
	}
	if variant == "" && res.ModelSpec != "varnish" {
		t.Errorf("model %q", res.ModelSpec)
	}
	mr, err := live.ScaleRule(r, speed)
	if err != nil {
		t.Fatal(err)
	}
	m, err := algorithms.New(res.ModelSpec, mr)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range m.(algorithms.Product).Deviations() {
		spec := res.ModelSpec + ":without=" + d.Name
		other := replayAt(t, spec, mr, tr, rec.at)
		differ := 0
		for i := range other {
			if other[i] != rec.admit[i] {
				differ++
			}
		}
		t.Logf("%s on the vmod's times: %d of %d decided otherwise", spec, differ, n)
		if differ == 0 && d.Name != "float" && (d.Name != "one-hit" || tr.Cost != nil) {
			t.Errorf("%s decides every request as the software did: the check does not tell %s", spec, d.Name)
		}
	}
	return res
}

// recorder keeps what the software decided, and when.
type recorder struct {
	admit []bool
	at    []int64
}

type recordingSession struct {
	live.Session
	rec *recorder
}

func (s recordingSession) Decide(ctx context.Context, q live.Request) (live.Decision, error) {
	d, err := s.Session.Decide(ctx, q)
	if err == nil {
		s.rec.admit, s.rec.at = append(s.rec.admit, d.Admit), append(s.rec.at, d.At)
	}
	return d, err
}

// recording wraps target so that its sessions record their decisions.
func recording(target live.Target) (live.Target, *recorder) {
	rec := &recorder{}
	start := target.Start
	target.Start = func(ctx context.Context, r algorithms.Rule, tr *live.Trace, o live.Options) (live.Session, error) {
		s, err := start(ctx, r, tr, o)
		if err != nil {
			return nil, err
		}
		return recordingSession{s, rec}, nil
	}
	return target, rec
}

// replayAt decides tr through spec at the given times, each request with
// its cost, counting what it admits.
func replayAt(t *testing.T, spec string, r algorithms.Rule, tr *live.Trace, at []int64) []bool {
	t.Helper()
	if len(at) != len(tr.T) {
		t.Fatalf("%d times recorded for %d requests", len(at), len(tr.T))
	}
	out, err := live.Decide(spec, r, tr, at)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Close stops varnishd's manager and its worker process, and removes the
// directory; a varnishd stopped by hand is reported on the next request.
func TestCloseStopsEverything(t *testing.T) {
	requireVarnish(t)
	s, err := Start(context.Background(), algorithms.Rule{L: 5, W: int64(time.Second)}, live.Bursty3Keys(), live.Options{})
	if err != nil {
		t.Fatal(err)
	}
	vs := s.(*Session)
	dir := vs.proc.Dir
	if pids := processesIn(t, dir); len(pids) < 2 {
		t.Errorf("varnishd processes running in %s: %v; want its manager and worker", dir, pids)
	}
	d, err := s.Decide(context.Background(), live.Request{Key: "k0", T: 0})
	if err != nil || !d.Admit {
		t.Fatalf("first request: %v, %v; want admitted", d.Admit, err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for len(processesIn(t, dir)) > 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if pids := processesIn(t, dir); len(pids) > 0 {
		t.Errorf("varnishd processes left after Close: %v", pids)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("directory %s left: %v", dir, err)
	}
}

// processesIn lists the processes whose command line names dir (varnishd's
// manager and its forked worker carry the same one).
func processesIn(t *testing.T, dir string) []string {
	t.Helper()
	cmdlines, err := filepath.Glob("/proc/[0-9]*/cmdline")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, c := range cmdlines {
		b, err := os.ReadFile(c)
		if err == nil && strings.Contains(string(b), dir) && strings.Contains(string(b), "varnishd") {
			out = append(out, filepath.Base(filepath.Dir(c)))
		}
	}
	return out
}

// The VCL writes the limit and the period as the model reads them, and
// varnishd's compiler emits the period as the model computes it.
func TestVCLWritesTheRule(t *testing.T) {
	for _, c := range []struct {
		r    algorithms.Rule
		want string
	}{
		{algorithms.Rule{L: 5, W: int64(time.Second)}, "is_denied(req.http.X-Key, 5, 1s)"},
		{algorithms.Rule{L: 100, W: int64(time.Minute)}, "is_denied(req.http.X-Key, 100, 60s)"},
		{algorithms.Rule{L: 5, W: int64(1500 * time.Millisecond)}, "is_denied(req.http.X-Key, 5, 1500.000ms)"},
		{algorithms.Rule{L: 5, W: int64(250 * time.Microsecond)}, "is_denied(req.http.X-Key, 5, 0.250ms)"},
	} {
		text, err := VCL(c.r, 0)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(text, c.want) {
			t.Errorf("%v: the VCL has no %q", c.r, c.want)
		}
	}
	if text, err := VCL(algorithms.Rule{L: 5, W: int64(time.Second)}, int64(2500*time.Millisecond)); err != nil || !strings.Contains(text, "is_denied(req.http.X-Key, 5, 1s, 2500.000ms)") {
		t.Errorf("with a block of 2.5 s: %v", err)
	}
	if _, err := VCL(algorithms.Rule{L: 5, W: int64(time.Second) + 3}, 0); err == nil {
		t.Error("a window of 1s+3ns was written to the VCL")
	}
}

// varnishd's compiler turns the period into the C expression the model
// computes: the number with three decimals times the unit, 9.000 * 0.001
// for 9 ms (the double 0.009000000000000001, see products.VCLDuration).
func TestCompiledPeriod(t *testing.T) {
	requireVarnish(t)
	path, err := LookPath("")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	vclPath, err := writeVCL(dir, algorithms.Rule{L: 5, W: int64(9 * time.Millisecond)}, 0)
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(path, "-C", "-j", "none", "-n", filepath.Join(dir, "n"), "-f", vclPath).CombinedOutput()
	if err != nil {
		t.Fatalf("varnishd -C: %v: %s", err, lastLines(out))
	}
	c := strings.Join(strings.Fields(string(out)), " ")
	if want := "Vmod_vmod_vsthrottle_Func.is_denied(ctx, VRT_GetHdr(ctx, &VGC_HDR_REQ_X_2d_Key), 5, 9.000 * 0.001, 0 )"; !strings.Contains(c, want) {
		t.Errorf("the compiled VCL has no %q", want)
	}
}
