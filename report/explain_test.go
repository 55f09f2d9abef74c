package report

import (
	"bytes"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"ratebench/internal/escape"
	"ratebench/summary"
)

// The report names, under a group's top keys, the explain command line
// for the key that disagrees most, on the summary's trace, quoted for a
// shell where it must be.
func TestExplainCommand(t *testing.T) {
	for _, c := range []struct {
		trace summary.TraceInfo
		key   string
		count string
		mode  string
		want  string
	}{
		{summary.TraceInfo{Path: "gen:mix:poisson=0.5,requests=100", Format: "generated"}, "boundary-01", "accepted", "independent",
			"ratebench explain -gen mix:poisson=0.5,requests=100 -key boundary-01 -rule 5/30s -alg counter,token -o out"},
		{summary.TraceInfo{Path: "traces/my log.csv", Format: "csv", TSUnit: "ms", TSUnitFrom: "explicit"}, "it's", "all", "shadow",
			`ratebench explain -trace 'traces/my log.csv' -ts-unit ms -key 'it'\''s' -rule 5/30s -alg counter,token -count all -mode shadow -o out`},
		{summary.TraceInfo{Path: "a.csv", Format: "csv"}, "-x", "accepted", "independent",
			"ratebench explain -trace a.csv -key -x -rule 5/30s -alg counter,token -o out"},
	} {
		if got := escape.ShellCommand(explainArgs(summary.Program, c.trace, nil, c.key, "5/30s", c.count, c.mode, []string{"counter", "token"}, "out")...); got != c.want {
			t.Errorf("got  %s\nwant %s", got, c.want)
		}
	}
	md := string(readFile(t, filepath.Join(write(t, readSummary(t, "small.summary.json"), Options{NoPNG: true}), MarkdownFile)))
	if want := "To see why, replay one key alone (here "; strings.Count(md, want) != 3 {
		t.Errorf("report.md holds %q %d times, want once per group (3)", want, strings.Count(md, want))
	}
	const unspread = "It replays the times as the trace holds them, not spread inside their unit as here"
	if strings.Contains(md, unspread) {
		t.Errorf("report.md of a trace read as it was says it was spread")
	}
	// explain has no -spread: after compare -spread, the hint says its
	// replay is of the times as read.
	spread := readSummary(t, "small.summary.json")
	spread.Trace.Spread = &summary.SpreadInfo{Seed: 7}
	md = string(readFile(t, filepath.Join(write(t, spread, Options{NoPNG: true}), MarkdownFile)))
	if strings.Count(md, unspread) != 3 {
		t.Errorf("report.md of a spread trace holds %q %d times, want once per hint (3)", unspread, strings.Count(md, unspread))
	}
	// Nor placements: after placements, the hint says it replays the
	// recorded clock.
	placed := readSummary(t, "small.summary.json")
	placed.Trace.Placements = &summary.Placements{Count: 2, Seed: 1, UnitNS: 1e9}
	md = string(readFile(t, filepath.Join(write(t, placed, Options{NoPNG: true}), MarkdownFile)))
	const recorded = "It replays the times as the trace holds them, as if every request of a second arrived at once, not placed inside their seconds as here"
	if strings.Count(md, recorded) != 3 {
		t.Errorf("report.md of a placed trace holds %q %d times, want once per hint (3)", recorded, strings.Count(md, recorded))
	}
}

// A key's figure: a lane per algorithm, the log's first, the
// disagreements ringed; an empty span draws too.
func TestKeyFigure(t *testing.T) {
	const s = int64(1e9)
	v := &KeyView{Key: "k<1>", Rule: "2/10s", Count: "accepted", Mode: "independent", L: 2, W: 10 * s,
		Origin: 100 * s, From: 100 * s, To: 130 * s, Algorithms: []string{"fixed", "token"}}
	for i, at := range []int64{100, 101, 109, 111, 112} {
		v.Requests = append(v.Requests, KeyRequest{T: at * s, Cost: 1, Log: i != 2, Exact: int64(min(i, 2)),
			Admit: []bool{i != 4, true}, Estimate: []float64{float64(i % 2), math.NaN()}})
	}
	svg, err := KeyFigure(v, "svg")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{">log<", ">fixed<", ">token (no estimate)<", ">over: admitted, the log refused<", ">L = 2<", "Key k&lt;1&gt;, rule 2/10s"} {
		if !bytes.Contains(svg, []byte(want)) {
			t.Errorf("the SVG lacks %q", want)
		}
	}
	png, err := KeyFigure(v, "png")
	if err != nil || !bytes.HasPrefix(png, []byte("\x89PNG")) {
		t.Errorf("png: %v", err)
	}
	v.Requests, v.To = nil, v.From
	if _, err := KeyFigure(v, "svg"); err != nil {
		t.Errorf("an empty span: %v", err)
	}
}

// A span that ends at the last representable time draws its window edges
// without wrapping around to the first.
func TestKeyFigureAtTheEndOfTime(t *testing.T) {
	const w = int64(1e9)
	v := &KeyView{Key: "k", Rule: "2/1s", Count: "accepted", Mode: "independent", L: 2, W: w,
		Origin: math.MaxInt64 - 3*w, From: math.MaxInt64 - 3*w, To: math.MaxInt64, Algorithms: []string{"fixed"}}
	var err error
	within(t, "the figure of a span ending at the last time", func() { _, err = KeyFigure(v, "svg") })
	if err != nil {
		t.Fatal(err)
	}
}

// A long key's name is cut in the figure's title, an ellipsis last, not
// run off the figure's edges.
func TestKeyFigureLongKey(t *testing.T) {
	const s = int64(1e9)
	key := strings.Repeat("user-0123456789/", 6) // 96 runes: within the bound on a line, wider than the figure
	v := &KeyView{Key: key, Rule: "2/10s", Count: "accepted", Mode: "independent", L: 2, W: 10 * s,
		Origin: 0, From: 0, To: 30 * s, Algorithms: []string{"fixed"},
		Requests: []KeyRequest{{T: s, Cost: 1, Log: true, Exact: 0, Admit: []bool{true}, Estimate: []float64{0}}}}
	svg, err := KeyFigure(v, "svg")
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(svg, []byte(key)) || !bytes.Contains(svg, []byte(">Key user-0123456789/")) || !bytes.Contains(svg, []byte("…</text>")) {
		t.Errorf("the title is not cut with an ellipsis:\n%s", svg[:min(len(svg), 2000)])
	}
}
