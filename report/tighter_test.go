package report

import (
	"strings"
	"testing"

	"ratebench/report/markup"
	"ratebench/summary"
)

// The tighter limits are the plain log's: behind a refusal cache the
// text says so; "at most" where the share is an upper bound.
func TestTighterText(t *testing.T) {
	b := &summary.Binding{Tighter: []summary.TighterLimit{{Rule: "98/1m", Share: 0.001, UpperBound: true}, {Rule: "56/1m", Share: 0.0102}}}
	for ref, want := range map[string]string{
		"":             "98/1m would refuse at most 0.100% of the requests, 56/1m 1.02%",
		"log:block=1m": "98/1m would refuse at most 0.100% of the requests without the refusal cache, 56/1m 1.02%",
	} {
		m := &model{s: &summary.Summary{Config: summary.RunConfig{Reference: ref}}}
		if got := m.tighterText(b); got != want {
			t.Errorf("reference %q: %q, want %q", ref, got, want)
		}
	}
}

// The targets the log reaches already at the rule have no tighter limit,
// and the report says why: under count accepted a rerun that refuses
// 0.090% (at least half of 0.1%) is offered the 1% and 10% targets, not
// 21/1m for 0.1%; under count all, at 5%, the 0.1% and 1% targets.
func TestTighterReachedTargetsSaid(t *testing.T) {
	bin := func(use, requests int64) summary.UseBin { return summary.UseBin{Use: use, Requests: requests} }
	bins := []summary.UseBin{bin(10, 80000), bin(15, 10000), bin(19, 9000), bin(21, 900), bin(22, 10), bin(23, 90)}
	s := &summary.Summary{Config: summary.RunConfig{Rules: []string{"22/1m"}, Counts: []string{"accepted"}, Modes: []string{"independent"}, Algorithms: []string{"log", "fixed"}}}
	for _, alg := range []string{"log", "fixed"} {
		s.Runs = append(s.Runs, summary.Run{Rule: "22/1m", Count: "accepted", Mode: "independent", Algorithm: alg, Requests: 100000, Admitted: 100000 - 90, Rejected: 90, Keys: 10})
	}
	b := summary.Binding{Rule: "22/1m", Count: "accepted", Requests: 100000, LogRefused: 90, KeysRefused: 3, PeakUse: 23, PeakKey: "k", UseBins: bins}
	if err := b.SetTighter(); err != nil {
		t.Fatal(err)
	}
	s.Bindings = []summary.Binding{b}
	m := newModel(s, Options{})
	line, ok := m.bindingLine(m.groups[0])
	got := markup.Plain(line)
	if !ok || !strings.Contains(got, "(no tighter limit for 0.1%: the log already refuses 0.090% of the requests at this rule, at least half of 0.1%)") ||
		!strings.Contains(got, "try a tighter rule: 19/1m would refuse at most 1.00% of the requests") || strings.Contains(got, "21/1m") {
		t.Errorf("binding line: %s", got)
	}

	all := summary.Binding{Rule: "22/1m", Count: "all", Requests: 100000, LogRefused: 5000, PeakUse: 23, PeakKey: "k",
		UseBins: []summary.UseBin{bin(10, 80000), bin(15, 5000), bin(20, 10000), bin(23, 5000)}}
	if err := all.SetTighter(); err != nil {
		t.Fatal(err)
	}
	if got, want := reachedText(&all), "no tighter limit for 0.1% and 1%: the log already refuses 5.00% of the requests at this rule"; got != want {
		t.Errorf("count all at 5%%: %q, want %q", got, want)
	}
	if len(all.Tighter) != 1 || all.Tighter[0].Rule != "19/1m" || all.Tighter[0].Refused != 15000 {
		t.Errorf("count all at 5%%: tighter %+v, want 19/1m refusing 15,000 for 10%%", all.Tighter)
	}
}

// The tighter rule's command is the run's at the tighter limits: in the
// terminal (Verdict with Options.Program and Folder) it calls ratebench as
// invoked and writes beside the run's folder; in the report it calls
// ratebench and writes beside the trace's default folder; both carry the
// modes, the count policy and the budget, and never write to the run's
// folder.
func TestTighterCommand(t *testing.T) {
	bin := func(use, requests int64) summary.UseBin { return summary.UseBin{Use: use, Requests: requests} }
	over := 0.02
	s := &summary.Summary{Trace: summary.TraceInfo{Path: "logs/t.csv", Format: "csv", Requests: 100000},
		Config: summary.RunConfig{Rules: []string{"22/1m"}, Counts: []string{"all"}, Modes: []string{"independent"}, Algorithms: []string{"log", "fixed"},
			Budget: &summary.Budget{MaxOver: &over}}}
	for _, alg := range []string{"log", "fixed"} {
		s.Runs = append(s.Runs, summary.Run{Rule: "22/1m", Count: "all", Mode: "independent", Algorithm: alg, Requests: 100000, Admitted: 100000, Keys: 10})
	}
	b := summary.Binding{Rule: "22/1m", Count: "all", Requests: 100000, PeakUse: 21, PeakKey: "k", UseBins: []summary.UseBin{bin(10, 90000), bin(19, 9000), bin(21, 1000)}}
	if err := b.SetTighter(); err != nil {
		t.Fatal(err)
	}
	s.Bindings = []summary.Binding{b}
	const flags = " compare -trace logs/t.csv -rule 20/1m,18/1m -alg fixed -mode independent -count all -max-over 2% -o "
	for _, c := range []struct {
		opt  Options
		want string
	}{
		{Options{Program: "bin/ratebench", Folder: "out/run"}, "bin/ratebench" + flags + "out/run-20-18-1m-all"},
		{Options{}, "ratebench" + flags + "results/runs/t-20-18-1m-all"},
	} {
		if got := Verdict(s, c.opt); !strings.Contains(got, ": "+c.want+"\n") {
			t.Errorf("options %+v: the verdict suggests no %s\n%s", c.opt, c.want, got)
		}
	}
}
