package main

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"ratebench/report"
	"ratebench/summary"
)

// On a whole-second trace under 10/1s the figures are, by default, those
// of five placements of the requests inside their second: each run holds
// every placement's counts, the first of which are the run's and those of
// -spread with the same seed; the recorded clock's counts are kept, and
// are those of -placements 0; the verdict's choice meets the policy in
// every placement; the verdict opens by saying so.
func TestComparePlacesOnACoarseClock(t *testing.T) {
	path := wholeSecondCSV(t, false)
	placed, md, stderr := compareInto(t, path, "-rule", "10/1s")
	recorded, _, _ := compareInto(t, path, "-rule", "10/1s", "-placements", "0")
	first, _, _ := compareInto(t, path, "-rule", "10/1s", "-spread", "-spread-seed", "1")
	third, _, _ := compareInto(t, path, "-rule", "10/1s", "-spread", "-spread-seed", "3")

	pl := placed.Trace.Placements
	if pl == nil || pl.Count != 5 || pl.Seed != 1 || pl.UnitNS != 1e9 || placed.Schema != summary.SchemaV1_8 {
		t.Fatalf("placements %+v, schema %s", pl, placed.Schema)
	}
	if recorded.Trace.Placements != nil || recorded.Schema == summary.SchemaV1_8 {
		t.Errorf("-placements 0 placed: %+v", recorded.Trace.Placements)
	}
	if placed.Trace.ResolutionNS != recorded.Trace.ResolutionNS || placed.Trace.SameTime != recorded.Trace.SameTime || placed.Trace.EndNS != recorded.Trace.EndNS {
		t.Errorf("the placed summary's trace %+v is not the trace as read %+v", placed.Trace, recorded.Trace)
	}
	varies := false
	for i := range placed.Runs {
		r := &placed.Runs[i]
		p := r.Placed
		if p == nil || len(p.Over) != 5 || len(p.Under) != 5 || len(p.Rejected) != 5 {
			t.Fatalf("%s: placed %+v", r.Algorithm, p)
		}
		if f := first.Runs[i]; r.Over != f.Over || r.Under != f.Under || r.Rejected != f.Rejected || p.Over[0] != f.Over {
			t.Errorf("%s: first placement over %d under %d, -spread-seed 1 gives %d, %d", r.Algorithm, r.Over, r.Under, f.Over, f.Under)
		}
		if th := third.Runs[i]; p.Over[2] != th.Over || p.Under[2] != th.Under || p.Rejected[2] != th.Rejected ||
			p.KeysOver[2] != th.KeysOver || p.KeysUnder[2] != th.KeysUnder || p.KeysDisagree[2] != th.KeysDisagree {
			t.Errorf("%s: third placement %+v, -spread-seed 3 gives over %d under %d keys %d/%d", r.Algorithm, p, th.Over, th.Under, th.KeysOver, th.KeysUnder)
		} else if v := r.Views()[2]; (th.Burst == nil) != (v.Burst == nil) || th.Burst != nil && (v.Burst.Max != th.Burst.Max || v.Burst.Ratio != th.Burst.Ratio) {
			t.Errorf("%s: third placement's burst %+v, -spread-seed 3 gives %+v", r.Algorithm, v.Burst, th.Burst)
		}
		rec := placed.RecordedOf(r)
		if o := recorded.Runs[i]; rec == nil || rec.Over != o.Over || rec.Under != o.Under || rec.Rejected != o.Rejected {
			t.Errorf("%s: recorded %+v, -placements 0 gives over %d under %d", r.Algorithm, rec, o.Over, o.Under)
		}
		varies = varies || summary.SpreadOf(p.Disagree()).Varies()
	}
	if !varies {
		t.Error("no figure differs between the placements: the test's trace shows nothing")
	}
	for _, v := range placed.Verdict.Rules {
		r := placed.RunOf(v.Rule, v.Count, v.Mode, v.Choice)
		if r == nil {
			t.Fatalf("choice %q has no run", v.Choice)
		}
		for _, view := range r.Views() {
			if b := summary.Breaks(view, placed.Verdict.Policy.Bounds); b != nil {
				t.Errorf("%s, chosen, breaks %v in a placement (over %d under %d)", v.Choice, b, view.Over, view.Under)
			}
		}
	}
	for _, want := range []string{"placing the requests inside their 1s: replay 5 of 5 (seed 5)", "figures are those of 5 placements"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if !strings.Contains(md, "The trace's clock stamps whole seconds, too coarse to tell where inside its second each request arrived") {
		t.Errorf("report.md does not open on the clock:\n%s", md)
	}
}

// A bound holds on a placed run only when it holds in every placement, so
// the verdict and check are robust to where the requests arrived.
func TestPlacedBoundHoldsInEveryPlacement(t *testing.T) {
	r := &summary.Run{Rule: "10/1s", Count: "accepted", Mode: "independent", Algorithm: "gcra", Requests: 1000, Rejected: 10, Admitted: 990,
		Placed: &summary.Placed{Rejected: []int64{10, 10, 10}, Over: []int64{0, 0, 3}, Under: []int64{0, 0, 0}, LogRefused: []int64{10, 10, 13}}}
	b := summary.PolicyBound{Figure: summary.FigureOverRate, Max: 0.001}
	if b.Holds(r) {
		t.Error("a bound broken in the third placement holds")
	}
	r.Placed.Over[2] = 1
	if !b.Holds(r) {
		t.Error("a bound met in every placement breaks")
	}
}

// Placed shards merge into the whole placed replay, exactly.
func TestPlacedShardsMerge(t *testing.T) {
	path := wholeSecondCSV(t, false)
	dirs := map[string]string{}
	for _, run := range []struct{ name, shard string }{{"whole", ""}, {"shard0", "0/2"}, {"shard1", "1/2"}} {
		dir := filepath.Join(t.TempDir(), run.name)
		args := []string{"compare", "-trace", path, "-rule", "10/1s", "-alg", "counter,token", "-report=false", "-placements", "3", "-o", dir}
		if run.shard != "" {
			args = append(args, "-shard", run.shard)
		}
		if _, stderr, err := ratebench(t, args...); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, stderr)
		}
		dirs[run.name] = dir
	}
	merged := filepath.Join(t.TempDir(), "merged")
	if _, stderr, err := ratebench(t, "merge", "-o", merged, "-report=false", dirs["shard0"], dirs["shard1"]); err != nil {
		t.Fatalf("merge: %v\n%s", err, stderr)
	}
	m, err := summary.ReadSummaryFile(filepath.Join(merged, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	whole, err := summary.ReadSummaryFile(filepath.Join(dirs["whole"], "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	if m.Trace.Placements == nil || m.Trace.Placements.Count != 3 {
		t.Fatalf("merged placements %+v", m.Trace.Placements)
	}
	for i := range whole.Runs {
		w, g := whole.Runs[i].Placed, m.Runs[i].Placed
		if g == nil || !slices.Equal(w.Over, g.Over) || !slices.Equal(w.Under, g.Under) || !slices.Equal(w.Rejected, g.Rejected) || !slices.Equal(w.LogRefused, g.LogRefused) ||
			!slices.Equal(w.KeysOver, g.KeysOver) || !slices.Equal(w.KeysUnder, g.KeysUnder) || !slices.Equal(w.KeysDisagree, g.KeysDisagree) || !slices.Equal(w.BurstMax, g.BurstMax) {
			t.Errorf("%s: merged placed %+v, whole %+v", whole.Runs[i].Algorithm, g, w)
		}
		if wr, gr := whole.RecordedOf(&whole.Runs[i]), m.RecordedOf(&m.Runs[i]); *wr.LogRefused != *gr.LogRefused || wr.Over != gr.Over || wr.Under != gr.Under {
			t.Errorf("%s: merged recorded %+v, whole %+v", whole.Runs[i].Algorithm, gr, wr)
		}
	}
	if whole.Verdict.Rules[0].Choice != m.Verdict.Rules[0].Choice {
		t.Errorf("merged choice %s, whole %s", m.Verdict.Rules[0].Choice, whole.Verdict.Rules[0].Choice)
	}
}

// The committed whole-second log under 3/1s: on the recorded clock gcra
// decides as the exact log does and would be chosen; placed inside their
// seconds it lets through most of the log's refusals, so the default
// verdict is not gcra, and says both. summary.json holds the ranges.
func TestWholeSecondLogIsNotAnsweredByItsClock(t *testing.T) {
	s, md, _ := compareInto(t, ciSample, "-key", "host", "-ts", "time", "-rule", "3/1s", "-alg", "log,gcra,fixed,counter", "-mode", "independent")
	v := s.Verdict.Of("3/1s", "accepted", "independent")
	rec := s.Trace.Placements.Recorded.Verdict.Of("3/1s", "accepted", "independent")
	if v == nil || rec == nil || v.Choice == "gcra" || rec.Choice != "gcra" {
		t.Fatalf("choice %+v, on the recorded clock %+v", v, rec)
	}
	g := s.RunOf("3/1s", "accepted", "independent", "gcra")
	over := g.RangeOf(summary.PolicyBound{Figure: summary.FigureOverOfRefused}.Value)
	if !over.OK || over.Min < 0.5 || !g.RangeOf(summary.PolicyBound{Figure: summary.FigureDisagreeRate}.Value).Varies() {
		t.Errorf("gcra's share of the log's refusals let through over the placements %+v", over)
	}
	for _, want := range []string{
		"The trace's clock stamps whole seconds",
		"The rule 3/1s is finer than the clock",
		"On the recorded clock, as if every request of a second arrived at once, the choice at 3/1s would be gcra; placed inside their seconds, it decides ",
		"Each bar is the median over the 5 placements of the requests inside their 1s, its label the range where they differ.",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the report lacks %q", want)
		}
	}
}

// The committed whole-minute log under 10/1s: the recorded clock puts a
// minute's requests at one instant and the exact log refuses 12.8% of
// them; placed inside their minutes it refuses none. The figures are the
// placements', and the verdict's first sentence says the rule is finer
// than the clock.
func TestWholeMinuteLogFinerRule(t *testing.T) {
	const minutes = "testdata/minutes.csv"
	s, md, _ := compareInto(t, minutes, "-key", "user", "-ts", "time", "-rule", "10/1s", "-alg", "log,gcra,fixed", "-mode", "independent")
	log := s.RunOf("10/1s", "accepted", "independent", "log")
	rec := s.RecordedOf(log)
	if rec == nil || rec.Rejected < 300 {
		t.Fatalf("the recorded clock's log refusals %+v: the sample no longer shows the clock's artefact", rec)
	}
	if hi := summary.SpreadOf(log.Placed.Rejected).Max; hi*10 > rec.Rejected {
		t.Errorf("placed, the log refuses up to %d; on the recorded clock %d", hi, rec.Rejected)
	}
	if log.Rejected != log.Placed.Rejected[0] || *s.Runs[1].LogRefused != log.Rejected {
		t.Errorf("the figures are not the placements': log refuses %d, placed %v", log.Rejected, log.Placed.Rejected)
	}
	verdict := md[strings.Index(md, "## Verdict"):]
	first := verdict[:strings.Index(verdict, ". ")]
	if !strings.Contains(first, "The trace's clock stamps whole minutes") {
		t.Errorf("the verdict does not open on the clock: %q", first)
	}
	if !strings.Contains(verdict, "The rule 10/1s is finer than the clock") || !strings.Contains(verdict, "on the recorded clock it would refuse 384 (12.80%)") {
		t.Errorf("verdict:\n%s", verdict[:min(len(verdict), 1500)])
	}
}

// check says when the figures rest on placements, and holds each run to
// its worst placement: gcra, within 1% over in some placements of the
// whole-second log at 10/1m and not in all, breaks -max-over 0.6%.
func TestCheckSaysPlacements(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	if _, stderr, err := ratebench(t, "compare", "-trace", ciSample, "-key", "host", "-ts", "time", "-rule", "10/1m", "-alg", "log,gcra", "-mode", "independent", "-report=false", "-o", dir); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	s, err := summary.ReadSummaryFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	g := s.RunOf("10/1m", "accepted", "independent", "gcra").RangeOf(summary.PolicyBound{Figure: summary.FigureOverRate}.Value)
	if !g.Varies() || g.Min > 0.006 || g.Max <= 0.006 {
		t.Fatalf("gcra's over-admission over the placements %+v: the test needs it to straddle 0.6%%", g)
	}
	// runs.csv gives the count of placements and gcra's over-admissions
	// over them: median, least, largest.
	rows, err := csv.NewReader(bytes.NewReader(report.RunsCSV(s))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	over := summary.SpreadOf(s.RunOf("10/1m", "accepted", "independent", "gcra").Placed.Over)
	if r := rows[2]; r[col["algorithm"]] != "gcra" || r[col["placements"]] != "5" || r[col["over_median"]] != fmt.Sprint(over.Median) ||
		r[col["over_min"]] != fmt.Sprint(over.Min) || r[col["over_max"]] != fmt.Sprint(over.Max) {
		t.Errorf("runs.csv row %v, gcra's over %+v", r, over)
	}
	out, _, err := ratebench(t, "check", "-alg", "gcra", "-max-over", "0.6%", dir)
	if exitStatus(err) != breachStatus || !strings.Contains(out, "placed: the trace's clock is too coarse for a rule, so the figures are over 5 placements of the requests inside their 1s") ||
		!strings.Contains(out, "✗ 10/1m, count accepted, independent: over_rate 0.750% > 0.6%") {
		t.Errorf("check: %v\n%s", err, out)
	}
}
