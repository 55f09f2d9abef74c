package openresty

import (
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"ratebench/algorithms"
	"ratebench/live"
)

const ms = int64(time.Millisecond)

var (
	versionOnce sync.Once
	versionErr  error
)

// need fails the test, naming what to install, when nginx or its Lua
// module is missing; it skips the test, saying why and how to install it
// by hand, when lua-resty-limit-traffic is, which no package installer
// here brings (scripts/deps installs the rest).
func need(t *testing.T) {
	t.Helper()
	if err := Unpackaged(); err != nil {
		t.Skipf("lua-resty-limit-traffic's live check: %v", err)
	}
	versionOnce.Do(func() { _, versionErr = Version(context.Background(), live.Options{}) })
	if versionErr != nil {
		t.Fatalf("lua-resty-limit-traffic's live check needs %s: %v", Requires, versionErr)
	}
}

// The module's files the target runs are the release the models follow:
// their SHA-256 are those of the files at the cited commit. Other bytes
// are refused, and a directory without the module names what to install.
func TestModuleFilesAreTheRelease(t *testing.T) {
	need(t)
	dir, files, err := FindModule(LibDirs)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 2 || !strings.Contains(string(files["resty/limit/req.lua"]), "approximate Lua port of the standard ngx_limit_req") ||
		!strings.Contains(string(files["resty/limit/count.lua"]), "dict:incr(key, -1, limit, window)") {
		t.Errorf("%s: not the module's files", dir)
	}
	other := t.TempDir()
	for p, b := range files {
		path := filepath.Join(other, p)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if p == "resty/limit/req.lua" {
			b = append([]byte("-- patched\n"), b...)
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := FindModule([]string{other, dir}); err == nil || !strings.Contains(err.Error(), "is not lua-resty-limit-traffic 0.09's") {
		t.Errorf("a patched req.lua: %v", err)
	}
	if _, _, err := FindModule([]string{t.TempDir()}); err == nil || !strings.Contains(err.Error(), "luarocks install lua-resty-limit-traffic") {
		t.Errorf("no module: %v", err)
	}
}

// The configuration loads Debian's Lua modules and makes the limiter as
// the model reads the rule: 10/1m is new(dict, 10/60, 9) for req and
// new(dict, 10, 60) for count, the doubles written so that Lua reads them
// back exactly.
func TestConfFile(t *testing.T) {
	r := algorithms.Rule{L: 10, W: int64(time.Minute)}
	for _, c := range []struct{ variant, init string }{
		{"", `init("req", "ratebench", 0.16666666666666666, 9)`},
		{Count, `init("count", "ratebench", 10, 60)`},
	} {
		s, err := setupOf(r, c.variant)
		if err != nil {
			t.Fatal(err)
		}
		conf := ConfFile("/tmp/x", "127.0.0.1", 8080, s)
		for _, want := range []string{c.init, "load_module /usr/lib/nginx/modules/ndk_http_module.so;\nload_module /usr/lib/nginx/modules/ngx_http_lua_module.so;",
			"lua_shared_dict ratebench 1024k;", `lua_package_path "/tmp/x/lua/?.lua;;";`, "listen 127.0.0.1:8080;", `client_body_temp_path "/tmp/x/tmp/body";`} {
			if !strings.Contains(conf, want) {
				t.Errorf("%q: the configuration lacks %q:\n%s", c.variant, want, conf)
			}
		}
	}
	if _, err := setupOf(r, "module=conn"); err == nil {
		t.Error("a variant was accepted")
	}
	if _, err := Model(r, live.Options{Addr: "127.0.0.1:1"}); err == nil {
		t.Error("an address was accepted")
	}
}

// The acceptance check: the real modules, replaying the bursty 3-key
// trace under 5/1s on nginx's clock set to the trace's, decide every
// request as their models; sent each request of the trace with costs
// once, they decide it as the models do counting one per request.
func TestCheckTrace(t *testing.T) {
	need(t)
	r, err := algorithms.ParseRule(live.CheckRule)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ variant, model string }{{"", Name}, {Count, Name + ":module=count:zone"}} {
		for _, tr := range []*live.Trace{live.Bursty3Keys(), live.Bursty3KeysWithCosts()} {
			res, err := live.Run(context.Background(), Target, r, tr, live.Options{Variant: c.variant})
			if err != nil {
				t.Fatal(err)
			}
			n := int64(len(tr.T))
			t.Logf("%s: %d requests, %d admitted, %d refused; the model %s agrees on %d, the exact log on %d",
				res.Software, n, res.Admitted, res.Refused, res.ModelSpec, res.Model.Agree, res.Log.Agree)
			if res.Model.Agree != n || res.Model.Disagree() != 0 || len(res.Differences) != 0 {
				t.Errorf("%q: the model agrees on %d of %d requests: %+v", c.variant, res.Model.Agree, n, res.Differences)
			}
			if res.Refused == 0 || res.Admitted == 0 {
				t.Errorf("%q: admitted %d, refused %d: the check's trace must cross the limit", c.variant, res.Admitted, res.Refused)
			}
			if res.ModelSpec != c.model || res.Clock != "driven" {
				t.Errorf("%q: model %q, clock %q", c.variant, res.ModelSpec, res.Clock)
			}
		}
	}
}

// gridTrace returns n requests of keys near an instant of 2023 on whole
// milliseconds that are not whole seconds: most on a grid of W/100 from
// that instant, so that many come at exactly the end of a window that
// began on the grid, the others anywhere on the millisecond clock; each
// key about twice the rule's rate, some at the same instant, and pauses
// of whole windows.
func gridTrace(rng *rand.Rand, r algorithms.Rule, keys, n int) *live.Trace {
	tr := &live.Trace{Keys: keys}
	start := int64(1_700_000_000_123) * ms
	step := max(r.W/100/ms, 1) * ms
	t := start
	mean := max(r.W/r.L/int64(keys)/2, ms)
	for i := range n {
		switch rng.IntN(16) {
		case 0, 1: // same instant
		case 2: // a pause of whole windows
			t += r.W * int64(1+rng.IntN(3))
		case 3, 4, 5, 6: // anywhere
			t += rng.Int64N(2*mean)/ms*ms + ms
		default: // a grid point
			t += step - (t-start)%step + step*rng.Int64N(max(2*mean/step, 1))
		}
		tr.T = append(tr.T, t)
		k := int32(rng.IntN(keys))
		if i < keys {
			k = int32(i) // keys appear in order, as live.Load numbers them
		}
		tr.Key = append(tr.Key, k)
	}
	return tr
}

// equalityTrace is one key filling its bucket of L at once, then
// returning exactly W/L later, when the exact bucket has one request back
// (excess' == burst, admitted); at t0 and on whole ms if W/L is.
func equalityTrace(r algorithms.Rule, t0 int64) *live.Trace {
	tr := &live.Trace{Keys: 1}
	for range r.L {
		tr.T, tr.Key = append(tr.T, t0), append(tr.Key, 0)
	}
	tr.T, tr.Key = append(tr.T, t0+r.W/r.L), append(tr.Key, 0)
	return tr
}

// fractionTrace is one key's requests 1 ms apart from t0, L+1 of them,
// then one 5,950 ms after the L-th: under 10/1m, where each millisecond
// drains a sixth of a milli-request, the stored excess is truncated by
// up to 5/6 at each admission, and the last request fits only thanks to
// that (see TestLuaRestyReqEachDeviationAloneChangesADecision).
func fractionTrace(r algorithms.Rule, t0 int64) *live.Trace {
	tr := &live.Trace{Keys: 1}
	for i := range r.L + 1 {
		tr.T, tr.Key = append(tr.T, t0+i*ms), append(tr.Key, 0)
	}
	tr.T, tr.Key = append(tr.T, t0+(r.L-1)*ms+5950*ms), append(tr.Key, 0)
	return tr
}

// replay sends tr's requests to a session of the target for rule r and
// variant, serially, and returns its decisions.
func replay(t *testing.T, r algorithms.Rule, variant string, tr *live.Trace) []bool {
	t.Helper()
	s, err := Start(context.Background(), r, tr, live.Options{Variant: variant})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	out := make([]bool, len(tr.T))
	for i, id := range tr.Key {
		d, err := s.Decide(context.Background(), live.Request{Index: i, Key: live.KeyName(id), ID: id, T: tr.T[i], Cost: 1})
		if err != nil {
			t.Fatalf("%s %q, request %d: %v", r, variant, i+1, err)
		}
		if d.At != tr.T[i] {
			t.Errorf("%s %q, request %d: decided at %d, not the request's %d", r, variant, i+1, d.At, tr.T[i])
		}
		out[i] = d.Admit
	}
	return out
}

// differ counts the decisions of spec on tr that are not real's.
func differ(t *testing.T, spec string, r algorithms.Rule, tr *live.Trace, real []bool) int {
	t.Helper()
	d, err := live.Decide(spec, r, tr, tr.T)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for i := range d {
		if d[i] != real[i] {
			n++
		}
	}
	return n
}

// Under other rules, on traces at an instant of 2023 that come at the
// exact end of windows and at the exact edge of the bucket, the real
// modules decide as their models on every request; and the models' float,
// truncation, closed and zone-expiry are the software's: with one of them
// off, the model disagrees with the software somewhere.
func TestMatchesModelOnOtherRules(t *testing.T) {
	need(t)
	rng := rand.New(rand.NewPCG(37, 1))
	t0 := int64(1_700_000_000_123) * ms
	off := map[string]int{}
	for _, rule := range []string{"10/1m", "3/1500ms", "7/3s", "2/1s", "2/9s", "5/1s"} {
		r, err := algorithms.ParseRule(rule)
		if err != nil {
			t.Fatal(err)
		}
		traces := []*live.Trace{gridTrace(rng, r, 5, 1500), equalityTrace(r, t0)}
		if rule == "10/1m" {
			traces = append(traces, fractionTrace(r, t0))
		}
		for i, tr := range traces {
			for _, c := range []struct {
				variant, model string
				without        []string
			}{
				{"", Name, []string{Name + ":without=float", Name + ":without=truncation"}},
				{Count, Name + ":module=count:zone", []string{Name + ":module=count", Name + ":module=count:zone:without=closed"}},
			} {
				real := replay(t, r, c.variant, tr)
				admitted := 0
				for _, a := range real {
					if a {
						admitted++
					}
				}
				if i == 0 && (admitted == 0 || admitted == len(real)) {
					t.Errorf("%s %q: %d of %d admitted: the trace does not exercise the limit", rule, c.variant, admitted, len(real))
				}
				if n := differ(t, c.model, r, tr, real); n != 0 {
					t.Errorf("%s %q, trace %d: the model %s disagrees with the software on %d of %d requests", rule, c.variant, i, c.model, n, len(real))
				}
				for _, spec := range c.without {
					off[spec] += differ(t, spec, r, tr, real)
				}
			}
		}
	}
	t.Logf("the models with a deviation off disagree with the software: %v", off)
	for spec, n := range off {
		if n == 0 {
			t.Errorf("%s decides as the software on every trace: the deviation it turns off shows nowhere", spec)
		}
	}
}

// Close stops nginx and is safe to repeat; a request after it fails.
func TestCloseStopsNginx(t *testing.T) {
	need(t)
	sess, err := Start(context.Background(), algorithms.Rule{L: 5, W: int64(time.Second)}, live.Bursty3Keys(), live.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := sess.(*session)
	pid := s.srv.Pid()
	if d, err := s.Decide(context.Background(), live.Request{Key: "k0", T: 0}); err != nil || !d.Admit {
		t.Fatalf("first request: %v, %v", d.Admit, err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("a second Close: %v", err)
	}
	if err := syscall.Kill(pid, 0); err == nil {
		t.Errorf("nginx (pid %d) still runs after Close", pid)
	}
	if _, err := s.Decide(context.Background(), live.Request{Key: "k0", T: ms}); err == nil {
		t.Error("a request after Close was answered")
	}
}

// Without nginx, the target says what to install; a trace before 1970 is
// refused before anything starts.
func TestMissingSoftwareAndTimesBefore1970(t *testing.T) {
	o := live.Options{Binary: filepath.Join(t.TempDir(), "no-nginx")}
	if _, err := Version(context.Background(), o); err == nil || !strings.Contains(err.Error(), "libnginx-mod-http-lua") {
		t.Errorf("Version without nginx: %v, want an error naming libnginx-mod-http-lua", err)
	}
	tr := &live.Trace{T: []int64{-ms}, Key: []int32{0}, Keys: 1}
	if _, err := Start(context.Background(), algorithms.Rule{L: 5, W: int64(time.Second)}, tr, live.Options{}); err == nil || !strings.Contains(err.Error(), "1970") {
		t.Errorf("a trace before 1970: %v", err)
	}
}

// Without the module FindModule says it is not installed (ErrNotInstalled,
// which leaves the target's checks out of make live), naming how to put it
// in place; other bytes where it is looked for are refused instead, naming
// the file, and keep the checks in, to fail.
func TestMissingModuleIsUnpackaged(t *testing.T) {
	if _, _, err := FindModule([]string{t.TempDir()}); !errors.Is(err, ErrNotInstalled) || !strings.Contains(err.Error(), "luarocks install lua-resty-limit-traffic") {
		t.Errorf("no module: %v", err)
	}
	other := t.TempDir()
	for _, f := range Files {
		path := filepath.Join(other, f.Path)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte("return {}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, _, err := FindModule([]string{other})
	if err == nil || errors.Is(err, ErrNotInstalled) || !strings.Contains(err.Error(), filepath.Join(other, "resty/limit/req.lua")) {
		t.Errorf("other bytes: %v", err)
	}
}
