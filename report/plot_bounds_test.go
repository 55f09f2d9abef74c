package report

import (
	"bytes"
	"fmt"
	"image/png"
	"math"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/plot/vg"

	"ratebench/algorithms"
	"ratebench/compare"
	"ratebench/report/plotkit"
	"ratebench/summary"
)

// maxPixels is the largest side a PNG may have: maxFigureSide at pngDPI.
var maxPixels = int(math.Round(float64(plotkit.MaxFigureSide/vg.Inch) * plotkit.PNGDPI))

// within runs f, failing the test if it does not return within a minute:
// a guard against the rasterizer's loop, not a timing assertion.
func within(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatalf("%s did not finish: the plots loop", what)
	}
}

// checkBounded fails the test on a plot of dir larger than the bounds: a
// PNG of more than maxPixels a side, an SVG of more than maxFigureSide.
func checkBounded(t *testing.T, dir string) {
	t.Helper()
	pngs, _ := filepath.Glob(filepath.Join(dir, PlotsDir, "*.png"))
	svgs, _ := filepath.Glob(filepath.Join(dir, PlotsDir, "*.svg"))
	if len(svgs) == 0 {
		t.Fatal("no plots written")
	}
	for _, p := range pngs {
		b := readFile(t, p)
		c, err := png.DecodeConfig(bytes.NewReader(b))
		if err != nil || c.Width > maxPixels || c.Height > maxPixels || c.Width == 0 || c.Height == 0 {
			t.Errorf("%s: %d × %d pixels (%v), want at most %d a side", filepath.Base(p), c.Width, c.Height, err, maxPixels)
		}
	}
	size := regexp.MustCompile(`<svg[^>]*width="([0-9.]+)pt"[^>]*height="([0-9.]+)pt"`)
	for _, p := range svgs {
		m := size.FindSubmatch(readFile(t, p))
		if m == nil {
			t.Errorf("%s: no size", filepath.Base(p))
			continue
		}
		for _, v := range m[1:] {
			if f, _ := strconv.ParseFloat(string(v), 64); f > float64(plotkit.MaxFigureSide)+0.5 || f <= 0 {
				t.Errorf("%s: a side of %s points, want at most %v", filepath.Base(p), v, plotkit.MaxFigureSide)
			}
		}
	}
}

// A juju with the largest capacity and quantum has a 72-character name,
// whose legend entry left the panels a width that is not a number: the
// report draws, its plots within the bounds.
func TestLongAlgorithmNameDrawsBounded(t *testing.T) {
	rule, err := algorithms.ParseRule("10/1m")
	if err != nil {
		t.Fatal(err)
	}
	const juju = "juju:capacity=9223372036854775807:quantum=9223372036854775807:interval=1ns"
	e, err := compare.New(compare.Config{Rules: []algorithms.Rule{rule}, Algorithms: []string{"counter", juju}, Modes: []compare.Mode{compare.Independent}})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 400 {
		if err := e.Add([]byte(fmt.Sprintf("k%d", i%7)), int64(i)*1_300_000_000, 1); err != nil {
			t.Fatal(err)
		}
	}
	s := e.Summary(summary.TraceInfo{Path: "t.csv", Format: "csv"})
	dir := t.TempDir()
	within(t, "the report of "+juju, func() { err = Write(dir, s, Options{}) })
	if err != nil {
		t.Fatal(err)
	}
	checkBounded(t, dir)
}

// A 58-character algorithm name in a summary, and 300 algorithms: the
// report draws, its plots within the bounds.
func TestManyAndLongNamesDrawBounded(t *testing.T) {
	s := readSummary(t, "small.summary.json")
	long := strings.Repeat("n", 58)
	for i := range s.Runs {
		if s.Runs[i].Algorithm == "token" {
			s.Runs[i].Algorithm = long
		}
	}
	for i, a := range s.Config.Algorithms {
		if a == "token" {
			s.Config.Algorithms[i] = long
		}
	}
	dir := t.TempDir()
	var err error
	within(t, "the report with a 58-character name", func() { err = Write(dir, s, Options{}) })
	if err != nil {
		t.Fatal(err)
	}
	checkBounded(t, dir)

	s = readSummary(t, "small.summary.json")
	var runs []summary.Run
	for _, r := range s.Runs {
		if r.Algorithm != "counter" {
			runs = append(runs, r)
			continue
		}
		for n := 1; n <= 300; n++ {
			c := r
			c.Algorithm = fmt.Sprintf("buckets:%d", n)
			c.Over += int64(n)
			runs = append(runs, c)
			if r.Count == "accepted" && r.Mode == "independent" && n == 1 {
				s.Config.Algorithms = append(s.Config.Algorithms, c.Algorithm)
			}
		}
	}
	for n := 2; n <= 300; n++ {
		s.Config.Algorithms = append(s.Config.Algorithms, fmt.Sprintf("buckets:%d", n))
	}
	s.Runs = runs
	dir = t.TempDir()
	within(t, "the report of 300 algorithms", func() { err = Write(dir, s, Options{NoPNG: true}) })
	if err != nil {
		t.Fatal(err)
	}
	checkBounded(t, dir)
	// One PNG, the tallest kind, rasterized within the bounds.
	svgs, _ := filepath.Glob(filepath.Join(dir, PlotsDir, "divergence_*.svg"))
	if len(svgs) == 0 {
		t.Fatal("no divergence plot")
	}
	m := newModel(s, Options{})
	f, _ := m.divergenceFig(m.groupsOf(m.rules[0])[0])
	var b []byte
	within(t, "the PNG of 300 algorithms", func() { b, err = f.Render("png") })
	if err != nil {
		t.Fatal(err)
	}
	if c, err := png.DecodeConfig(bytes.NewReader(b)); err != nil || c.Height > maxPixels || c.Width > maxPixels {
		t.Errorf("the PNG of 300 algorithms is %d × %d pixels (%v)", c.Width, c.Height, err)
	}
}
