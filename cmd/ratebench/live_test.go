package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"ratebench/live/nginx"
	"ratebench/summary"
)

// TestLiveNginxEndToEnd replays a small generated trace serially through
// a real nginx (fails, not skips, without one) and requires nginx and its
// model to agree on every request.
func TestLiveNginxEndToEnd(t *testing.T) {
	if _, err := nginx.LookPath(""); err != nil {
		t.Fatalf("this test replays a trace through a real nginx: %v", err)
	}
	dir := t.TempDir()
	// 300 requests over about 60 s, at speed 30: 2 s.
	stdout, stderr, err := ratebench(t, "live", "nginx", "-gen", "mix:poisson=0.6,onoff=0.2,boundary=0.2,requests=300,keys=5,rate=1,seed=2",
		"-rule", "3/1s", "-speed", "30", "-o", dir)
	if err != nil {
		t.Fatalf("%v\nstderr:\n%s", err, stderr)
	}
	for _, want := range []string{"# Live replay through nginx/", "configured with `rate=90r/s`, `burst=2`, `nodelay`",
		"| `nginx:rate=90r/s:burst=2:zone` | nginx's clock: ngx\\_current\\_msec, from \\$connection\\_time | 300 | 100% | 0 | 0 |",
		"nginx agrees with its model on 300 of 300 requests (100.000%)", "wrote " + filepath.Join(dir, "live.json")} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "live.json"))
	if err != nil {
		t.Fatal(err)
	}
	var res summary.Live
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	if res.Schema != summary.LiveSchemaVersion || res.Target != "nginx" || res.Trace.Requests != 300 || res.Model.Agree != 300 || res.Refused == 0 || res.Speed != "30" || res.Setup[0] != "rate=90r/s" {
		t.Errorf("schema %d, target %q, requests %d, model agrees on %d, refused %d, speed %q, setup %q", res.Schema, res.Target, res.Trace.Requests, res.Model.Agree, res.Refused, res.Speed, res.Setup)
	}
	if _, err := os.Stat(filepath.Join(dir, "live.md")); err != nil {
		t.Error(err)
	}
}

// Bad command lines are refused before nginx starts: a speed at which
// nginx cannot express the rate, an address off the loopback, a burst
// nginx's model refuses (checked before the replay, not after it: the
// nginx program named does not exist, and is never started), and more
// clients than a replay takes.
func TestLiveNginxRefuses(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-rule", "7/1m", "-speed", "1/2"}, "the speeds that work are the multiples of 1/7"},
		{[]string{"-speed", "0"}, "-speed \"0\": want a positive number"},
		{[]string{"-addr", "192.0.2.1:8080"}, "sends only to an IPv4 loopback address"},
		{[]string{"-variant", "burst=9223372036854775807", "-bin", "/nonexistent/nginx"}, `live nginx: its model: algorithm "nginx:rate=5r/s:burst=9223372036854775807:zone": burst "9223372036854775807" is not a whole number from 0 to `},
		{[]string{"-clients", "1025", "-bin", "/nonexistent/nginx"}, "-clients: clients 1025: want 1 to 1024"},
	} {
		args := append([]string{"live", "nginx", "-gen", "poisson:requests=10,keys=2", "-o", t.TempDir()}, tc.args...)
		_, stderr, err := ratebench(t, args...)
		if err == nil || !strings.Contains(err.Error()+stderr, tc.want) {
			t.Errorf("%v: err %v, stderr %q; want %q", tc.args, err, stderr, tc.want)
		}
		if strings.Contains(stderr, "replaying") || strings.Contains(stderr, "started") {
			t.Errorf("%v: refused only once the replay began: %q", tc.args, stderr)
		}
	}
}

// The usage of live and of live nginx names the subcommand once.
func TestLiveUsage(t *testing.T) {
	for args, want := range map[string]string{"live nginx -h": "usage: ratebench live nginx [FILE | -gen SCENARIO] [-rule L/W]", "live -h": "usage: ratebench live TARGET[:VARIANT] [FILE | -gen SCENARIO] [-rule L/W]"} {
		_, stderr, err := ratebench(t, strings.Fields(args)...)
		if err != nil && !errors.Is(err, flag.ErrHelp) {
			t.Errorf("%q: %v", args, err)
		}
		if !strings.HasPrefix(stderr, want) || strings.Contains(stderr, "nginx nginx") {
			t.Errorf("%q: usage %q", args, stderr)
		}
	}
}

// Ctrl-C during a live replay stops it within a second, exits non-zero
// and leaves no nginx listening.
func TestLiveNginxInterrupt(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command")
	}
	dir := t.TempDir()
	bin := buildCommand(t, dir)
	cmd := exec.Command(bin, "live", "nginx", "-gen", "poisson:requests=100000,keys=10,rate=1", "-speed", "1", "-o", filepath.Join(dir, "out"))
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	killer := time.AfterFunc(10*time.Second, func() { cmd.Process.Kill() })
	defer killer.Stop()
	sc := bufio.NewScanner(stderr)
	addr := ""
	for sc.Scan() {
		if _, rest, ok := strings.Cut(sc.Text(), " at "); ok && strings.HasPrefix(sc.Text(), "started nginx") {
			addr, _, _ = strings.Cut(rest, " ")
			break
		}
	}
	if addr == "" {
		t.Fatal("nginx never started")
	}
	// nginx has started: the replay is under way (its requests follow at
	// once, paced over the trace's 100,000 seconds), the signal comes now.
	signalled := time.Now()
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	var rest strings.Builder
	for sc.Scan() {
		rest.WriteString(sc.Text() + "\n")
	}
	err = cmd.Wait()
	if d := time.Since(signalled); d > time.Second {
		t.Errorf("exited %v after SIGINT", d)
	}
	if err == nil || !strings.Contains(rest.String(), "interrupted: nginx stopped") {
		t.Errorf("exit %v, stderr %q; want a non-zero exit saying nginx stopped", err, rest.String())
	}
	if c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond); err == nil {
		c.Close()
		t.Errorf("nginx still listens at %s after the interrupt", addr)
	}
	if _, err := os.Stat(filepath.Join(dir, "out", "live.json")); err == nil {
		t.Error("an interrupted replay wrote live.json")
	}
}

// A live replay written into a comparison's folder shows in its report
// when the report is written again.
func TestReportShowsTheFoldersLiveReplay(t *testing.T) {
	dir := t.TempDir()
	if _, _, err := ratebench(t, "compare", "-trace", "testdata/small.csv", "-rule", "10/1m", "-alg", "log,nginx", "-o", dir); err != nil {
		t.Fatal(err)
	}
	live := summary.Live{Schema: summary.LiveSchemaVersion, Target: "nginx", Software: "nginx/1.22.1", Rule: "10/1m", Clock: "real", Speed: "1", Clients: 1,
		Model: summary.LiveAgreement{Against: "nginx:rate=10r/m:burst=9:zone", Times: "nginx's clock", Agree: 2000}}
	data, _ := json.Marshal(live)
	if err := os.WriteFile(filepath.Join(dir, "live.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ratebench(t, "report", dir); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil || !strings.Contains(string(md), "## Live replay through nginx/1.22.1") || !strings.Contains(string(md), "| 2,000 | 100% |") {
		t.Errorf("report without the live replay: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "live.json")); err != nil {
		t.Errorf("the report removed live.json: %v", err)
	}
}
