package main

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// workflowStep is one step of a GitHub Actions workflow: the action it
// uses or the shell command it runs.
type workflowStep struct{ uses, run string }

// ciPageBlocks returns the code blocks of docs/ci.md that open with
// ```lang, in order.
func ciPageBlocks(t *testing.T, page, lang string) []string {
	t.Helper()
	var blocks []string
	var cur *strings.Builder
	sc := bufio.NewScanner(strings.NewReader(page))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case cur == nil && line == "```"+lang:
			cur = &strings.Builder{}
		case cur != nil && strings.HasPrefix(line, "```"):
			blocks = append(blocks, cur.String())
			cur = nil
		case cur != nil:
			cur.WriteString(line + "\n")
		}
	}
	return blocks
}

// workflowSteps reads the steps of a workflow: each "- " item under
// steps:, its uses: and its run: (one line, or a | block of the lines
// indented below it).
func workflowSteps(t *testing.T, yaml string) []workflowStep {
	t.Helper()
	var steps []workflowStep
	lines := strings.Split(yaml, "\n")
	for i := 0; i < len(lines); i++ {
		trimmed := strings.TrimSpace(lines[i])
		if strings.HasPrefix(trimmed, "- ") {
			steps = append(steps, workflowStep{})
			trimmed = strings.TrimPrefix(trimmed, "- ")
		}
		if len(steps) == 0 {
			continue
		}
		st := &steps[len(steps)-1]
		switch {
		case strings.HasPrefix(trimmed, "uses: "):
			st.uses = strings.TrimPrefix(trimmed, "uses: ")
		case trimmed == "run: |":
			indent := len(lines[i]) - len(strings.TrimLeft(lines[i], " "))
			for i+1 < len(lines) && (strings.TrimSpace(lines[i+1]) == "" || len(lines[i+1])-len(strings.TrimLeft(lines[i+1], " ")) > indent) {
				i++
				st.run += strings.TrimSpace(lines[i]) + "\n"
			}
		case strings.HasPrefix(trimmed, "run: "):
			st.run = strings.TrimPrefix(trimmed, "run: ")
		}
	}
	return steps
}

// exitOf is a finished command's exit status (-1 when it did not run).
func exitOf(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}

// The GitHub Actions workflow of docs/ci.md runs, step by step as the
// runner would (bash -e; the actions/* steps, checkout, setup-go and the
// artifact's upload, are the runner's), in a clone: it builds, replays,
// passes its gate and writes the verdict to the job summary. Its gate
// exits with the breach status under a budget too tight and with the
// input error's status on a folder that does not exist; the plain shell
// script of the page runs too.
func TestCIPageWorkflowRuns(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(filepath.Join(root, "docs", "ci.md"))
	if err != nil {
		t.Fatal(err)
	}
	yamls := ciPageBlocks(t, string(page), "yaml")
	scripts := ciPageBlocks(t, string(page), "sh")
	if len(yamls) != 1 || len(scripts) != 1 {
		t.Fatalf("docs/ci.md has %d yaml and %d sh blocks, want one workflow and one script", len(yamls), len(scripts))
	}
	steps := workflowSteps(t, yamls[0])
	clone := freshClone(t, root)
	jobSummary := filepath.Join(t.TempDir(), "step_summary.md")
	env := append(os.Environ(), "GITHUB_STEP_SUMMARY="+jobSummary, "GOFLAGS=-buildvcs=false")
	shell := func(sh, script string) (int, string) {
		cmd := exec.Command(sh, "-e", "-c", script)
		cmd.Dir, cmd.Env = clone, env
		out, err := cmd.CombinedOutput()
		return exitOf(err), string(out)
	}
	var gate string
	ran := 0
	for _, st := range steps {
		switch {
		case st.uses != "":
			if !strings.HasPrefix(st.uses, "actions/") {
				t.Fatalf("step uses %q: only the runner's actions/* are skipped", st.uses)
			}
			continue
		case st.run == "":
			t.Fatalf("a step neither uses an action nor runs a command: %+v", st)
		}
		if status, out := shell("bash", st.run); status != 0 {
			t.Fatalf("workflow step %q: exit status %d\n%s", st.run, status, out)
		}
		ran++
		if strings.Contains(st.run, "ratebench check ") {
			gate = strings.TrimSpace(st.run)
		}
	}
	if ran < 4 || gate == "" {
		t.Fatalf("ran %d steps, gate %q: want the build, the replay, the gate and the job summary", ran, gate)
	}
	sum, err := os.ReadFile(jobSummary)
	if err != nil || !strings.Contains(string(sum), "## Verdict") || !strings.Contains(string(sum), "Choose") || strings.Contains(string(sum), "## Rule ") {
		t.Errorf("the job summary does not hold the verdict (%v):\n%s", err, sum)
	}
	if status, out := shell("bash", gate+" -max-over 0"); status != breachStatus || !strings.Contains(out, "✗") {
		t.Errorf("gate under a too tight budget: status %d, want %d\n%s", status, breachStatus, out)
	}
	f := strings.Fields(gate)
	for i := range f {
		if f[i] == "check" && i+1 < len(f) {
			f[i+1] = "results/runs/no-such-folder"
		}
	}
	if status, out := shell("bash", strings.Join(f, " ")); status != 1 {
		t.Errorf("gate on a missing folder: status %d, want 1\n%s", status, out)
	}

	if err := os.RemoveAll(filepath.Join(clone, "results", "runs")); err != nil {
		t.Fatal(err)
	}
	if status, out := shell("sh", scripts[0]); status != 0 || !strings.Contains(out, "✓") || !strings.Contains(out, "## Verdict") {
		t.Errorf("the shell script: status %d\n%s", status, out)
	}
}
