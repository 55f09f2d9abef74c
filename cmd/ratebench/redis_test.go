package main

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	liveredis "ratebench/live/redis"
	"ratebench/summary"
)

// TestLiveRedisEndToEnd runs ratebench live redis:SCRIPT on a tiny
// generated trace, with the server it starts itself and with one given
// by -addr: every textbook script, with 1 and with 4 clients.
func TestLiveRedisEndToEnd(t *testing.T) {
	srv := liveredis.StartForTest(t) // fails (not skips) without redis-server
	type run struct {
		alg     string
		clients string
		extra   []string
	}
	runs := []run{{"log", "1", nil}}
	for _, alg := range liveredis.Algorithms {
		for _, c := range []string{"1", "4"} {
			runs = append(runs, run{alg, c, []string{"-addr", srv.Addr}})
		}
	}
	for _, r := range runs {
		dir := t.TempDir()
		args := append([]string{"live", "redis:" + r.alg, "-gen", "mix:poisson=0.6,boundary=0.4,requests=600,keys=6,rate=2", "-rule", "5/10s",
			"-clients", r.clients, "-o", dir}, r.extra...)
		stdout, stderr, err := ratebench(t, args...)
		if err != nil {
			t.Fatalf("%q: %v\nstderr:\n%s", args, err, stderr)
		}
		for _, want := range []string{"# Live replay through Redis ", "Memory: MEMORY USAGE", "wrote " + filepath.Join(dir, "live.json")} {
			if !strings.Contains(stdout, want) {
				t.Errorf("%q: stdout lacks %q:\n%s", args, want, stdout)
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
		if res.Target != "redis:"+r.alg || res.Trace.Requests != 600 || res.Memory == nil || slices.Contains(res.Setup, "server="+srv.Addr) != (r.extra != nil) {
			t.Errorf("%q: target %q, requests %d, memory %v, setup %q", args, res.Target, res.Trace.Requests, res.Memory, res.Setup)
		}
		if r.clients == "1" && res.Model.Agree != res.Trace.Requests {
			t.Errorf("%q: %d of %d decisions agree", args, res.Model.Agree, res.Trace.Requests)
		}
		md, err := os.ReadFile(filepath.Join(dir, "live.md"))
		if err != nil || !strings.HasPrefix(stdout, string(md)) {
			t.Errorf("live.md is not the table printed (err %v)", err)
		}
	}
}

func TestLiveRedisUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"live", "redis:gcra", "-gen", "poisson"},
		{"live", "redis:log", "-gen", "poisson", "-clients", "0"},
		{"live", "redis:log", "-gen", "poisson", "-rule", "5"},
		{"live", "redis:log", "-gen", "poisson", "-trace", "x.csv"},
		{"live", "redis"},
	} {
		_, _, err := ratebench(t, args...)
		var ue usageError
		if !errors.As(err, &ue) {
			t.Errorf("%q: err = %v, want a usage error", args, err)
		}
	}
}
