package main

import (
	"bytes"
	"errors"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"ratebench/compare/resultsdir/resultsdirtest"
	"ratebench/summary"
)

// report runs the report subcommand (registered in main.go's commands by
// whoever wires it; called directly here).
func reportCmd(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	var out, errb bytes.Buffer
	err := runReport(&out, &errb, args)
	return out.String(), errb.String(), err
}

func TestReportFromCompare(t *testing.T) {
	dir := t.TempDir()
	if _, _, err := ratebench(t, "compare", "-trace", "testdata/small.csv", "-rule", "5/30s", "-alg", "log,counter,token,buckets:2,buckets:8", "-o", dir); err != nil {
		t.Fatal(err)
	}
	// The report needs only the summary.
	os.Remove(filepath.Join(dir, "perf.json"))

	stdout, _, err := reportCmd(t, "-max-over", "0.5%", dir, "-png=false")
	if err != nil {
		t.Fatal(err)
	}
	html := filepath.Join(dir, "report.html")
	// It prints the verdict under the budget given, then where it wrote.
	if !strings.HasPrefix(stdout, "Verdict. With the budget over ≤ 0.500% (given to the report)") || !strings.HasSuffix(stdout, "\n\nwrote "+html+"\n") ||
		!strings.Contains(stdout, "over-admits 22.40% of the requests (budget 0.5%)") {
		t.Errorf("stdout = %q", stdout)
	}
	page, err := os.ReadFile(html)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(page, []byte("<svg")) || bytes.Contains(page, []byte("<script")) {
		t.Error("report.html does not inline its plots, or holds a script")
	}
	md, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## Rule 5/30s", "### Decision", "Budget (given to the report): over ≤ 0.500%",
		"](plots/frontier_5-30s_accepted_shadow.svg)"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
	if pngs, _ := filepath.Glob(filepath.Join(dir, "plots", "*.png")); len(pngs) != 0 {
		t.Errorf("-png=false wrote %d PNGs", len(pngs))
	}

	// Again, from the summary's path: the same bytes.
	if _, _, err := reportCmd(t, "-max-over=0.5%", "-png=false", filepath.Join(dir, "summary.json")); err != nil {
		t.Fatal(err)
	}
	md2, _ := os.ReadFile(filepath.Join(dir, "report.md"))
	if !bytes.Equal(md, md2) {
		t.Error("report.md differs when regenerated")
	}

	// By default, a PNG beside every SVG.
	if _, _, err := reportCmd(t, dir); err != nil {
		t.Fatal(err)
	}
	svgs, _ := filepath.Glob(filepath.Join(dir, "plots", "*.svg"))
	pngs, _ := filepath.Glob(filepath.Join(dir, "plots", "*.png"))
	if len(svgs) == 0 || len(pngs) != len(svgs) {
		t.Errorf("%d SVGs, %d PNGs", len(svgs), len(pngs))
	}
}

func TestReportErrors(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{}, {dir, dir}, {"-max-over", "lots", dir}, {"-max-under", "200%", dir}, {"-bogus", dir},
	} {
		_, _, err := reportCmd(t, args...)
		var ue usageError
		if !errors.As(err, &ue) {
			t.Errorf("report %q: err = %v, want a usage error", args, err)
		}
	}
	if _, _, err := reportCmd(t, dir); err == nil || !strings.Contains(err.Error(), "summary.json") {
		t.Errorf("no summary: err = %v", err)
	}
	if _, _, err := reportCmd(t, "-h"); !errors.Is(err, flag.ErrHelp) {
		t.Errorf("-h: %v", err)
	}
}

// report rewrites the report of a results folder, given as the folder or
// its summary.json: a summary file of another name is refused by name (a
// usage error), and nothing is written, rather than the report of the
// summary.json beside it.
func TestReportRefusesAnotherFile(t *testing.T) {
	dir := t.TempDir()
	if _, _, err := ratebench(t, "compare", "-trace", "testdata/small.csv", "-rule", "5/30s", "-alg", "log,counter", "-report=false", "-o", dir); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, summaryFile))
	if err != nil {
		t.Fatal(err)
	}
	alone := t.TempDir()
	for _, x := range []string{filepath.Join(dir, "r1.json"), filepath.Join(alone, "x.json")} {
		if err := os.WriteFile(x, data, 0o644); err != nil {
			t.Fatal(err)
		}
		before := resultsdirtest.Files(t, filepath.Dir(x))
		_, _, err := reportCmd(t, "-png=false", x)
		var ue usageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), x+" is not a results folder or its summary.json") {
			t.Errorf("report %s: %v, want a usage error naming it", x, err)
		}
		sameFiles(t, filepath.Dir(x), before)
	}
}

// A budget rate is the decimal written, read exactly: fixed, which
// over-admits 7 of 125 requests (5.6%), meets -max-over 5.6% and breaks
// 5.5%; a run exactly at a bound meets it, one just above breaks it; the
// rate's shortest decimal is the one written.
func TestParseRateIsTheDecimalWritten(t *testing.T) {
	for _, tc := range []struct {
		in, decimal string
		n, of       int64 // n ÷ of is the bound
	}{
		{"5.6%", "0.056", 7, 125},
		{"5.5%", "0.055", 11, 200},
		{"14.3%", "0.143", 143, 1000},
		{"0.1%", "0.001", 1, 1000},
		{"0.3%", "0.003", 3, 1000},
		{"0.07%", "0.0007", 7, 10000},
		{"7%", "0.07", 7, 100},
		{"0.07", "0.07", 7, 100},
		{"0.056", "0.056", 7, 125},
	} {
		v, err := parseRate(tc.in)
		if err != nil {
			t.Fatalf("parseRate(%q): %v", tc.in, err)
		}
		if got := strconv.FormatFloat(v, 'g', -1, 64); got != tc.decimal {
			t.Errorf("parseRate(%q) = %s, want %s", tc.in, got, tc.decimal)
		}
		bound := summary.PolicyBound{Figure: summary.FigureOverRate, Max: v}
		if at := (&summary.Run{Over: tc.n, Requests: tc.of}); !bound.Holds(at) {
			t.Errorf("-max-over %s: %d over of %d requests breaks it", tc.in, tc.n, tc.of)
		}
		if above := (&summary.Run{Over: tc.n, Requests: tc.of - 1}); bound.Holds(above) {
			t.Errorf("-max-over %s: %d over of %d requests meets it", tc.in, tc.n, tc.of-1)
		}
	}
	fixed := &summary.Run{Over: 7, Requests: 125}
	for in, meets := range map[string]bool{"5.6%": true, "5.5%": false} {
		v, _ := parseRate(in)
		if got := (summary.PolicyBound{Figure: summary.FigureOverRate, Max: v}).Holds(fixed); got != meets {
			t.Errorf("7 over of 125 requests against -max-over %s: meets %v, want %v", in, got, meets)
		}
	}
}

// A budget rate is a percentage (a % suffix) up to 100%, or a fraction
// below 1: a plain 1 is refused, not read as 100%.
func TestParseRate(t *testing.T) {
	for in, want := range map[string]float64{"0.01%": 0.0001, "0.0001": 0.0001, "5%": 0.05, "0": 0, "-0%": 0,
		"1%": 0.01, "0.5%": 0.005, "0.01": 0.01, "100%": 1, "0.999": 0.999} {
		if got, err := parseRate(in); err != nil || got != want || math.Signbit(got) {
			t.Errorf("parseRate(%q) = %v, %v", in, got, err)
		}
	}
	for _, bad := range []string{"x", "-1%", "200%", "150%", "-1", "1", "1.0", "5", "NaN%", "nan", "Inf%", "Inf", "-Inf"} {
		if _, err := parseRate(bad); err == nil {
			t.Errorf("parseRate(%q) accepted", bad)
		}
	}
	for in, want := range map[string]string{
		"1":    `rate "1": a number without % is a fraction below 1 (0.01 is 1%); write 1% for a percentage`,
		"150%": `rate "150%" is above 100%`,
		"-1":   `rate "-1": want a percentage such as 0.01% or a fraction such as 0.0001`,
	} {
		if _, err := parseRate(in); err == nil || err.Error() != want {
			t.Errorf("parseRate(%q): %v, want %q", in, err, want)
		}
	}
}
