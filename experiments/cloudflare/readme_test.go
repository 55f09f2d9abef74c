package cloudflare

import (
	"os"
	"strings"
	"testing"

	"ratebench/summary"
)

// The committed run is of the published experiment: the command its page
// gives, read back from its summary, has no flag.
func TestCommandOfCommittedRun(t *testing.T) {
	committed, err := summary.ReadSummaryFile("../../results/cloudflare/summary.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := checkExperiment(committed); err != nil {
		t.Errorf("the committed run is not the experiment's: %v", err)
	}
	if got := commandOf(committed); got != "ratebench cloudflare" {
		t.Errorf("the committed run's command reads %q", got)
	}
	sum := *committed
	sum.Trace.Path += ",max=4"
	sum.Config.Rules = []string{"10/1s"}
	if got, want := commandOf(&sum), "ratebench cloudflare -max 4 -rule 10/1s"; got != want {
		t.Errorf("a run with -max 4 -rule 10/1s reads %q, want %q", got, want)
	}
}

// A page rewritten without perf.json keeps the timing sentence its full
// run wrote: the end of its "Trace: " line, from " Wall time ".
func TestKeptTiming(t *testing.T) {
	page, err := os.ReadFile("../../results/cloudflare/README.md")
	if err != nil {
		t.Fatal(err)
	}
	timing := keptTiming(string(page))
	if !strings.HasPrefix(timing, " Wall time ") || !strings.HasSuffix(timing, ".") || !strings.Contains(string(page), ". Rule 100/1m."+timing+"\n") {
		t.Errorf("timing %q", timing)
	}
	if got := keptTiming("Trace: 10 requests from 2 sources. Rule 100/1m.\n"); got != "" {
		t.Errorf("a page without timing: %q", got)
	}
}
