// Package varnish is the live target vsthrottle: a real varnishd on a
// loopback port whose VCL asks varnish-modules' vsthrottle.is_denied for
// each request.
//
// # What it starts
//
// Start writes the VCL (vsthrottle.vcl, the rule's limit and period as the
// model writes them, products.VCLDuration) into a fresh directory and
// runs varnishd in the foreground there: -F, -j none (no jail: it runs as
// the user who starts it, root or not), its own -n working directory, -a
// on a free port of 127.0.0.1, -f the VCL, -s malloc,16m. The VCL has no
// backend: it answers every request itself, 200 when
// vsthrottle.is_denied(X-Key, L, W) admits it and 429 when it refuses.
// The variant ban=D (a duration of the trace, scaled by the speed as W is)
// passes is_denied its fourth argument, block = D, modelled as
// vsthrottle:ban=D. Close stops varnishd (SIGTERM, which stops its worker
// process too; the kernel kills it if the harness dies) and removes the
// directory.
//
// # The clock it decides on
//
// varnishd runs on its own clock, VTIM_mono: the replay sends a request at
// trace time t (t - first)/speed after the first, with the rule scaled by
// the speed (live.Run, live.ScaleRule). The time it reports for each
// decision is the vmod's own clock: the VCL reads VTIM_mono just before and
// just after is_denied, through vsthrottle.blocked() on a bucket of its
// own that GET /clock blocked for 100000 s (blocked returns the block's end
// less VTIM_mono), in whole nanoseconds; the decision's time is their
// midpoint, counted from the first request's, on the replay's (scaled)
// timeline. The two readings are typically 5 µs apart (tens of µs when the
// machine is busy), so the model decides on the times the vmod read to
// within a few µs, rather than on when the harness sent or heard; a
// decision moves only when a refill lands that close to a whole token. On
// the check's trace the nearest is 2 ms away (at 5/1s, a delta of 202 ms
// from the key's last admission).
//
// A test (vmod_test.go) also drives the installed vmod itself on the
// trace's clock: testdata/drive.c loads libvmod_vsthrottle.so with
// VTIM_mono replaced by the request's time, so that the float roundings at
// whole tokens, which real time never hits, are checked too.
package varnish

import (
	"bytes"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"text/template"
	"time"

	"ratebench/algorithms"
	"ratebench/algorithms/products"
	"ratebench/internal/childproc"
	"ratebench/live"
)

//go:embed vsthrottle.vcl
var vclTemplate string

var vcl = template.Must(template.New("vsthrottle.vcl").Parse(vclTemplate))

// Requires is what must be installed.
const Requires = "the Debian packages varnish and varnish-modules (apt-get install varnish varnish-modules)"

func init() { live.Register(Target()) }

// Target is vsthrottle's live target.
func Target() live.Target {
	return live.Target{
		Name:     "varnish",
		About:    "varnish-modules' vsthrottle.is_denied, a varnishd on a loopback port answering 200 or 429",
		Requires: Requires,
		Variants: []string{"", "ban=2s", "ban=30s"},
		Checks:   []string{"", "ban=2s"},
		Version:  Version,
		Model: func(r algorithms.Rule, o live.Options) (string, error) {
			ban, err := Ban(o)
			if err != nil {
				return "", err
			}
			v, err := products.NewVsthrottle(r, ban)
			if err != nil {
				return "", err
			}
			return v.Name(), nil
		},
		Start: Start,
	}
}

// Ban is the block the variant asks for ("ban=D", any duration D of the
// trace), scaled by the speed: 0 for the default variant.
func Ban(o live.Options) (int64, error) {
	if o.Variant == "" {
		return 0, nil
	}
	v, ok := strings.CutPrefix(o.Variant, "ban=")
	d, err := time.ParseDuration(v)
	if !ok || err != nil || d <= 0 {
		return 0, fmt.Errorf("live varnish: no variant %q (want ban=D, D a positive duration, e.g. ban=2s)", o.Variant)
	}
	scaled, err := live.ScaleRule(algorithms.Rule{L: 1, W: int64(d)}, o.Speed)
	if err != nil {
		return 0, fmt.Errorf("live varnish: the ban %s: %w", d, err)
	}
	return scaled.W, nil
}

// LookPath finds binary, or varnishd from $PATH and else /usr/sbin.
func LookPath(binary string) (string, error) {
	if binary != "" {
		return exec.LookPath(binary)
	}
	path, err := exec.LookPath("varnishd")
	if err == nil {
		return path, nil
	}
	if p, err2 := exec.LookPath("/usr/sbin/varnishd"); err2 == nil {
		return p, nil
	}
	return "", fmt.Errorf("varnishd not found (%w); install %s", err, Requires)
}

// Version names varnishd's version ("varnish-7.1.1 revision 7cee1c5...")
// and checks that it has the vmod vsthrottle: in a vmod directory of the
// usual places, or else by compiling the VCL (varnishd -C). Each program
// it runs has childproc.StartTimeout to finish.
func Version(ctx context.Context, o live.Options) (string, error) {
	path, err := LookPath(o.Binary)
	if err != nil {
		return "", err
	}
	out, err := childproc.Probe(ctx, path, "-V")
	if childproc.Stopped(err) {
		return "", fmt.Errorf("live varnish: %w", err)
	}
	first, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	if err != nil || !strings.Contains(first, "varnish-") {
		return "", fmt.Errorf("%s -V: %v: %s; install %s", path, err, first, Requires)
	}
	version := strings.Trim(strings.TrimPrefix(first, "varnishd "), "()")
	if found, _ := filepath.Glob("/usr/lib/*/varnish/vmods/libvmod_vsthrottle.so"); len(found) == 0 {
		if err := compiles(ctx, path); err != nil {
			return "", err
		}
	}
	if v := debianVersion(ctx, "varnish-modules"); v != "" {
		version += ", varnish-modules " + v
	}
	return version, nil
}

// compiles checks that varnishd at path compiles a VCL importing
// vsthrottle.
func compiles(ctx context.Context, path string) error {
	dir, err := os.MkdirTemp("", "ratebench-varnish-check-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	vclPath, err := writeVCL(dir, algorithms.Rule{L: 1, W: int64(time.Second)}, 0)
	if err != nil {
		return err
	}
	if out, err := childproc.Probe(ctx, path, "-C", "-j", "none", "-n", filepath.Join(dir, "n"), "-f", vclPath); childproc.Stopped(err) {
		return fmt.Errorf("live varnish: %w", err)
	} else if err != nil {
		return fmt.Errorf("varnishd cannot compile a VCL importing vsthrottle (%v: %s); is the vmod installed? it needs %s", err, lastLines(out), Requires)
	}
	return nil
}

// debianVersion is the installed version of a Debian package, "" when
// dpkg does not know it (or is stopped: childproc.Probe).
func debianVersion(ctx context.Context, pkg string) string {
	out, err := childproc.Probe(ctx, "dpkg-query", "-W", "-f", "${Version}", pkg)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

func lastLines(out []byte) string {
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) > 4 {
		lines = lines[len(lines)-4:]
	}
	return strings.Join(lines, " | ")
}

// VCL returns the VCL for rule r and block ban ns (0: none):
// is_denied(X-Key, L, W) or is_denied(X-Key, L, W, ban), the durations as
// products.VCLDuration writes them.
func VCL(r algorithms.Rule, ban int64) (string, error) {
	if _, err := products.NewVsthrottle(r, ban); err != nil {
		return "", err
	}
	args := []string{strconv.FormatInt(r.L, 10)}
	for _, d := range []int64{r.W, ban} {
		if d == 0 {
			continue
		}
		lit, _, err := products.VCLDuration(d)
		if err != nil {
			return "", err
		}
		args = append(args, lit)
	}
	var b bytes.Buffer
	if err := vcl.Execute(&b, struct{ Args string }{strings.Join(args, ", ")}); err != nil {
		return "", err
	}
	return b.String(), nil
}

func writeVCL(dir string, r algorithms.Rule, ban int64) (string, error) {
	text, err := VCL(r, ban)
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "vsthrottle.vcl")
	return path, os.WriteFile(path, []byte(text), 0o644)
}

// Session is one running varnishd.
type Session struct {
	live.Plain
	proc   *childproc.Proc
	base   string // http://127.0.0.1:PORT
	client *http.Client
	first  int64 // the clock probe's reading at the first decision
	begun  bool
	last   int64 // the previous decision's time
	gap    int64 // the widest the two readings around a decision have been apart, ns
	n      int   // decisions
	logf   func(format string, args ...any)
}

// Start runs varnishd for rule r (already scaled by the speed) and sets up
// its clock probe.
func Start(ctx context.Context, r algorithms.Rule, _ *live.Trace, o live.Options) (live.Session, error) {
	ban, err := Ban(o)
	if err != nil {
		return nil, err
	}
	path, err := LookPath(o.Binary)
	if err != nil {
		return nil, err
	}
	s, err := childproc.OnFreePort(ctx, func(port int) (*Session, error) { return startAt(ctx, path, port, r, ban, o) })
	if err != nil {
		return nil, err
	}
	return s, nil
}

func startAt(ctx context.Context, path string, port int, r algorithms.Rule, ban int64, o live.Options) (*Session, error) {
	dir, err := childproc.NewDir("ratebench-varnish-")
	if err != nil {
		return nil, err
	}
	vclPath, err := writeVCL(dir, r, ban)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	addr := "127.0.0.1:" + strconv.Itoa(port)
	proc, err := childproc.Start(dir, path, "-F", "-j", "none", "-n", filepath.Join(dir, "n"), "-a", addr, "-f", vclPath, "-s", "malloc,16m")
	if err != nil {
		return nil, err
	}
	s := &Session{proc: proc, base: "http://" + addr, logf: o.Logf,
		client: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1, MaxConnsPerHost: 1, DisableCompression: true}}}
	o.Logf("varnish: varnishd (pid %d) on %s, rule %s, block %s", proc.Pid(), addr, r, algorithms.FormatWindow(ban))
	if err := s.ready(ctx); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// ready waits until varnishd answers GET /clock, which blocks the clock
// probe's bucket (again: a second time changes nothing), within
// childproc.StartTimeout (it compiles the VCL with cc first).
func (s *Session) ready(ctx context.Context) error {
	var wrong error // an answer, but not the clock's
	err := s.proc.WaitReady(ctx, "varnishd", "answer GET "+s.base+"/clock", func(ctx context.Context) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.base+"/clock", nil)
		if err != nil {
			return err
		}
		resp, err := s.client.Do(req)
		if err != nil {
			return err
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		probe, perr := strconv.ParseInt(resp.Header.Get("X-Before"), 10, 64)
		if resp.StatusCode != http.StatusNoContent || perr != nil || probe <= 0 {
			wrong = fmt.Errorf("varnishd answered GET /clock with %s and clock %q, not 204 and a positive clock", resp.Status, resp.Header.Get("X-Before"))
		}
		return nil
	})
	if err != nil {
		return err
	}
	return wrong
}

// Decide sends q's request (when it is due) and returns varnishd's
// answer and the time the vmod decided at (ns since the first decision,
// on the scaled timeline).
func (s *Session) Decide(ctx context.Context, q live.Request) (live.Decision, error) {
	admit, h, err := live.AskHTTP(ctx, s.client, s.base+"/", "X-Key", q.Key, s.proc, "varnishd")
	if err != nil {
		return live.Decision{}, err
	}
	before, err1 := strconv.ParseInt(h.Get("X-Before"), 10, 64)
	after, err2 := strconv.ParseInt(h.Get("X-After"), 10, 64)
	if err := errors.Join(err1, err2); err != nil || after <= 0 || after > before {
		return live.Decision{}, fmt.Errorf("the clock probe read %q then %q: not a running block (%v)", h.Get("X-Before"), h.Get("X-After"), err)
	}
	s.gap, s.n = max(s.gap, before-after), s.n+1
	probe := before/2 + after/2 + (before%2+after%2)/2 // counts down: the midpoint of the two readings
	if !s.begun {
		s.begun, s.first = true, probe
	}
	at := s.first - probe
	if at < s.last { // the midpoints of readings that overlap
		at = s.last
	}
	s.last = at
	return live.Decision{Admit: admit, At: at}, nil
}

// Close stops varnishd (SIGTERM: the manager stops its worker and exits;
// killed if it has not within 10 s) and removes its directory.
func (s *Session) Close() error {
	if s.n > 0 {
		s.logf("varnish: %d decisions, the vmod's clock read at most %d ns apart around one", s.n, s.gap)
	}
	s.client.CloseIdleConnections()
	select {
	case <-s.proc.Exited():
	default:
		if p, err := os.FindProcess(s.proc.Pid()); err == nil && p.Signal(syscall.SIGTERM) == nil {
			select {
			case <-s.proc.Exited():
			case <-time.After(10 * time.Second):
			}
		}
	}
	return s.proc.Stop()
}
