package report

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"ratebench/summary"
)

func diffRow(t *testing.T, d *Diff, figure, count, mode, alg string) DiffRow {
	t.Helper()
	for _, tb := range d.Tables {
		if tb.Figure != figure {
			continue
		}
		for _, r := range tb.Rows {
			if r.Count == count && r.Mode == mode && r.Algorithm == alg {
				return r
			}
		}
	}
	t.Fatalf("no row %s %s %s in the table %q", count, mode, alg, figure)
	return DiffRow{}
}

// A summary against itself: every run matched, every delta 0, no mark.
func TestDiffSelf(t *testing.T) {
	s := readSummary(t, "small.summary.json")
	d := NewDiff(DiffSide{"a", s}, DiffSide{"b", s})
	if d.Matched != len(s.Runs) || len(d.OnlyA)+len(d.OnlyB) != 0 {
		t.Fatalf("matched %d of %d runs, %d only in A, %d only in B", d.Matched, len(s.Runs), len(d.OnlyA), len(d.OnlyB))
	}
	if len(d.Tables) < 8 {
		t.Errorf("%d tables, want every headline figure", len(d.Tables))
	}
	rows := 0
	for _, tb := range d.Tables {
		for _, r := range tb.Rows {
			rows++
			if r.Delta != "0" || r.Mark != "" || r.A != r.B {
				t.Errorf("%s, %s %s %s: A %s, B %s, delta %q, mark %q", tb.Figure, r.Count, r.Mode, r.Algorithm, r.A, r.B, r.Delta, r.Mark)
			}
		}
	}
	if rows < 3*len(s.Runs) {
		t.Errorf("only %d rows", rows)
	}
	var out bytes.Buffer
	if err := d.WriteText(&out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "21 runs matched, 0 only in A, 0 only in B.") {
		t.Errorf("text:\n%s", out.String())
	}
}

// Deltas: rates in percentage points, bytes relative to A, ratios and
// the bias by their difference; marks where a figure appears, vanishes,
// changes sign or is measured on one side only; runs without a match
// listed.
func TestDiffDeltas(t *testing.T) {
	a := readSummary(t, "small.summary.json")
	b := readSummary(t, "small.summary.json")
	run := func(s *summary.Summary, count, mode, alg string) *summary.Run {
		for i := range s.Runs {
			if r := &s.Runs[i]; r.Count == count && r.Mode == mode && r.Algorithm == alg {
				return r
			}
		}
		t.Fatalf("no run %s %s %s", count, mode, alg)
		return nil
	}
	// counter: A over 13.8%, under 23.466667% (net −9.67 pp).
	c := run(b, "accepted", "independent", "counter")
	c.OverRate, c.UnderRate, c.DisagreeRate = 0.30, 0.10, 0.40
	c.Memory.PeakPerKey = 36 // from 24 B
	c.Burst.Ratio = 1.8      // from 1.4
	fx := run(b, "accepted", "independent", "fixed")
	fx.Burst = nil
	fx.UnderRate = 0 // from 9.066667%
	sh := run(b, "accepted", "shadow", "counter")
	sh.RateError.Mean = -0.5 // from 0.418
	// A run only in B and one only in A.
	extra := *run(b, "accepted", "independent", "gcra")
	extra.Algorithm = "gcra-2"
	b.Runs = append(b.Runs, extra)
	for i, r := range b.Runs {
		if r.Count == "accepted" && r.Mode == "shadow" && r.Algorithm == "buckets:8" {
			b.Runs = append(b.Runs[:i], b.Runs[i+1:]...)
			break
		}
	}

	d := NewDiff(DiffSide{"a", a}, DiffSide{"b", b})
	for _, c := range []struct {
		figure, count, mode, alg string
		want                     DiffRow
	}{
		{"over", "accepted", "independent", "counter", DiffRow{A: "13.80%", B: "30.00%", Delta: "+16.2 pp"}},
		{"under", "accepted", "independent", "counter", DiffRow{A: "23.47%", B: "10.00%", Delta: "−13.5 pp"}},
		{"over − under", "accepted", "independent", "counter", DiffRow{A: "−9.67%", B: "+20.00%", Delta: "+29.7 pp", Mark: MarkSign}},
		{"bytes per key (peak)", "accepted", "independent", "counter", DiffRow{A: "24 B", B: "36 B", Delta: "+50%"}},
		{"worst burst ÷ L", "accepted", "independent", "counter", DiffRow{A: "1.4", B: "1.8", Delta: "+0.4"}},
		{"worst burst ÷ L", "accepted", "independent", "fixed", DiffRow{A: "2", B: "—", Delta: "—", Mark: MarkOnlyA}},
		{"under", "accepted", "independent", "fixed", DiffRow{A: "9.07%", B: "0%", Delta: "−9.07 pp", Mark: MarkVanished}},
		{"rate error bias", "accepted", "shadow", "counter", DiffRow{A: "0.418", B: "−0.5", Delta: "−0.918", Mark: MarkSign}},
		{"disagree", "accepted", "independent", "token", DiffRow{A: "30.60%", B: "30.60%", Delta: "0"}},
	} {
		got := diffRow(t, d, c.figure, c.count, c.mode, c.alg)
		got.Rule, got.Count, got.Mode, got.Algorithm = "", "", "", ""
		if got != c.want {
			t.Errorf("%s, %s %s %s: %+v, want %+v", c.figure, c.count, c.mode, c.alg, got, c.want)
		}
	}
	if len(d.OnlyA) != 1 || d.OnlyA[0].Algorithm != "buckets:8" || len(d.OnlyB) != 1 || d.OnlyB[0].Algorithm != "gcra-2" {
		t.Errorf("only in A %v, only in B %v", d.OnlyA, d.OnlyB)
	}
	// The log's disagreement is 0 by definition: not listed.
	for _, tb := range d.Tables {
		for _, r := range tb.Rows {
			if r.Algorithm == "log" && (tb.Figure == "disagree" || tb.Figure == "over") {
				t.Errorf("the log listed for %s", tb.Figure)
			}
		}
	}

	// The page: the same tables, in both formats, the unmatched runs too.
	dir := t.TempDir()
	if err := d.Write(dir); err != nil {
		t.Fatal(err)
	}
	md := string(readFile(t, filepath.Join(dir, DiffMarkdownFile)))
	page := string(readFile(t, filepath.Join(dir, DiffHTMLFile)))
	for _, want := range []string{
		"| 5/30s | accepted | independent | `counter` | −9.67% | +20.00% | +29.7 pp | changed sign |",
		"| B | 5/30s | accepted | independent | gcra-2 |",
		"## Unmatched runs",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("diff.md lacks %q", want)
		}
	}
	for _, want := range []string{"<h2 id=\"unmatched\">Unmatched runs</h2>", "<td class=\"r\">+29.7 pp</td><td>changed sign</td>", "<th>mark</th>"} {
		if !strings.Contains(page, want) {
			t.Errorf("diff.html lacks %q", want)
		}
	}
}

// Two summaries of one rule each, different: the runs match on the rest.
func TestDiffTwoRules(t *testing.T) {
	a := readSummary(t, "small.summary.json")
	b := readSummary(t, "small.summary.json")
	for i := range b.Runs {
		b.Runs[i].Rule = "10/1m"
	}
	d := NewDiff(DiffSide{"a", a}, DiffSide{"b", b})
	if d.Matched != len(a.Runs) || len(d.Notes) == 0 || !strings.Contains(d.Notes[0], "A's rule 5/30s is set against B's rule 10/1m") {
		t.Fatalf("matched %d, notes %q", d.Matched, d.Notes)
	}
	if r := diffRow(t, d, "disagree", "accepted", "independent", "counter"); r.Rule != "5/30s → 10/1m" || r.Delta != "0" {
		t.Errorf("row %+v", r)
	}
}
