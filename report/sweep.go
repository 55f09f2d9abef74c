package report

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"ratebench/algorithms"
	"ratebench/internal/escape"
	"ratebench/internal/numfmt"
	"ratebench/report/markup"
	"ratebench/report/plotkit"
	"ratebench/summary"
)

// sweep writes the section of a sweep (Config.Sweep): per count × mode, a
// table of the disagreement rate per rule, and the rates against L (one
// figure per window) and, with several windows, against W (one per limit).
func (m *model) sweep(d *markup.Document, addFig func(*plotkit.Figure, string) error) error {
	sw := m.s.Config.Sweep
	if sw == nil {
		return nil
	}
	ls, ws := sweepGrid(sw)
	d.Add(markup.Heading{Level: 2, ID: "sweep", Text: markup.Text("Sweep")})
	wText := make([]string, len(ws))
	for i, w := range ws {
		wText[i] = algorithms.FormatWindow(w)
	}
	d.Add(markup.Para{Text: markup.Textf("The rules form a grid, every limit L ∈ {%s} with every window W ∈ {%s}: how each candidate's disagreement with the log moves with the rule.",
		joinInts(ls), joinStrings(wText))})
	for ci, c := range m.sweepCombos() {
		d.Add(markup.Heading{Level: 3, ID: fmt.Sprintf("sweep-%d", ci+1), Text: markup.Text(c.label)})
		if len(c.algs) == 0 {
			d.Add(markup.Para{Text: markup.Text("Only the exact log was run: there is nothing to compare across the grid.")})
			continue
		}
		d.Add(markup.Para{Text: markup.Text("Requests decided differently from the log per rule: disagreement (over / under).")}, c.table(ls, ws))
		if len(ls) >= 2 {
			if err := m.sweepAgainstL(d, addFig, c, ls, ws); err != nil {
				return err
			}
		}
		if len(ws) >= 2 {
			if err := m.sweepAgainstW(d, addFig, c, ls, ws); err != nil {
				return err
			}
		}
	}
	return nil
}

// sweepGrid is the sweep's limits and windows, each positive, distinct
// and in order.
func sweepGrid(sw *summary.Sweep) (ls, ws []int64) {
	for _, l := range sw.L {
		if l > 0 && !slices.Contains(ls, l) {
			ls = append(ls, l)
		}
	}
	slices.Sort(ls)
	for _, w := range sw.W {
		if dur, err := time.ParseDuration(w); err == nil && dur > 0 && !slices.Contains(ws, int64(dur)) {
			ws = append(ws, int64(dur))
		}
	}
	slices.Sort(ws)
	return ls, ws
}

// sweepCombo is one count policy and mode of a sweep: its group at each
// rule of the grid, and the candidates run there.
type sweepCombo struct {
	count, mode, label string
	at                 map[[2]int64]*group // by {L, W}
	algs               []string
}

// sweepCombos are the sweep's count policies and modes, in the order of
// the groups.
func (m *model) sweepCombos() []*sweepCombo {
	var out []*sweepCombo
	for _, g := range m.groups {
		if !slices.ContainsFunc(out, func(c *sweepCombo) bool { return c.count == g.count && c.mode == g.mode }) {
			out = append(out, &sweepCombo{count: g.count, mode: g.mode, label: fmt.Sprintf("count %s, mode %s", g.count, g.mode), at: map[[2]int64]*group{}})
		}
	}
	for _, c := range out {
		for _, g := range m.groups {
			if g.count != c.count || g.mode != c.mode || g.l <= 0 {
				continue
			}
			if c.at[[2]int64{g.l, g.w}] == nil {
				c.at[[2]int64{g.l, g.w}] = g
			}
			for _, r := range g.candidates() {
				if !slices.Contains(c.algs, r.Algorithm) {
					c.algs = append(c.algs, r.Algorithm)
				}
			}
		}
		slices.SortStableFunc(c.algs, func(a, b string) int { return m.algIdx[a] - m.algIdx[b] })
	}
	return out
}

// table is the disagreement rate (over / under) of each candidate per
// rule of the grid.
func (c *sweepCombo) table(ls, ws []int64) markup.Table {
	tb := markup.Table{Head: []string{"rule"}, Right: []bool{false}}
	for _, a := range c.algs {
		tb.Head = append(tb.Head, a)
		tb.Right = append(tb.Right, true)
	}
	for _, w := range ws {
		for _, l := range ls {
			g := c.at[[2]int64{l, w}]
			if g == nil {
				continue
			}
			row := []markup.Inline{markup.Text(g.rule)}
			for _, a := range c.algs {
				r := runOf(g, a)
				if r == nil {
					row = append(row, markup.Text("—"))
					continue
				}
				row = append(row, markup.Textf("%s (%s / %s)", numfmt.Rate(r.DisagreeRate), numfmt.Rate(r.OverRate), numfmt.Rate(r.UnderRate)))
			}
			tb.Rows = append(tb.Rows, row)
		}
	}
	return tb
}

// sweepAgainstL draws, per window, the disagreement against the limit.
func (m *model) sweepAgainstL(d *markup.Document, addFig func(*plotkit.Figure, string) error, c *sweepCombo, ls, ws []int64) error {
	for _, w := range ws {
		xs := make([]float64, 0, len(ls))
		gs := make([]*group, 0, len(ls))
		for _, l := range ls {
			if g := c.at[[2]int64{l, w}]; g != nil {
				xs = append(xs, float64(l))
				gs = append(gs, g)
			}
		}
		wt := algorithms.FormatWindow(w)
		name := m.uniqueName("sweep-L_" + escape.FileName(c.count) + "_" + escape.FileName(c.mode) + "_W" + escape.FileName(wt))
		f := m.sweepFig(name, c.algs, xs, gs, "limit L (cost units per window)",
			fmt.Sprintf("Disagreement against the limit L, window W = %s", wt), c.label)
		if f == nil {
			d.Add(markup.Para{Text: markup.Textf("Window %s: fewer than two rules of the grid were run; no plot against L.", wt)})
		} else if err := addFig(f, ""); err != nil {
			return err
		}
	}
	return nil
}

// sweepAgainstW draws, per limit, the disagreement against the window.
func (m *model) sweepAgainstW(d *markup.Document, addFig func(*plotkit.Figure, string) error, c *sweepCombo, ls, ws []int64) error {
	for _, l := range ls {
		xs := make([]float64, 0, len(ws))
		gs := make([]*group, 0, len(ws))
		for _, w := range ws {
			if g := c.at[[2]int64{l, w}]; g != nil {
				xs = append(xs, float64(w)/1e9)
				gs = append(gs, g)
			}
		}
		name := m.uniqueName("sweep-W_" + escape.FileName(c.count) + "_" + escape.FileName(c.mode) + "_L" + strconv.FormatInt(l, 10))
		f := m.sweepFig(name, c.algs, xs, gs, "window W (seconds)",
			fmt.Sprintf("Disagreement against the window W, limit L = %d", l), c.label)
		if f == nil {
			d.Add(markup.Para{Text: markup.Textf("Limit %d: fewer than two rules of the grid were run; no plot against W.", l)})
		} else if err := addFig(f, ""); err != nil {
			return err
		}
	}
	return nil
}

func runOf(g *group, alg string) *summary.Run {
	for _, r := range g.runs {
		if r.Algorithm == alg {
			return r
		}
	}
	return nil
}

func joinStrings(s []string) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += ", "
		}
		out += x
	}
	return out
}

// sweepFig plots the disagreement, over and under rates of each algorithm
// against xs (one group per x), three panels side by side. It returns nil
// with fewer than two points.
func (m *model) sweepFig(name string, algs []string, xs []float64, gs []*group, xlabel, what, label string) *plotkit.Figure {
	if len(xs) < 2 {
		return nil
	}
	metrics := []struct {
		title string
		get   func(*summary.Run) float64
	}{
		{"disagreement", func(r *summary.Run) float64 { return r.DisagreeRate }},
		{"over-admission", func(r *summary.Run) float64 { return r.OverRate }},
		{"under-admission", func(r *summary.Run) float64 { return r.UnderRate }},
	}
	lo, hi := slices.Min(xs), slices.Max(xs)
	logX := lo > 0 && hi/lo >= 10
	px := slices.Clone(xs)
	if logX {
		for i := range px {
			px[i] = math.Log10(px[i]) // the axis holds log10 (setLog)
		}
	}
	row := make([]*plot.Plot, len(metrics))
	ymax := make([]float64, len(metrics))
	data := make([][]plotter.XYs, len(algs))
	for i, mt := range metrics {
		p := plotkit.NewPanel(mt.title, xlabel, "")
		if i == 0 {
			p.Y.Label.Text = "share of all requests (%)"
		}
		for ai, a := range algs {
			if data[ai] == nil {
				data[ai] = make([]plotter.XYs, len(metrics))
			}
			var xys plotter.XYs
			for k, g := range gs {
				if r := runOf(g, a); r != nil {
					y := 100 * plotkit.Finite(mt.get(r))
					xys = append(xys, plotter.XY{X: px[k], Y: y})
					ymax[i] = math.Max(ymax[i], y)
				}
			}
			data[ai][i] = xys
		}
		if logX {
			plotkit.SetLog(&p.X, lo/1.25, hi*1.25)
		} else {
			pad := (hi - lo) * 0.05
			p.X.Min, p.X.Max = lo-pad, hi+pad
		}
		if ymax[i] == 0 {
			p.Add(plotkit.Note{Text: "all zero"})
			ymax[i] = 1
		}
		p.Y.Min, p.Y.Max = 0, ymax[i]*1.08
		row[i] = p
	}
	legend := m.addMerged(row, mergeSame(algs, data), true)
	return &plotkit.Figure{
		Name:  name,
		Title: what + "\n" + escape.Visible(label),
		Alt:   what + ", " + label,
		Caption: markup.Textf("%s (%s): the share of requests each candidate decided differently from the log, let through (over) and refused (under).",
			what, label),
		Panels: [][]*plot.Plot{row},
		Legend: legend,
		W:      10 * vg.Inch, H: 3.9 * vg.Inch,
	}
}
