package resultsdir

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"ratebench/summary"
)

// A live replay's folder holds its live.json and live.md, whole, beside a
// comparison's files, which it leaves alone.
func TestWriteLive(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, SummaryFile), []byte("{}"), 0o644)
	res := &summary.Live{Schema: summary.LiveSchemaVersion, Target: "redis:log", Software: "Redis 7.0.15", Rule: "5/1s", Clock: "driven", Clients: 1,
		Model: summary.LiveAgreement{Against: "log", Times: "the times it decided at", Agree: 3}}
	d, err := Lock(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.WriteLive(res); err != nil {
		t.Fatal(err)
	}
	if err := d.Commit(OwnsLive); err != nil {
		t.Fatal(err)
	}
	d.Close()
	if got, want := files(t, dir), []string{"live.json", LiveMarkdownFile, SummaryFile}; !slices.Equal(got, want) {
		t.Errorf("the folder holds %v, want %v", got, want)
	}
	var back summary.Live
	if b, err := os.ReadFile(filepath.Join(dir, "live.json")); err != nil || json.Unmarshal(b, &back) != nil || back.Target != "redis:log" || back.Model.Agree != 3 {
		t.Errorf("live.json %+v (%v)", back, err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, LiveMarkdownFile)); !strings.HasPrefix(string(b), "# Live replay through Redis 7.0.15\n") {
		t.Errorf("live.md:\n%s", b)
	}
	if OwnsLive(SummaryFile) || !OwnsLive("live.json") || !OwnsLive(LiveMarkdownFile) {
		t.Error("OwnsLive claims the summary, or not its own files")
	}
}
