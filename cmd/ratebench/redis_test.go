package main

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ratebench/redisreplay"
)

// TestRedisEndToEnd runs ratebench redis on a tiny generated trace, with
// the server it starts itself and with one given by -addr.
func TestRedisEndToEnd(t *testing.T) {
	srv := redisreplay.StartForTest(t) // fails (not skips) without redis-server
	for _, extra := range [][]string{nil, {"-addr", srv.Addr}} {
		dir := t.TempDir()
		args := append([]string{"redis", "-gen", "mix:poisson=0.6,boundary=0.4,requests=600,keys=6,rate=2", "-rule", "5/10s",
			"-clients", "1,4", "-o", dir}, extra...)
		stdout, stderr, err := ratebench(t, args...)
		if err != nil {
			t.Fatalf("%v\nstderr:\n%s", err, stderr)
		}
		for _, want := range []string{"# Redis replay, rule 5/10s", "| log | yes | 1 | 600 |", "## Race", "## Memory", "wrote " + filepath.Join(dir, "redis.json")} {
			if !strings.Contains(stdout, want) {
				t.Errorf("stdout lacks %q:\n%s", want, stdout)
			}
		}
		b, err := os.ReadFile(filepath.Join(dir, "redis.json"))
		if err != nil {
			t.Fatal(err)
		}
		var res redisreplay.Result
		if err := json.Unmarshal(b, &res); err != nil {
			t.Fatal(err)
		}
		if len(res.Runs) != 10 || len(res.Races) != 2 || res.Trace.Requests != 600 || res.Server.Started != (extra == nil) {
			t.Errorf("runs %d, races %d, requests %d, server %+v", len(res.Runs), len(res.Races), res.Trace.Requests, res.Server)
		}
		for _, p := range res.Runs {
			if p.Atomic && p.Clients == 1 && p.Agree != p.Decisions {
				t.Errorf("%s: %d of %d decisions agree", p.Algorithm, p.Agree, p.Decisions)
			}
		}
		md, err := os.ReadFile(filepath.Join(dir, "redis.md"))
		if err != nil || !strings.HasPrefix(stdout, string(md)) {
			t.Errorf("redis.md is not the table printed (err %v)", err)
		}
	}
}

func TestRedisUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"redis", "-gen", "poisson", "-alg", "gcra"},
		{"redis", "-gen", "poisson", "-clients", "0"},
		{"redis", "-gen", "poisson", "-rule", "5"},
		{"redis", "-gen", "poisson", "-trace", "x.csv"},
		{"redis"},
	} {
		_, _, err := ratebench(t, args...)
		var ue usageError
		if !errors.As(err, &ue) {
			t.Errorf("%q: err = %v, want a usage error", args, err)
		}
	}
}
