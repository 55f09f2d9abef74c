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
	live := &summary.LiveNginx{Schema: summary.LiveSchemaVersion,
		Trace:    summary.LiveTrace{Path: "gen:mix", Format: "generated", Requests: 600, Keys: 6},
		Setup:    summary.LiveSetup{Rule: "5/1s", Speed: "20", Clients: 1, NginxRate: "100r/s", Burst: 4, NoDelay: true, ModelSpec: "nginx:rate=100r/s:burst=4:zone", Nginx: "nginx/1.22.1"},
		Admitted: 550, Refused: 50,
		Model: summary.LiveAgreement{Against: "nginx:rate=100r/s:burst=4:zone", Times: "nginx's clock", Agree: 600},
		Intended: summary.LiveAgreement{Against: "nginx:rate=100r/s:burst=4:zone", Times: "the trace's times", Agree: 597, NginxOnly: 2, OtherOnly: 1,
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
		"## Live replay through a real nginx",
		"nginx/1.22.1 was configured with `rate=100r/s`, `burst=4`, `nodelay`. It admitted 550 and refused 50 (429).",
		"| `nginx:rate=100r/s:burst=4:zone` | nginx's clock | 600 | 100% | 0 | 0 |",
		"| late | 3 | 17 | sent in a later millisecond than due |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	var b strings.Builder
	if err := LiveMarkdown(&b, live); err != nil || !strings.HasPrefix(b.String(), "# Live replay through a real nginx\n") || !strings.Contains(b.String(), "## Timing (varies from run to run)") {
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

// A live.json of a product other than nginx (ratebench live PRODUCT) is
// not the comparison's: ReadLive leaves it out, and a broken one still
// fails.
func TestReadLiveLeavesOtherProductsOut(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, LiveFile), []byte(`{"schema":1,"product":"haproxy","model":{"agree":3}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if r, err := ReadLive(dir); r != nil || err != nil {
		t.Errorf("another product's live.json: %v, %v; want nil, nil", r, err)
	}
	if err := os.WriteFile(filepath.Join(dir, LiveFile), []byte(`{"schema":99}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadLive(dir); err == nil {
		t.Error("nginx's live.json of schema 99: want an error")
	}
}
