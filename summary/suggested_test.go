package summary

import (
	"strings"
	"testing"
)

// A compare suggested on a run carries every flag that shaped its figures:
// the trace's input flags, the reference, the algorithms, the modes and
// count where not the defaults, the budget as it reads back, and the
// placements: -spread after a spread run; -placements and its seed where
// not the defaults, -spread of the first placement's seed where the clock
// is fine for the new rules, -placements 0 after a run on the recorded
// clock; and it writes to the folder it is given.
func TestCompareCommand(t *testing.T) {
	over := 0.0001
	coarse := TraceInfo{Path: "logs/nasa.tsv", Format: "csv", ResolutionNS: 1e9, Input: []InputArg{{"key", "host"}}}
	for _, c := range []struct {
		name   string
		trace  func(t *TraceInfo)
		config func(c *RunConfig)
		rules  []string
		count  string
		budget *Budget
		want   string
	}{
		{"default run", func(t *TraceInfo) { t.ResolutionNS = 1 }, func(c *RunConfig) {}, []string{"19/1m"}, "accepted", nil,
			"ratebench|compare|-trace|logs/nasa.tsv|-key|host|-rule|19/1m|-alg|counter,token|-o|OUT"},
		{"every flag", func(t *TraceInfo) { t.ResolutionNS = 1 }, func(c *RunConfig) { c.Modes, c.Reference = []string{"independent"}, "log:block=1m" },
			[]string{"19/1m", "12/1m"}, "all", &Budget{MaxOver: &over},
			"ratebench|compare|-trace|logs/nasa.tsv|-key|host|-rule|19/1m,12/1m|-ref|log:block=1m|-alg|counter,token|-mode|independent|-count|all|-max-over|0.01%|-o|OUT"},
		{"spread", func(t *TraceInfo) { t.Spread = &SpreadInfo{Seed: 4} }, func(c *RunConfig) {}, []string{"19/1m"}, "accepted", nil,
			"ratebench|compare|-trace|logs/nasa.tsv|-key|host|-rule|19/1m|-alg|counter,token|-spread|-spread-seed|4|-o|OUT"},
		{"spread of the default seed", func(t *TraceInfo) { t.Spread = &SpreadInfo{Seed: DefaultSeed} }, func(c *RunConfig) {}, []string{"19/1m"}, "accepted", nil,
			"ratebench|compare|-trace|logs/nasa.tsv|-key|host|-rule|19/1m|-alg|counter,token|-spread|-o|OUT"},
		{"default placements", func(t *TraceInfo) {
			t.Placements = &Placements{Count: DefaultPlacements, Seed: DefaultSeed, UnitNS: 1e9}
		}, func(c *RunConfig) {},
			[]string{"19/1m"}, "accepted", nil, "ratebench|compare|-trace|logs/nasa.tsv|-key|host|-rule|19/1m|-alg|counter,token|-o|OUT"},
		{"placements", func(t *TraceInfo) { t.Placements = &Placements{Count: 2, Seed: 3, UnitNS: 1e9} }, func(c *RunConfig) {},
			[]string{"19/1m"}, "accepted", nil, "ratebench|compare|-trace|logs/nasa.tsv|-key|host|-rule|19/1m|-alg|counter,token|-placements|2|-placement-seed|3|-o|OUT"},
		{"placements, the clock fine for the new rules", func(t *TraceInfo) { t.Placements = &Placements{Count: 2, Seed: 3, UnitNS: 1e9} },
			func(c *RunConfig) { c.Rules = []string{"1000/10m"} }, []string{"500/10m"}, "accepted", nil,
			"ratebench|compare|-trace|logs/nasa.tsv|-key|host|-rule|500/10m|-alg|counter,token|-spread|-spread-seed|3|-o|OUT"},
		{"the recorded clock", func(t *TraceInfo) {}, func(c *RunConfig) {}, []string{"19/1m"}, "accepted", nil,
			"ratebench|compare|-trace|logs/nasa.tsv|-key|host|-rule|19/1m|-alg|counter,token|-placements|0|-o|OUT"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := &Summary{Trace: coarse, Config: RunConfig{Rules: []string{"30/1m"}, Counts: []string{"accepted", "all"}, Modes: DefaultModes,
				Algorithms: []string{"log", "counter", "token"}}}
			s.Trace.Input = append([]InputArg(nil), coarse.Input...)
			c.trace(&s.Trace)
			c.config(&s.Config)
			if got := strings.Join(s.CompareCommand(Program, c.rules, c.count, c.budget, "OUT"), "|"); got != c.want {
				t.Errorf("got  %s\nwant %s", got, c.want)
			}
		})
	}
}

// A suggested folder is the run's with a hyphen and the change, the
// trace's default folder where the run's is not known, and never the
// run's own; a change of rules names the limits and their window.
func TestSuggestedFolder(t *testing.T) {
	gen := TraceInfo{Path: "gen:mix:poisson=0.7,requests=10", Format: "generated"}
	file := TraceInfo{Path: "logs/access.log.gz", Format: "accesslog"}
	for _, c := range []struct{ got, want string }{
		{file.SuggestedFolder("", RulesChange([]string{"22/1m"})), "results/runs/access-22-1m"},
		{gen.SuggestedFolder("", RulesChange([]string{"10/10s", "9/10s", "4/10s"})), "results/runs/mix-10-9-4-10s"},
		{file.SuggestedFolder("out/my run/", RulesChange([]string{"5/1s", "10/1m"})), "out/my run-5-1s-10-1m"},
		{file.SuggestedFolder(".", ExplainChange("10.0.0.1")), "explain-10.0.0.1"},
		{file.SuggestedFolder("", ExplainChange("a/b c")), "results/runs/access-explain-a-b-c"},
		{file.SuggestedFolder("", ExplainChange(strings.Repeat("k", 100))), "results/runs/access-explain-" + strings.Repeat("k", 64)},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

func TestTraceName(t *testing.T) {
	for in, want := range map[string]string{"-": "stdin", "logs/access.log.gz": "access", "t.parquet": "t", "/": "trace", "a.b.csv": "a", "new\nline.csv": "new-line"} {
		if got := TraceName(in); got != want {
			t.Errorf("TraceName(%q) = %q, want %q", in, got, want)
		}
	}
}
