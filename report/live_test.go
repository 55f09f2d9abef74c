package report

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ratebench/summary"
)

// A results folder with a live replay through nginx (live.json beside
// summary.json) gets a section for it at the end of the report, with the
// agreements and the causes of disagreement; live.md holds the same.
func TestLiveSectionWhenPresent(t *testing.T) {
	s := readSummary(t, "small.summary.json")
	live := &summary.Live{Schema: summary.LiveSchemaVersion, Target: "nginx", Software: "nginx/1.22.1",
		Trace: summary.LiveTrace{Path: "gen:mix", Format: "generated", Requests: 600, Keys: 6},
		Rule:  "5/1s", Clock: "real", Speed: "20", Clients: 1, Setup: []string{"rate=100r/s", "burst=4", "nodelay"},
		ModelSpec: "nginx:rate=100r/s:burst=4:zone", ModelRule: "5/1s",
		Admitted: 550, Refused: 50,
		Model: summary.LiveAgreement{Against: "nginx:rate=100r/s:burst=4:zone", Times: "nginx's clock", Agree: 600},
		Intended: &summary.LiveAgreement{Against: "nginx:rate=100r/s:burst=4:zone", Times: "the trace's times", Agree: 597, SoftwareOnly: 2, OtherOnly: 1,
			Classes: []summary.LiveClass{{Name: "late", Meaning: "sent in a later millisecond than due", Count: 3, First: 17}}},
	}
	dir := t.TempDir()
	data, _ := json.Marshal(live)
	if err := os.WriteFile(filepath.Join(dir, LiveFile), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Write(dir, s, Options{NoPNG: true}); err != nil {
		t.Fatal(err)
	}
	md := string(readFile(t, filepath.Join(dir, MarkdownFile)))
	for _, want := range []string{
		"## Live replay through nginx/1.22.1",
		"nginx/1.22.1 ran on its own clock, replayed at speed 20, configured with `rate=100r/s`, `burst=4`, `nodelay`, and is set beside its model `nginx:rate=100r/s:burst=4:zone`. It admitted 550 and refused 50.",
		"| `nginx:rate=100r/s:burst=4:zone` | nginx's clock | 600 | 100% | 0 | 0 |",
		"| late | 3 | 17 | sent in a later millisecond than due |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	var b strings.Builder
	if err := LiveMarkdown(&b, live); err != nil || !strings.HasPrefix(b.String(), "# Live replay through nginx/1.22.1\n") || !strings.Contains(b.String(), "## Timing (varies from run to run)") {
		t.Errorf("live.md: %v\n%s", err, b.String())
	}
	if err := os.WriteFile(filepath.Join(dir, LiveFile), []byte(`{"schema": 9}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Write(dir, s, Options{NoPNG: true}); err == nil || !strings.Contains(err.Error(), "schema 9") {
		t.Errorf("another schema: %v", err)
	}
	plain := t.TempDir()
	if err := Write(plain, s, Options{NoPNG: true}); err != nil || strings.Contains(string(readFile(t, filepath.Join(plain, MarkdownFile))), "Live replay") {
		t.Errorf("a folder without live.json: %v", err)
	}
}

// A live.json of a target other than nginx (ratebench live TARGET) is
// not the comparison's: ReadLive leaves it out, whatever its layout, and
// a broken one still fails.
func TestReadLiveLeavesOtherProductsOut(t *testing.T) {
	dir := t.TempDir()
	for _, other := range []string{`{"schema":1,"product":"haproxy","model":{"agree":3}}`, `{"schema":2,"target":"haproxy","model":{"agree":3}}`} {
		if err := os.WriteFile(filepath.Join(dir, LiveFile), []byte(other), 0o644); err != nil {
			t.Fatal(err)
		}
		if r, err := ReadLive(dir); r != nil || err != nil {
			t.Errorf("another product's live.json %s: %v, %v; want nil, nil", other, r, err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, LiveFile), []byte(`{"schema":2,"target":"nginx:burst=3","model":{"agree":3}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if r, err := ReadLive(dir); r == nil || err != nil || r.Model.Agree != 3 {
		t.Errorf("nginx's live.json with a variant: %v, %v; want it read", r, err)
	}
	if err := os.WriteFile(filepath.Join(dir, LiveFile), []byte(`{"schema":99}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadLive(dir); err == nil {
		t.Error("nginx's live.json of schema 99: want an error")
	}
}
