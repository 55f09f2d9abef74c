package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"ratebench/algorithms"
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

// catalogueProducts returns the names and specs of the registered
// products, in the catalogue's order.
func catalogueProducts() (names, specs []string) {
	for _, k := range algorithms.Products() {
		names, specs = append(names, k.Name()), append(specs, k.Spec)
	}
	return names, specs
}

// -alg products is every product, in the catalogue's order; a product the
// rule cannot express (envoy and kong under 5/30s: their windows are whole
// units; aws-waf: its windows are 1 to 10 minutes; cloudflare-waf: its
// periods are 10 s, 1, 2, 5 or 10 min or 1 h; drf-throttling: 1s, 1m,
// 1h or 24h) is left out, said on stderr and in the summary's notes, where the
// same product named is refused. explain reads -alg alike.
func TestAlgSetsLeaveOutWhatTheRuleRefuses(t *testing.T) {
	t.Parallel()
	names, _ := catalogueProducts()
	dir := t.TempDir()
	_, stderr, err := ratebench(t, "compare", "-trace", "testdata/small.csv", "-rule", "5/30s", "-alg", "log,products", "-mode", "independent", "-report=false", "-o", dir)
	if err != nil {
		t.Fatal(err)
	}
	s, err := summary.ReadSummaryFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	left := []string{"envoy", "kong", "aws-waf", "cloudflare-waf", "drf-throttling"}
	want := append([]string{"log"}, slices.DeleteFunc(slices.Clone(names), func(n string) bool { return slices.Contains(left, n) })...)
	if !slices.Equal(s.Config.Algorithms, want) {
		t.Errorf("runs of %v, want %v", s.Config.Algorithms, want)
	}
	for _, p := range left {
		note := p + " is left out of products: it refuses rule 5/30s (algorithm \"" + p + "\": "
		if !strings.Contains(stderr, note) {
			t.Errorf("stderr does not say %q:\n%s", note, stderr)
		}
		if !slices.ContainsFunc(s.Notes, func(n string) bool { return strings.HasPrefix(n, note) }) {
			t.Errorf("the summary's notes do not say %q: %q", note, s.Notes)
		}
	}
	if _, _, err := ratebench(t, "compare", "-trace", "testdata/small.csv", "-rule", "5/30s", "-alg", "log,products,envoy", "-o", t.TempDir()); err == nil || !strings.Contains(err.Error(), "not 30s") {
		t.Errorf("envoy named under 5/30s: %v, want it refused", err)
	}
	_, stderr, err = ratebench(t, "explain", "testdata/small.csv", "-key", "client-06", "-rule", "5/30s", "-alg", "textbook,products", "-png=false", "-o", t.TempDir())
	if err != nil || !strings.Contains(stderr, "kong is left out of products: it refuses rule 5/30s") {
		t.Errorf("explain -alg textbook,products: %v\n%s", err, stderr)
	}
}

// The README's table of products and docs/products.md's list every
// product registered, in the catalogue's order, and nothing else; the
// latter writes each as its spec. A product added to the catalogue is
// added to both tables.
func TestProductTablesListTheCatalogue(t *testing.T) {
	names, specs := catalogueProducts()
	backticked := regexp.MustCompile("`([^`]+)`")
	for _, c := range []struct{ page, header string }{
		{"README.md", "| `-alg` | product |"},
		{"docs/products.md", "| spec | product |"},
	} {
		cells := tableFirstCells(t, filepath.Join("..", "..", c.page), c.header)
		var got []string
		for _, cell := range cells {
			for _, m := range backticked.FindAllStringSubmatch(cell, -1) {
				name, _, _ := strings.Cut(m[1], "[")
				name, _, _ = strings.Cut(name, ":")
				if name != "" && !slices.Contains(got, name) { // "(`:store=redis`)" names a parameter
					got = append(got, name)
				}
			}
		}
		sameSet := true
		for _, n := range names {
			if !slices.Contains(got, n) {
				sameSet = false
				t.Errorf("%s: the table of products lacks %s, a product of the catalogue", c.page, n)
			}
		}
		for _, n := range got {
			if !slices.Contains(names, n) {
				sameSet = false
				t.Errorf("%s: the table of products lists %s, which the catalogue does not hold", c.page, n)
			}
		}
		if sameSet && !slices.Equal(got, names) {
			t.Errorf("%s: the table lists the products in the order %v, want the catalogue's %v", c.page, got, names)
		}
		if c.page != "docs/products.md" {
			continue
		}
		for i, cell := range cells {
			if spec := strings.Trim(strings.ReplaceAll(cell, `\|`, "|"), "` "); i >= len(specs) || spec != specs[i] {
				t.Errorf("%s: row %d is %s, want the catalogue's spec %q", c.page, i+1, cell, specs[min(i, len(specs)-1)])
			}
		}
	}
}

// tableFirstCells returns the first cell of each row of the markdown table
// of page whose header line starts with header.
func tableFirstCells(t *testing.T, page, header string) []string {
	t.Helper()
	text, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(text), "\n")
	start := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, header) })
	if start < 0 {
		t.Fatalf("%s holds no table headed %q", page, header)
	}
	var cells []string
	for _, l := range lines[start+2:] { // past the header and its rule
		if !strings.HasPrefix(l, "|") {
			break
		}
		cell := l[1:]
		for i := 0; i < len(cell); i++ { // the first '|' not escaped ends the cell
			if cell[i] == '|' && (i == 0 || cell[i-1] != '\\') {
				cell = cell[:i]
				break
			}
		}
		cells = append(cells, strings.TrimSpace(cell))
	}
	return cells
}

// The committed results/products ran -alg log,products: their runs are
// the log, then the products in the catalogue's order, up to the last
// product they knew. A product is added at the catalogue's end, so that
// the runs of the results it does not change keep their order.
func TestResultsProductsRanTheCatalogueInOrder(t *testing.T) {
	s, err := summary.ReadSummaryFile(filepath.Join("..", "..", "results", "products", "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	names, _ := catalogueProducts()
	got := s.Config.Algorithms
	if len(got) < 2 || got[0] != "log" || len(got)-1 > len(names) || !slices.Equal(got[1:], names[:len(got)-1]) {
		t.Errorf("results/products ran %v; the catalogue's products are %v", got, names)
	}
}

// compare -h says what -alg takes: every kind of the catalogue and the
// sets, products and textbook.
func TestCompareHelpListsTheAlgSets(t *testing.T) {
	_, stderr, _ := ratebench(t, "compare", "-h")
	_, specs := catalogueProducts()
	for _, want := range append([]string{"products (every deployed product)", "textbook (every textbook algorithm", "buckets:N", "left out with a note"}, specs...) {
		if !strings.Contains(stderr, want) {
			t.Errorf("compare -h does not say %q:\n%s", want, stderr)
		}
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
