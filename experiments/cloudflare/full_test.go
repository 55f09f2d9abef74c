package cloudflare

import (
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"ratebench/report"
)

// Full replays the search's closest points, the page's order, each into
// its own folder under full/ as a search of one point at the population
// it is given, with the command that replays it; the search read back
// holds them in that order.
func TestFullReplaysClosestPoints(t *testing.T) {
	dir := t.TempDir()
	search := filepath.Join(dir, SearchDir)
	g := testGrid(t)
	if err := (Search{Dir: search, Grid: g, Pop: Population{Requests: 20000, Sources: 30, Seed: 1}, Workers: 2, Stdout: io.Discard, Stderr: io.Discard}).Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	s, err := ReadSearch(search)
	if err != nil {
		t.Fatal(err)
	}
	want := report.CloudflareClosest(s, report.CloudflareFullPoints)
	if len(want) != 3 {
		t.Fatalf("closest %v", want)
	}
	pop := Population{Requests: 40000, Sources: 60, Seed: 1}
	if err := (Full{Dir: dir, Pop: pop, Workers: 2, Stdout: io.Discard, Stderr: io.Discard}).Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if s, err = ReadSearch(search); err != nil {
		t.Fatal(err)
	}
	if len(s.Full) != 3 {
		t.Fatalf("%d points replayed at full scale, want 3", len(s.Full))
	}
	for k, f := range s.Full {
		p := &s.Points[want[k]]
		if len(f.Points) != 1 || !f.Points[0].SameSetting(p) || f.Requests != 40000 || f.Sources != 60 || f.Points[0].Requests != 40000 {
			t.Errorf("full/%d: %+v, want the point of max %g, timeout %q", k+1, f, p.Max, p.Block)
		}
		block := p.Block
		if block == "" {
			block = "0"
		}
		if !strings.Contains(f.Command, "-block '"+block+"'") || !strings.Contains(f.Command, "-requests '40000' -rule '100/1m' -sources '60'") {
			t.Errorf("full/%d: command %s", k+1, f.Command)
		}
	}
}

// Full without a search says so, and writes nothing.
func TestFullWithoutSearch(t *testing.T) {
	dir := t.TempDir()
	err := Full{Dir: dir, Pop: Population{Requests: 4000, Sources: 10, Seed: 1}, Stdout: io.Discard, Stderr: io.Discard}.Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "holds no search") {
		t.Errorf("no search: %v", err)
	}
	if s, err := ReadSearch(filepath.Join(dir, SearchDir)); s != nil || err != nil {
		t.Errorf("wrote %v, %v", s, err)
	}
}
