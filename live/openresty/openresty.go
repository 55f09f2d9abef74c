package openresty

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"ratebench/algorithms"
	"ratebench/live"
	"ratebench/live/nginx"
)

//go:embed ratebench_limit.lua
var handlerLua []byte

// Name is the target's name, the product's.
const Name = "lua-resty-limit-traffic"

// Count is the variant that runs resty.limit.count (the default runs
// resty.limit.req).
const Count = "module=count"

// Requires says what to install.
const Requires = "nginx with lua-nginx-module, the Debian packages nginx and libnginx-mod-http-lua (apt-get install -y nginx libnginx-mod-http-lua, which brings lua-resty-core), and " + ModuleRequires

func init() { live.Register(Target) }

// Target is lua-resty-limit-traffic's live target.
var Target = live.Target{
	Name:       Name,
	About:      "resty.limit.req or resty.limit.count in a real nginx with Debian's lua-nginx-module on a loopback port, nginx's cached clock (ngx.now(), the shared dict's expiry) set to the trace's time at each request",
	Requires:   Requires,
	Driven:     true,
	Variants:   []string{"", Count},
	Checks:     []string{"", Count},
	Unpackaged: Unpackaged,
	Version:    Version,
	Model:      Model,
	Start:      Start,
}

// Version names the module's release and nginx, or says what to install.
func Version(ctx context.Context, o live.Options) (string, error) {
	v, err := nginx.Version(ctx, o)
	if err != nil {
		return "", fmt.Errorf("live %s: %w; install %s", Name, err, Requires)
	}
	if err := installed(); err != nil {
		return "", err
	}
	return Release + " (" + v + ", lua-nginx-module)", nil
}

// installed checks that nginx's Lua modules and the module are there.
func installed() error {
	for _, m := range Modules {
		if _, err := os.Stat(m); err != nil {
			return fmt.Errorf("live %s: %s is missing: install %s", Name, m, Requires)
		}
	}
	if _, _, err := FindModule(LibDirs); err != nil {
		return fmt.Errorf("live %s: %w", Name, err)
	}
	return nil
}

// Model is the model's spec for o's variant: resty.limit.req's, or
// resty.limit.count's with the shared dict's sweep (the dict the target
// starts always sweeps).
func Model(r algorithms.Rule, o live.Options) (string, error) {
	if _, err := setupOf(r, o.Variant); err != nil {
		return "", err
	}
	if o.Addr != "" {
		return "", fmt.Errorf("live %s: it starts an nginx of its own: no -addr", Name)
	}
	if o.Variant == Count {
		return Name + ":" + Count + ":zone", nil
	}
	return Name, nil
}

// setupOf is what the module is made with for rule r, as the model reads
// the rule (products.NewLuaResty): req, new(dict, L/W per second, L-1);
// count, new(dict, L, W in seconds).
func setupOf(r algorithms.Rule, variant string) (Setup, error) {
	w := float64(r.W) / float64(time.Second)
	switch variant {
	case "", "module=req":
		return Setup{Module: "req", A: float64(r.L) / w, B: float64(r.L - 1)}, nil
	case Count:
		return Setup{Module: "count", A: float64(r.L), B: w}, nil
	}
	return Setup{}, fmt.Errorf("live %s: no variant %q (%q or %q)", Name, variant, "", Count)
}

// Start starts nginx with the module for rule r and o's variant, its
// shared dict sized for tr's keys.
func Start(ctx context.Context, r algorithms.Rule, tr *live.Trace, o live.Options) (live.Session, error) {
	setup, err := setupOf(r, o.Variant)
	if err != nil {
		return nil, err
	}
	if len(tr.T) > 0 && tr.T[0] < 0 {
		return nil, fmt.Errorf("live %s: the trace's times start before 1970: nginx's clock is Unix time, and the module stores it unsigned", Name)
	}
	if err := installed(); err != nil {
		return nil, err
	}
	_, files, err := FindModule(LibDirs)
	if err != nil {
		return nil, err
	}
	setup.DictBytes = int64(tr.Keys) * 512
	srv, err := nginx.StartConf(ctx, o.Binary, func(dir, host string, port int) (string, error) {
		files := withFile(files, "ratebench_limit.lua", handlerLua)
		for p, b := range files {
			path := filepath.Join(dir, "lua", filepath.FromSlash(p))
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				return "", err
			}
			if err := os.WriteFile(path, b, 0o644); err != nil {
				return "", err
			}
		}
		return ConfFile(dir, host, port, setup), nil
	})
	if err != nil {
		return nil, fmt.Errorf("live %s: %w", Name, err)
	}
	s := &session{srv: srv, url: "http://" + srv.Addr + "/decide",
		client: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1, DisableCompression: true, Proxy: nil}, Timeout: 30 * time.Second}}
	cfg, err := s.config(ctx, setup)
	if err != nil {
		s.Close()
		return nil, fmt.Errorf("live %s: %w", Name, err)
	}
	o.Logf("started %s at %s: %s", srv.Version, srv.Addr, cfg)
	return s, nil
}

// withFile returns m with path p holding b too.
func withFile(m map[string][]byte, p string, b []byte) map[string][]byte {
	out := map[string][]byte{p: b}
	for k, v := range m {
		out[k] = v
	}
	return out
}

// session is one nginx and the replay's connection to it.
type session struct {
	live.Plain
	srv    *nginx.Server
	url    string
	client *http.Client
}

// config asks what the limiter keeps and checks it is what the model
// computes: req's rate and burst times 1000, count's limit and window.
func (s *session) config(ctx context.Context, setup Setup) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+s.srv.Addr+"/config", nil)
	if err != nil {
		return "", err
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return "", err
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<12))
	resp.Body.Close()
	f := strings.Fields(string(body))
	if resp.StatusCode != http.StatusOK || len(f) != 5 || f[0] != setup.Module {
		return "", fmt.Errorf("its /config answered %s: %q; its error log: %s", resp.Status, body, s.srv.ErrorLog())
	}
	a, errA := strconv.ParseFloat(f[1], 64)
	b, errB := strconv.ParseFloat(f[2], 64)
	wantA, wantB := setup.A, setup.B
	if setup.Module == "req" {
		wantA, wantB = setup.A*1000, setup.B*1000
	}
	if errA != nil || errB != nil || a != wantA || b != wantB {
		return "", fmt.Errorf("the module keeps %s %s, the model %v %v", f[1], f[2], wantA, wantB)
	}
	return fmt.Sprintf("resty.limit.%s %s (new(%q, %s, %s)), lua-nginx-module %s", f[0], f[3], Dict, luaNumber(setup.A), luaNumber(setup.B), f[4]), nil
}

// NgxNow is ngx.now() at trace time t (ns, not before 1970): sec +
// msec/1000.0 of its whole seconds and milliseconds, as
// ngx_http_lua_ffi_now computes it.
func NgxNow(t int64) (sec, msec int64, now float64) {
	sec, msec = t/int64(time.Second), t%int64(time.Second)/int64(time.Millisecond)
	return sec, msec, float64(sec) + float64(msec)/1000.0
}

// Decide sets nginx's clock to q's time and asks the module, checking
// that ngx.now() read that time.
func (s *session) Decide(ctx context.Context, q live.Request) (live.Decision, error) {
	sec, msec, want := NgxNow(q.T)
	url := s.url + "?s=" + strconv.FormatInt(sec, 10) + "&ms=" + strconv.FormatInt(msec, 10)
	admit, h, err := live.AskHTTP(ctx, s.client, url, KeyHeader, q.Key, s.srv.Proc(), "nginx")
	if err != nil {
		if log := strings.TrimSpace(s.srv.ErrorLog()); log != "" {
			err = fmt.Errorf("%w; its error log: %s", err, log)
		}
		return live.Decision{}, err
	}
	now, err := strconv.ParseFloat(h.Get(NowHeader), 64)
	if err != nil || math.Float64bits(now) != math.Float64bits(want) {
		return live.Decision{}, errors.New("ngx.now() read " + h.Get(NowHeader) + ", not the trace's " + luaNumber(want) + ": nginx's clock was not set")
	}
	return live.Decision{Admit: admit, At: q.T}, nil
}

// Close stops nginx and removes its directory.
func (s *session) Close() error {
	s.client.CloseIdleConnections()
	return s.srv.Stop()
}
