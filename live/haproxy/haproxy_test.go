package haproxy_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"ratebench/algorithms"
	"ratebench/live"
	"ratebench/live/haproxy"
)

// A real haproxy decides the check's trace, bursty requests of three keys
// under 5/1s at the trace's own pace, exactly as its model does on the
// milliseconds it decided at: with the table's default expire (3W), and
// with ShortExpire (700 ms, the model's expiry deviation on, which
// decides some of the trace's requests otherwise); and, the table's
// http_req_rate counting one a request, on the check's trace with costs,
// which the model counts one each (charging them decides some requests
// otherwise: live's TestBursty3KeysWithCostsTellsOneHit). It fails when
// haproxy is not installed.
func TestBursty3KeysAgreesWithTheModel(t *testing.T) {
	for _, c := range []struct {
		name, variant string
		tr            *live.Trace
	}{
		{"variant=", "", live.Bursty3Keys()},
		{"variant=" + haproxy.ShortExpire, haproxy.ShortExpire, live.Bursty3Keys()},
		{"costs", "", live.Bursty3KeysWithCosts()},
	} {
		variant, tr := c.variant, c.tr
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r, err := algorithms.ParseRule(live.CheckRule)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			res, err := live.Run(ctx, haproxy.Target, r, tr, live.Options{Variant: variant, Log: t.Logf})
			if err != nil {
				t.Fatalf("%v (the check needs %s)", err, haproxy.Requires)
			}
			n := int64(len(tr.T))
			t.Logf("%s, %s: %d admitted, %d refused; the model on its times agrees on %d of %d", res.Software, res.ModelSpec, res.Admitted, res.Refused, res.Model.Agree, n)
			if res.Intended != nil {
				t.Logf("on the trace's times: agrees on %d of %d", res.Intended.Agree, n)
			}
			t.Logf("the exact log: agrees on %d of %d %+v", res.Log.Agree, n, res.Log.Classes)
			if res.Model.Agree != n || len(res.Differences) != 0 {
				t.Errorf("the model agrees on %d of %d requests; differences %+v", res.Model.Agree, n, res.Differences)
			}
			if res.Refused == 0 || res.Admitted == 0 {
				t.Errorf("%d admitted, %d refused: the trace must cross the limit", res.Admitted, res.Refused)
			}
			if !strings.HasPrefix(res.Software, "HAProxy 2.6") {
				t.Errorf("software %q: the model follows HAProxy 2.6", res.Software)
			}
			want := map[string]string{"": "haproxy", haproxy.ShortExpire: "haproxy:expire=700ms"}[variant]
			if res.ModelSpec != want {
				t.Errorf("model %q, want %q", res.ModelSpec, want)
			}
		})
	}
}

// On the check's trace the short expire changes decisions: the model with
// its expiry deviation off decides some requests otherwise (so that the
// variant's agreement above says something about the expiry).
func TestShortExpireMatters(t *testing.T) {
	r, _ := algorithms.ParseRule(live.CheckRule)
	spec, _, err := haproxy.Table(r, haproxy.ShortExpire)
	if err != nil {
		t.Fatal(err)
	}
	tr := live.Bursty3Keys()
	on, _ := algorithms.New(spec, r)
	off, _ := algorithms.New(spec+":without=expiry", r)
	on.Grow(3)
	off.Grow(3)
	differ := 0
	for i, k := range tr.Key {
		t := tr.T[i] - tr.T[0]
		if on.Decide(k, t, 1) != off.Decide(k, t, 1) {
			differ++
		}
		on.Record(k, t, 1)
		off.Record(k, t, 1)
	}
	if differ == 0 {
		t.Errorf("%s decides the check's trace as without its expiry", spec)
	}
}

// The configuration carries the rule as HAProxy writes it.
func TestConfFile(t *testing.T) {
	text, err := haproxy.ConfFile("127.0.0.1:8080", "/tmp/now.lua", algorithms.Rule{L: 5, W: int64(time.Second)}, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"bind 127.0.0.1:8080",
		"stick-table type string len 32 size 100k expire 3000ms store http_req_rate(1000ms)",
		"http-request track-sc0 req.hdr(X-Ratebench-Key)",
		"if { sc_http_req_rate(0) gt 5 }",
		"nbthread 1",
		`lua-load "/tmp/now.lua"`,
		`hdr X-Ratebench-Ms "%[lua.now_ms]"`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the configuration lacks %q:\n%s", want, text)
		}
	}
	if text, err := haproxy.ConfFile("127.0.0.1:8080", "/tmp/now.lua", algorithms.Rule{L: 5, W: int64(time.Second)}, haproxy.ShortExpire); err != nil || !strings.Contains(text, "expire 700ms store") {
		t.Errorf("short-expire: %v\n%s", err, text)
	}
	if _, err := haproxy.ConfFile("127.0.0.1:8080", "/tmp/now.lua", algorithms.Rule{L: 5, W: int64(time.Second)}, "nonesuch"); err == nil {
		t.Error("an unknown variant: want an error")
	}
	if _, err := haproxy.ConfFile("127.0.0.1:8080", "/tmp/now.lua", algorithms.Rule{L: 5, W: int64(1500 * time.Microsecond)}, ""); err == nil {
		t.Error("a window of 1.5 ms: want an error")
	}
}

// A missing program is an error naming the package to install.
func TestMissingBinary(t *testing.T) {
	_, err := haproxy.Version(context.Background(), live.Options{Binary: "/nonexistent/haproxy"})
	if err == nil || !strings.Contains(err.Error(), "apt-get install -y haproxy") {
		t.Fatalf("err %v, want one naming apt-get install -y haproxy", err)
	}
}
