package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"ratebench/summary"
)

// On an access log where 100/1m never binds, the verdict's first sentence
// says the exact log refuses no request, with the busiest key's peak use,
// and names tighter limits with the command that compares at them; that
// command, pasted from the terminal, runs on the trace read as the replay
// read it, into a folder beside the run's, and the log refuses there what
// the binding said (at most that, under count accepted, and at least one
// request); the report shows the binding table and suggests the same
// command, writing beside the trace's default folder.
func TestVerdictSaysTheRuleDoesNotBind(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip(err)
	}
	sh := suggestedShell{bin: buildCommand(t, t.TempDir()), dir: t.TempDir()}
	abs, err := filepath.Abs(filepath.Join("testdata", "access_out_of_order.log"))
	if err != nil {
		t.Fatal(err)
	}
	trace := shellQuote([]string{abs})
	out, _ := sh.mustRun(t, "ratebench compare -format accesslog -reorder 59s -skip-bad -rule 100/1m -o out "+trace)
	s, err := summary.ReadSummaryFile(filepath.Join(sh.dir, "out", "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Bindings) != 1 || s.Bindings[0].LogRefused != 0 || len(s.Bindings[0].Tighter) == 0 {
		t.Fatalf("bindings %+v", s.Bindings)
	}
	b := s.Bindings[0]
	lines := strings.Split(out, "\n")
	i := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, "Rule 100/1m, count accepted") })
	if i < 0 || i+1 >= len(lines) {
		t.Fatalf("no verdict on the rule:\n%s", out)
	}
	first := lines[i+1]
	for _, want := range []string{"At 100/1m the exact log refuses no request on this trace",
		"the busiest key, " + b.PeakKey + ", peaks at", "choose on memory, or try a tighter rule: " + b.Tighter[0].Rule + " would refuse at most"} {
		if !strings.Contains(first, want) {
			t.Errorf("the verdict's first sentence lacks %q:\n%s", want, first)
		}
	}
	cmds := suggested(terminalCommand, first)
	if len(cmds) != 1 || !strings.Contains(cmds[0], "-format accesslog -reorder 59s -skip-bad -rule ") {
		t.Fatalf("the verdict suggests %q", cmds)
	}
	words := pasteBack(t, cmds[0])
	folder, _ := flagValue(words, "o")
	if !strings.HasPrefix(folder, "out-") {
		t.Errorf("the verdict's command writes to %q, not beside the run's folder, out", folder)
	}
	sh.mustRun(t, cmds[0])
	at, err := summary.ReadSummaryFile(filepath.Join(sh.dir, folder, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range b.Tighter {
		var log *summary.Run
		for i := range at.Runs {
			if r := &at.Runs[i]; r.Rule == tl.Rule && r.Algorithm == "log" && r.Count == "accepted" {
				log = r
			}
		}
		if log == nil || log.Rejected == 0 || log.Rejected > tl.Refused || !tl.UpperBound {
			t.Errorf("at %s the binding said at most %d refusals; the replay: %+v", tl.Rule, tl.Refused, log)
		}
	}
	data, err := os.ReadFile(filepath.Join(sh.dir, "out", "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	md := string(data)
	// The report's command is the same, writing beside the trace's
	// default folder (it does not know where it lies).
	same := strings.Replace(cmds[0], " -o out-", " -o "+summary.RunsDir+"/access_out_of_order-", 1)
	if !strings.Contains(md, "Does 100/1m bind?") || !slices.Contains(suggested(reportCommand, md), same) {
		t.Errorf("the report lacks the binding table or the tighter command %q", same)
	}
}
