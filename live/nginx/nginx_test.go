package nginx

import (
	"context"
	"errors"
	"math/big"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"ratebench/algorithms"
	"ratebench/generators"
	"ratebench/live"
	"ratebench/summary"
)

// requireNginx fails (never skips) when nginx is missing: CI installs it,
// and a skipped live test proves nothing.
func requireNginx(t *testing.T) {
	t.Helper()
	if _, err := LookPath(""); err != nil {
		t.Fatalf("these tests replay traces through a real nginx: %v", err)
	}
}

func genTrace(t *testing.T, spec string) *live.Trace {
	t.Helper()
	g, err := generators.New(spec, generators.Params{})
	if err != nil {
		t.Fatal(err)
	}
	tr, err := live.Load(g, "gen", false)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// watched is a session whose decisions and analysis a test is told of.
type watched struct {
	live.Session
	decided  func()
	analyzed func(*live.Analysis)
}

func (w *watched) Decide(ctx context.Context, q live.Request) (live.Decision, error) {
	d, err := w.Session.Decide(ctx, q)
	if err == nil && w.decided != nil {
		w.decided()
	}
	return d, err
}

func (w *watched) Analyze(ctx context.Context, a *live.Analysis) error {
	err := w.Session.Analyze(ctx, a)
	if w.analyzed != nil {
		w.analyzed(a)
	}
	return err
}

// watch is Target, its session started told to started and wrapped in w.
func watch(started func(*session), w *watched) live.Target {
	tg := Target
	tg.Start = func(ctx context.Context, r algorithms.Rule, tr *live.Trace, o live.Options) (live.Session, error) {
		s, err := Start(ctx, r, tr, o)
		if err != nil {
			return nil, err
		}
		if started != nil {
			started(s.(*session))
		}
		w.Session = s
		return w, nil
	}
	return tg
}

var rule5 = algorithms.Rule{L: 5, W: 1e9}

func replay(t *testing.T, tg live.Target, tr *live.Trace, o live.Options) *summary.Live {
	t.Helper()
	res, err := live.Run(context.Background(), tg, rule5, tr, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("nginx against its model on nginx's clock: %+v", res.Model)
	return res
}

// On a serial replay, real nginx decides every request as its model does
// when the model is fed the clock nginx decided on; and the replay refuses
// some requests, so the agreement is not vacuous.
func TestSerialReplayAgreesWithModel(t *testing.T) {
	requireNginx(t)
	tr := genTrace(t, "mix:poisson=0.5,onoff=0.3,boundary=0.2,requests=600,keys=6,rate=2,seed=3")
	// 60 s of trace at speed 20: 3 s, at 100r/s.
	res := replay(t, Target, tr, live.Options{Speed: big.NewRat(20, 1)})
	if res.Model.Disagree() != 0 {
		t.Errorf("nginx and its model disagree on %d requests: %+v", res.Model.Disagree(), res.Model.Classes)
	}
	if res.Admitted == 0 || res.Refused == 0 {
		t.Errorf("admitted %d, refused %d: want both", res.Admitted, res.Refused)
	}
	if res.Admitted+res.Refused != int64(len(tr.T)) || res.DecisionClock == nil || res.DecisionClock.OutsideBracket != 0 || res.DecisionClock.Reordered != 0 {
		t.Errorf("decisions %d+%d of %d, clock %+v", res.Admitted, res.Refused, len(tr.T), res.DecisionClock)
	}
	if strings.Join(res.Setup, " ") != "rate=100r/s burst=4 nodelay" || res.ModelSpec != "nginx:rate=100r/s:burst=4:zone" || len(res.Views) != 1 {
		t.Errorf("setup %q, model %q, views %+v", res.Setup, res.ModelSpec, res.Views)
	}
}

// limit_req takes no cost: sent the requests of a trace with costs, nginx
// decides each as its model does counting one per request, on nginx's
// clock, and otherwise than the model charging the costs (one-hit off) on
// some.
func TestSerialReplayWithCostsAgreesWithModel(t *testing.T) {
	requireNginx(t)
	tr := genTrace(t, "mix:poisson=0.5,onoff=0.3,boundary=0.2,requests=600,keys=6,rate=2,seed=3").WithCosts(3)
	var a *live.Analysis
	res := replay(t, watch(nil, &watched{analyzed: func(x *live.Analysis) { a = x }}), tr, live.Options{Speed: big.NewRat(20, 1)})
	if res.Model.Disagree() != 0 || res.Admitted == 0 || res.Refused == 0 {
		t.Errorf("nginx and its model disagree on %d requests (%d admitted, %d refused): %+v", res.Model.Disagree(), res.Admitted, res.Refused, res.Model.Classes)
	}
	charged, err := a.Decide(res.ModelSpec+":without=one-hit", a.Order, a.At)
	if err != nil {
		t.Fatal(err)
	}
	differ := 0
	for i := range a.Real {
		if a.Real[i] != charged[i] {
			differ++
		}
	}
	t.Logf("%s charging the costs decides %d of %d requests otherwise than nginx", res.ModelSpec, differ, len(a.Real))
	if differ == 0 {
		t.Error("the model charging the costs decides every request as nginx: the trace does not tell one-hit")
	}
}

// A replay cancelled while it runs (Ctrl-C in the command) returns at once
// with the context's error, and nginx is gone.
func TestCancelStopsNginx(t *testing.T) {
	requireNginx(t)
	tr := genTrace(t, "poisson:requests=100000,keys=10,rate=1,seed=1") // hours of trace
	ctx, cancel := context.WithCancel(context.Background())
	pid := 0
	// Cancelled mid-replay: once nginx has answered a request.
	tg := watch(func(s *session) { pid = s.srv.Pid() }, &watched{decided: cancel})
	start := time.Now()
	_, err := live.Run(ctx, tg, rule5, tr, live.Options{Clients: 2})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Run = %v, want context.Canceled", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("Run took %v after its cancel", d)
	}
	if pid == 0 {
		t.Fatal("nginx never started")
	}
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("nginx (pid %d) still there after the cancel: kill 0 = %v", pid, err)
	}
}

// A speed at which nginx cannot express the scaled rate is refused, naming
// the speeds that work.
func TestSpeedNginxCannotExpress(t *testing.T) {
	r := algorithms.Rule{L: 7, W: 60e9}
	_, err := Scaled(r, big.NewRat(1, 2))
	if err == nil || !strings.Contains(err.Error(), "multiples of 1/7") {
		t.Fatalf("Scaled = %v, want a refusal naming the multiples of 1/7", err)
	}
	if rate, err := Scaled(r, big.NewRat(3, 7)); err != nil || rate != "3r/m" {
		t.Fatalf("Scaled at 3/7 = %q, %v; want 3r/m", rate, err)
	}
	if rate, err := Scaled(algorithms.Rule{L: 5, W: 30e9}, big.NewRat(20, 1)); err != nil || rate != "200r/m" {
		t.Fatalf("Scaled 5/30s at 20 = %q, %v; want 200r/m", rate, err)
	}
	// The model is the check before anything starts: it refuses the speed
	// too, a variant nginx does not take, and an address off the loopback.
	for _, o := range []live.Options{{Speed: big.NewRat(1, 2)}, {Variant: "burst=x"}, {Variant: "rate=3"}, {Addr: "192.0.2.1:8080"}} {
		if _, err := Model(r, o); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
	if spec, err := Model(algorithms.Rule{L: 3, W: 1e9}, live.Options{Speed: big.NewRat(30, 1), Variant: "burst=7:delay=2"}); err != nil || spec != "nginx:rate=90r/s:burst=7:zone" {
		t.Errorf("3/1s at 30, burst=7:delay=2: %q, %v", spec, err)
	}
}

// With concurrent connections nginx's order is not the trace's, but fed
// nginx's clock, connection by connection, in nginx's order, the model
// still decides every request as nginx did.
func TestConcurrentReplayAgreesWithModel(t *testing.T) {
	requireNginx(t)
	tr := genTrace(t, "mix:poisson=0.5,onoff=0.3,boundary=0.2,requests=600,keys=6,rate=2,seed=4")
	res := replay(t, Target, tr, live.Options{Speed: big.NewRat(20, 1), Clients: 4})
	if res.Model.Disagree() != 0 || res.DecisionClock.Connections != 4 {
		t.Errorf("nginx and its model disagree on %d requests (%+v), over %d connections", res.Model.Disagree(), res.Model.Classes, res.DecisionClock.Connections)
	}
}

// The configuration carries the rule as nginx must write it, and the
// access log's format what the analysis reads.
func TestConfFile(t *testing.T) {
	conf := ConfFile("/tmp/x", "127.0.0.1", 8080, Limit{Rate: "166r/m", Burst: 9, NoDelay: true})
	for _, want := range []string{
		"limit_req_zone $http_x_ratebench_key zone=ratebench:1024k rate=166r/m;",
		"limit_req zone=ratebench burst=9 nodelay;",
		"limit_req_status 429;",
		"listen 127.0.0.1:8080;",
		"master_process off;",
		"log_format ratebench '$http_x_ratebench_id $status $msec $connection $connection_requests $connection_time $request_time';",
		`access_log "/tmp/x/access.log" ratebench;`,
	} {
		if !strings.Contains(conf, want) {
			t.Errorf("nginx.conf lacks %q:\n%s", want, conf)
		}
	}
	if conf := ConfFile("/tmp/x", "127.0.0.1", 1, Limit{Rate: "1r/s", Burst: 3, Delay: 2}); !strings.Contains(conf, "limit_req zone=ratebench burst=3 delay=2;") {
		t.Errorf("delay=N not written:\n%s", conf)
	}
}

// The access log is read line by line; a last line still being written is
// left for the next read, and a bad line names the file and line.
func TestParseLog(t *testing.T) {
	p := t.TempDir() + "/access.log"
	os.WriteFile(p, []byte("0 200 1796143236.070 2 1 0.000 0.000\n1 429 1796143236.071 2 2 0.012 0.000\n2 200 17961"), 0o644)
	ls, err := ParseLog(p)
	if err != nil || len(ls) != 2 || ls[1] != (Logged{ID: 1, Status: 429, MsecMS: 1796143236071, Conn: 2, ConnMS: 12, Line: 2}) {
		t.Fatalf("ParseLog = %+v, %v", ls, err)
	}
	os.WriteFile(p, []byte("0 200 1796143236.070 2 1 0.000 0.000\nx 200 1.000 2 1 0.000 0.000\n"), 0o644)
	if _, err := ParseLog(p); err == nil || !strings.Contains(err.Error(), "access.log:2:") {
		t.Fatalf("ParseLog of a bad line = %v", err)
	}
}
