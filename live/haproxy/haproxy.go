// Package haproxy is the live target of HAProxy's stick-table rate limit:
// a haproxy process of its own on a loopback port, whose frontend tracks
// each request's key in a stick table storing http_req_rate(W) and
// refuses with 429 when sc_http_req_rate(0) is above L, as the products'
// model "haproxy" describes.
//
// # What it starts
//
// Start writes the configuration (haproxy.cfg.tmpl, ConfFile) and a Lua
// file (now.lua) into a fresh directory and runs haproxy in the
// foreground (-db) with one thread, on a free port of 127.0.0.1; Close
// kills it and removes the directory (and the kernel kills it if the
// harness dies). The table's expire is the model's default, 3W, or
// 7W/10 with the variant ShortExpire. Both
// answers, the 200 that "http-request return" makes and the 429 of
// "http-request deny", carry MsHeader, the millisecond HAProxy decided at,
// DateHeader, the wall clock's millisecond then, and RateHeader, the rate
// the rule read.
//
// # Its clock
//
// HAProxy 2.6 decides on now_ms, its internal clock "now" in whole
// milliseconds, taken when its event loop wakes (src/clock.c,
// clock_update_date): gettimeofday's date plus an offset. The offset is
// not 0 for long: when the loop wakes more than 100 ms after its poll's
// timeout (its start-up, a stall) or before it, the clock takes it for a
// jump of the wall clock and keeps "now" where it was, so now_ms lags the
// date by that much from then on (138 and 155 ms were seen here in some
// runs, none in others; Close logs it). The date fetch is thus not HAProxy's clock:
// an odd lag flips the parity of every tick, which the periods' starts
// depend on (the model's "even-tick" deviation). The answers carry now_ms
// itself, through the Lua sample fetch lua.now_ms (core.now(), the same
// "now", in ms).
//
// The replay (live.Run) sends each request when it is due at the trace's
// pace times Options.Speed, with the rule's window divided by the speed
// (a whole number of ms, at least 2), and reports as the time HAProxy
// decided at its now_ms counted from the first request's, less one when
// that one is odd: the model's clock then sees HAProxy's ticks, parity
// included. A request delayed across a millisecond thus shows in the
// model's times, not as a disagreement.
package haproxy

import (
	"bytes"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"text/template"
	"time"

	"ratebench/algorithms"
	"ratebench/algorithms/products"
	"ratebench/internal/childproc"
	"ratebench/live"
)

// Binary is the program Start runs when Options.Binary is empty.
const Binary = "haproxy"

// The request and answer headers: the key the stick table tracks; the
// millisecond the rule decided at (now_ms, HAProxy's internal clock), the
// wall clock's millisecond then (the date fetch) and the rate it read.
const (
	KeyHeader  = "X-Ratebench-Key"
	MsHeader   = "X-Ratebench-Ms"
	DateHeader = "X-Ratebench-Date"
	RateHeader = "X-Ratebench-Rate"
)

// Requires says what to install.
const Requires = "the Debian package haproxy, 2.6 (apt-get install -y haproxy)"

//go:embed haproxy.cfg.tmpl
var confText string

// nowLua defines the sample fetch lua.now_ms: core.now() in ms.
//
//go:embed now.lua
var nowLua []byte

var conf = template.Must(template.New("haproxy.cfg").Parse(confText))

func init() {
	live.Register(Target)
}

// Target is HAProxy's live target.
var Target = live.Target{
	Name:     "haproxy",
	About:    "HAProxy's stick table (http_req_rate, track-sc0, deny with 429 if sc_http_req_rate(0) gt L), a haproxy process on a loopback port",
	Requires: Requires,
	Variants: []string{"", ShortExpire},
	Checks:   []string{"", ShortExpire},
	Version:  Version,
	Model:    Model,
	Start:    Start,
}

// LookPath finds Options.Binary, or haproxy on $PATH and else
// /usr/sbin/haproxy (where Debian installs it).
func LookPath(binary string) (string, error) {
	if binary != "" {
		p, err := exec.LookPath(binary)
		if err != nil {
			return "", fmt.Errorf("haproxy %s not found (%w): install %s", binary, err, Requires)
		}
		return p, nil
	}
	if p, err := exec.LookPath(Binary); err == nil {
		return p, nil
	}
	if p, err := exec.LookPath("/usr/sbin/haproxy"); err == nil {
		return p, nil
	}
	return "", fmt.Errorf("haproxy is not installed: install %s", Requires)
}

// Version returns "HAProxy 2.6.12-1+deb12u4" (what haproxy -v prints).
func Version(ctx context.Context, o live.Options) (string, error) {
	path, err := LookPath(o.Binary)
	if err != nil {
		return "", err
	}
	out, err := childproc.Probe(ctx, path, "-v")
	if childproc.Stopped(err) {
		return "", fmt.Errorf("live haproxy: %w", err)
	}
	first, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	v, ok := strings.CutPrefix(first, "HAProxy version ")
	if err != nil || !ok {
		return "", fmt.Errorf("live haproxy: %s -v: %v %q: not HAProxy; install %s", path, err, first, Requires)
	}
	v, _, _ = strings.Cut(v, " ")
	return "HAProxy " + v, nil
}

// ShortExpire is the variant whose table expires an idle key's entry
// after 7/10 of the window (in whole ms), before two periods pass: the
// model's "expiry" deviation.
const ShortExpire = "short-expire"

// Table returns the model's spec for rule r (already scaled) and the
// variant, and the table's expire in ms: the model's default, 3W, or with
// ShortExpire 7W/10.
func Table(r algorithms.Rule, variant string) (spec string, expireMS int64, err error) {
	h, err := products.NewHAProxy(r, "")
	if err != nil {
		return "", 0, fmt.Errorf("live haproxy: %w", err)
	}
	ms := int64(time.Millisecond)
	switch variant {
	case "":
		return "haproxy", h.Expire() / ms, nil
	case ShortExpire:
		d := max(7*(r.W/ms)/10, 1)
		spec = "haproxy:expire=" + time.Duration(d*ms).String()
		if _, err := products.NewHAProxy(r, strings.TrimPrefix(spec, "haproxy:")); err != nil {
			return "", 0, fmt.Errorf("live haproxy: %w", err)
		}
		return spec, d, nil
	}
	return "", 0, fmt.Errorf("live haproxy: no variant %q (%q or %q)", variant, "", ShortExpire)
}

// Model is the model's spec for rule r (already scaled) and o's variant.
func Model(r algorithms.Rule, o live.Options) (string, error) {
	spec, _, err := Table(r, o.Variant)
	return spec, err
}

// Config is what ConfFile writes.
type Config struct {
	Addr                                        string // host:port
	LuaFile                                     string // now.lua's path
	L, PeriodMS, ExpireMS                       int64
	KeyHeader, MsHeader, DateHeader, RateHeader string
}

// ConfFile returns the haproxy.cfg for rule r and the variant on addr,
// loading the Lua file lua (now.lua): the stick table's period W in ms and
// its expire (Table), the deny rule "gt L".
func ConfFile(addr, lua string, r algorithms.Rule, variant string) (string, error) {
	_, expire, err := Table(r, variant)
	if err != nil {
		return "", err
	}
	ms := int64(time.Millisecond)
	var b bytes.Buffer
	err = conf.Execute(&b, Config{Addr: addr, LuaFile: strconv.Quote(lua), L: r.L, PeriodMS: r.W / ms, ExpireMS: expire,
		KeyHeader: KeyHeader, MsHeader: MsHeader, DateHeader: DateHeader, RateHeader: RateHeader})
	return b.String(), err
}

// Start runs haproxy for rule r (scaled by the speed) and returns the
// session that replays requests into it.
func Start(ctx context.Context, r algorithms.Rule, _ *live.Trace, o live.Options) (live.Session, error) {
	path, err := LookPath(o.Binary)
	if err != nil {
		return nil, err
	}
	if _, err := ConfFile("127.0.0.1:1", "now.lua", r, o.Variant); err != nil {
		return nil, err
	}
	s, err := childproc.OnFreePort(ctx, func(port int) (*session, error) {
		return start(ctx, path, net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), r, o.Variant)
	})
	if err != nil {
		return nil, err
	}
	s.logf = o.Logf
	// One request without a key opens the keep-alive connection: no
	// entry is tracked, the rule reads nothing, and 200 comes back.
	if _, _, err := s.get(ctx, ""); err != nil {
		s.Close()
		return nil, fmt.Errorf("live haproxy: its first answer: %w", err)
	}
	o.Logf("haproxy %s on %s: L=%d per %d ms", path, s.addr, r.L, r.W/int64(time.Millisecond))
	return s, nil
}

func start(ctx context.Context, path, addr string, r algorithms.Rule, variant string) (*session, error) {
	dir, err := childproc.NewDir("ratebench-haproxy-")
	if err != nil {
		return nil, err
	}
	lua, cfg := filepath.Join(dir, "now.lua"), filepath.Join(dir, "haproxy.cfg")
	text, err := ConfFile(addr, lua, r, variant)
	if err == nil {
		err = os.WriteFile(lua, nowLua, 0o644)
	}
	if err == nil {
		err = os.WriteFile(cfg, []byte(text), 0o644)
	}
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	proc, err := childproc.Start(dir, path, "-db", "-f", cfg)
	if err != nil {
		return nil, err
	}
	s := &session{proc: proc, addr: addr, url: "http://" + addr + "/",
		client: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1, DisableCompression: true, Proxy: nil}, Timeout: 10 * time.Second}}
	if err := proc.WaitReady(ctx, "haproxy", "accept a connection on "+addr, func(ctx context.Context) error { return childproc.Accepts(ctx, addr) }); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// session is one haproxy process and the replay's connection to it.
type session struct {
	live.Plain
	proc   *childproc.Proc
	addr   string
	url    string
	client *http.Client
	base   int64 // HAProxy's millisecond of the first request, made even
	begun  bool
	logf   func(format string, args ...any)
	// offDate counts the requests whose now_ms was not the wall clock's
	// millisecond (HAProxy's clock took an offset: it saw the wall clock
	// jump, or its loop stalled), firstOff the first such offset.
	offDate, firstOff int64
}

// get sends one request of key (none when "") and returns whether it was
// admitted and the millisecond HAProxy decided at.
func (s *session) get(ctx context.Context, key string) (bool, int64, error) {
	admit, h, err := live.AskHTTP(ctx, s.client, s.url, KeyHeader, key, s.proc, "haproxy")
	if err != nil {
		return false, 0, err
	}
	ms, err := strconv.ParseInt(h.Get(MsHeader), 10, 64)
	if err != nil {
		return false, 0, fmt.Errorf("the answer's %s: %w", MsHeader, err)
	}
	date, err := strconv.ParseInt(h.Get(DateHeader), 10, 64)
	if err != nil {
		return false, 0, fmt.Errorf("the answer's %s: %w", DateHeader, err)
	}
	if key != "" && date != ms {
		if s.offDate++; s.offDate == 1 {
			s.firstOff = date - ms
		}
	}
	return admit, ms, nil
}

// Decide sends q's request (when it is due) and returns HAProxy's
// decision and the time it decided at: its millisecond less the first
// request's (made even), in ns.
func (s *session) Decide(ctx context.Context, q live.Request) (live.Decision, error) {
	admit, ms, err := s.get(ctx, q.Key)
	if err != nil {
		return live.Decision{}, err
	}
	if !s.begun {
		s.begun, s.base = true, ms&^1
	}
	if ms < s.base {
		return live.Decision{}, errors.New("HAProxy's clock went back before the first request's millisecond: the wall clock jumped")
	}
	return live.Decision{Admit: admit, At: (ms - s.base) * int64(time.Millisecond)}, nil
}

// Close stops haproxy and removes its directory.
func (s *session) Close() error {
	if s.offDate > 0 && s.logf != nil {
		s.logf("haproxy: on %d requests its clock (now_ms) was not the wall clock's millisecond (the first by %d ms)", s.offDate, s.firstOff)
	}
	s.client.CloseIdleConnections()
	return s.proc.Stop()
}
