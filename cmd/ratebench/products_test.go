package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ratebench/summary"
)

// compareSample runs compare on the small sample under 10/1m with the
// algorithms algs and flags, and returns its output and summary.
func compareSample(t *testing.T, algs string, flags ...string) (string, *summary.Summary) {
	t.Helper()
	dir := t.TempDir()
	args := append([]string{"compare", "-trace", "testdata/small.csv", "-rule", "10/1m", "-alg", algs, "-o", dir}, flags...)
	stdout, _, err := ratebench(t, args...)
	if err != nil {
		t.Fatal(err)
	}
	s, err := summary.ReadSummaryFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	return stdout, s
}

// The deployed products run end to end on the small sample under 10/1m,
// independent mode, with figures fixed by the trace (admitted, over,
// under; the sample has requests of cost 2). Every run is listed once,
// and the products' companions are not.
func TestCompareProductsOnTheSample(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, algs string
		flags      []string
		stdout     []string
		want       map[string][3]int64
	}{
		// envoy counts refused requests: the cost-2 requests leave it a few below fixed.
		{"envoy", "log,envoy,envoy-local,fixed", nil, []string{"envoy-local"}, map[string][3]int64{
			"log": {1271, 0, 0}, "envoy": {1401, 447, 317}, "envoy-local": {1573, 459, 157}, "fixed": {1405, 447, 313},
		}},
		// With its deviations off, each decides as its twin (envoy as fixed,
		// envoy-local as token), and each deviation alone changes the figures.
		{"envoy deviations", "log,envoy,envoy:without=counts-refused,fixed,envoy-local,envoy-local:without=timer-fill,envoy-local:without=one-token,envoy-local:without=timer-fill:without=one-token,token",
			nil, nil, map[string][3]int64{
				"log": {1271, 0, 0}, "envoy": {1401, 447, 317}, "envoy:without=counts-refused": {1405, 447, 313}, "fixed": {1405, 447, 313},
				"envoy-local": {1573, 459, 157}, "envoy-local:without=timer-fill": {1562, 440, 149}, "envoy-local:without=one-token": {1542, 432, 161},
				"envoy-local:without=timer-fill:without=one-token": {1529, 414, 156}, "token": {1529, 414, 156},
			}},
		// kong counts one hit per request whatever its cost; redis-cell at
		// 10/1m has an exact 6 s interval and decides as gcra.
		{"kong and redis-cell", "log,kong,kong:without=one-hit,fixed,redis-cell,gcra", nil, []string{"redis-cell", "kong:without=one-hit"}, map[string][3]int64{
			"log": {1271, 0, 0}, "kong": {1438, 464, 297}, "kong:without=one-hit": {1405, 447, 313}, "fixed": {1405, 447, 313},
			"redis-cell": {1529, 414, 156}, "gcra": {1529, 414, 156},
		}},
		// The sliding window without its ephemeral cache admits as
		// counter-floor (the floored estimate plus the cost within the
		// limit), and counts a cost-2 request refused with one unit of room
		// left, so it admits a few less; the cache, which blocks a refused
		// key till the window's end, refuses a few hundred requests more.
		// The fixed window counts refused requests and blocks them.
		{"upstash", "log,upstash,upstash:without=cache,upstash:without=cache:without=counts-refused,counter-floor,upstash-fixed,fixed,upstash-token,token", nil, []string{"upstash-token"}, map[string][3]int64{
			"log": {1271, 0, 0}, "upstash": {951, 252, 572}, "upstash:without=cache": {1303, 268, 236}, "upstash:without=counts-refused:without=cache": {1325, 276, 222}, "counter-floor": {1325, 276, 222},
			"upstash-fixed": {1401, 447, 317}, "fixed": {1405, 447, 313}, "upstash-token": {1521, 411, 161}, "token": {1529, 414, 156},
		}},
		// ulule counts refused requests in windows anchored at each key's
		// first hit; go-limiter takes one token per request; juju (1 token
		// every 6 s, capacity 10, NewBucketWithRate finding the same)
		// admits about as token does.
		{"go modules", "log,ulule,go-limiter,juju,juju:rate,ulule:without=anchor:without=clock:without=counts-refused,fixed,token", []string{"-report=false"}, nil, map[string][3]int64{
			"log": {1271, 0, 0}, "ulule": {1335, 274, 210}, "go-limiter": {1404, 351, 218}, "juju": {1533, 422, 160}, "juju:rate": {1533, 422, 160},
			"ulule:without=anchor:without=clock:without=counts-refused": {1405, 447, 313}, "fixed": {1405, 447, 313}, "token": {1529, 414, 156},
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			stdout, s := compareSample(t, c.algs, append([]string{"-mode", "independent"}, c.flags...)...)
			for _, w := range c.stdout {
				if !strings.Contains(stdout, w) {
					t.Errorf("stdout lacks %s:\n%s", w, stdout)
				}
			}
			if len(s.Runs) != len(c.want) {
				t.Fatalf("%d runs, want %d", len(s.Runs), len(c.want))
			}
			for _, r := range s.Runs {
				w, ok := c.want[r.Algorithm]
				if got := [3]int64{r.Admitted, r.Over, r.Under}; !ok || got != w || r.Requests != 2000 {
					t.Errorf("%s: admitted, over, under %v of %d, want %v of 2000", r.Algorithm, got, r.Requests, w)
				}
			}
		})
	}
}

// A product refuses a rule it cannot be configured for, and says what it
// takes.
func TestCompareProductsRefuseRulesTheyCannotExpress(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		rule, algs string
		want       []string
	}{
		{"10/90s", "log,envoy", []string{"units are second, minute, hour, day", "not 90s"}},
		{"10/10ms", "envoy-local", []string{"envoy-local:max=N:fill=N:interval=D"}},
		{"10/90s", "log,kong", []string{"second, minute, hour, day, month and year", "not 90s"}},
		{"10/1500ms", "log,redis-cell", []string{"whole number of seconds, not 1500ms", "20/3s has the same rate"}},
		{"10/1500us", "log,upstash", []string{"whole milliseconds"}},
	} {
		_, _, err := ratebench(t, "compare", "-trace", "testdata/small.csv", "-rule", c.rule, "-alg", c.algs, "-o", t.TempDir())
		for _, w := range c.want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("%s under %s: err = %v, want %q", c.algs, c.rule, err, w)
			}
		}
	}
}

// Parameters given in the -alg list (separated by ':', as the list is by
// ','): envoy-local and nginx with their defaults spelled out decide as the
// defaults do.
func TestCompareProductParametersInTheAlgList(t *testing.T) {
	t.Parallel()
	figures := func(algs string) map[string][3]int64 {
		_, s := compareSample(t, algs, "-mode", "independent", "-report=false")
		out := map[string][3]int64{}
		for _, r := range s.Runs {
			name, _, _ := strings.Cut(r.Algorithm, ":")
			out[name] = [3]int64{r.Admitted, r.Over, r.Under}
		}
		return out
	}
	def := figures("log,envoy-local,nginx")
	given := figures("log,envoy-local:max=10:fill=1:interval=6s,nginx:rate=10r/m:burst=9")
	if len(given) != 3 || given["envoy-local"] != def["envoy-local"] || given["nginx"] != def["nginx"] {
		t.Errorf("with parameters %v, defaults %v", given, def)
	}
}

// compare weighs a product's deviations only under -deviations: without
// it, nginx is compared with its twin alone, no deviation is listed, the
// summary says none was weighed, and the terminal and the report say how
// to weigh them; with it, each deviation's share is given, as the
// separate runs of the product with one deviation off give it.
func TestCompareWeighsDeviationsOnlyWhenAsked(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	run := func(name string, flags ...string) (string, *summary.Summary, string) {
		out := filepath.Join(dir, name)
		args := append([]string{"compare", "-trace", "testdata/small.csv", "-rule", "10/1m", "-alg", "log,nginx", "-mode", "independent", "-png=false", "-o", out}, flags...)
		stdout, _, err := ratebench(t, args...)
		if err != nil {
			t.Fatal(err)
		}
		s, err := summary.ReadSummaryFile(filepath.Join(out, "summary.json"))
		if err != nil {
			t.Fatal(err)
		}
		md, err := os.ReadFile(filepath.Join(out, "report.md"))
		if err != nil {
			t.Fatal(err)
		}
		return stdout, s, string(md)
	}
	const how = "each deviation's share: rerun with -deviations"
	stdout, s, md := run("without")
	p := s.RunOf("10/1m", "accepted", "independent", "nginx").Product
	if p == nil || !p.DeviationsNotMeasured || len(p.Deviations) != 0 || p.VsTwin.Total() == 0 || s.Schema != summary.SchemaV1_9 || len(s.Runs) != 2 {
		t.Fatalf("without -deviations: %d runs, schema %s, analysis %+v", len(s.Runs), s.Schema, p)
	}
	if !strings.Contains(stdout, "nginx against its twin token: ") || !strings.Contains(stdout, how) || !strings.Contains(md, "rerun with `-deviations`") {
		t.Errorf("without -deviations, the terminal or the report does not say how to weigh them:\n%s", stdout)
	}
	stdout, w, md := run("with", "-deviations")
	pw := w.RunOf("10/1m", "accepted", "independent", "nginx").Product
	if pw == nil || pw.DeviationsNotMeasured || len(pw.Deviations) != 4 || pw.VsTwin != p.VsTwin || pw.TwinVsLog != p.TwinVsLog || w.Schema != summary.SchemaV1_6 {
		t.Fatalf("with -deviations: schema %s, analysis %+v, without %+v", w.Schema, pw, p)
	}
	if strings.Contains(stdout, how) || strings.Contains(md, "rerun with `-deviations`") || !strings.Contains(stdout, "; each deviation's share: clock ") {
		t.Errorf("with -deviations:\n%s", stdout)
	}
	var algs []string
	for _, d := range pw.Deviations {
		algs = append(algs, d.Without)
	}
	_, sep := compareSample(t, "log,"+strings.Join(algs, ","), "-mode", "independent", "-report=false")
	for _, d := range pw.Deviations {
		r := sep.RunOf("10/1m", "accepted", "independent", d.Without)
		want := float64(pw.VsTwin.Total()-d.VsTwin.Total()) / float64(pw.VsTwin.Total())
		if r == nil || d.VsLog != (summary.Disagreement{Over: r.Over, Under: r.Under}) || d.Share != want {
			t.Errorf("%s: vs log %+v, share %v; its own run %+v, want share %v", d.Name, d.VsLog, d.Share, r, want)
		}
	}
}
