package main

import (
	"bytes"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	liveredis "ratebench/live/redis"
)

// parseArgs takes flags anywhere among the arguments: a value flag takes
// the next word whatever it is, a boolean flag never does, -- ends the
// flags, a lone - is an argument.
func TestParseArgsFlagsAnywhere(t *testing.T) {
	for _, c := range []struct {
		args []string
		pos  []string
		o    string
		bad  bool
		rule []string
	}{
		{args: []string{"a", "b", "-o", "x"}, pos: []string{"a", "b"}, o: "x"},
		{args: []string{"-o", "x", "a", "-bad", "b"}, pos: []string{"a", "b"}, o: "x", bad: true},
		{args: []string{"a", "-bad", "b"}, pos: []string{"a", "b"}, bad: true}, // a boolean flag takes no value
		{args: []string{"a", "-bad=false", "b"}, pos: []string{"a", "b"}},      // but may be given one
		{args: []string{"a", "-o", "-bad"}, pos: []string{"a"}, o: "-bad"},     // a value flag's value is never an argument
		{args: []string{"-", "-o", "-"}, pos: []string{"-"}, o: "-"},           // standard input
		{args: []string{"a", "--", "-o", "x"}, pos: []string{"a", "-o", "x"}},  // -- ends the flags
		{args: []string{"--o=x", "a", "-rule", "1/1s", "b", "-rule=2/1s"}, pos: []string{"a", "b"}, o: "x", rule: []string{"1/1s", "2/1s"}},
		{args: []string{"a", "b", "--"}, pos: []string{"a", "b"}},
	} {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		o := fs.String("o", "", "")
		bad := fs.Bool("bad", false, "")
		var rules listFlag
		fs.Var(&rules, "rule", "")
		p, err := parseArgs(fs, c.args)
		if err != nil {
			t.Errorf("%q: %v", c.args, err)
			continue
		}
		if !slices.Equal(p.args, c.pos) || *o != c.o || *bad != c.bad || !slices.Equal(rules, c.rule) {
			t.Errorf("%q: arguments %q, -o %q, -bad %v, -rule %q; want %q, %q, %v, %q", c.args, p.args, *o, *bad, rules, c.pos, c.o, c.bad, c.rule)
		}
	}
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.String("o", "", "")
	for _, args := range [][]string{{"a", "-nope"}, {"a", "-o"}} {
		var ue usageError
		if _, err := parseArgs(fs, args); !errors.As(err, &ue) {
			t.Errorf("%q: err = %v, want a usage error", args, err)
		}
	}
}

// A main file given as an argument and by its flag, or by its flag twice,
// is an error saying so, for every subcommand; so is an argument too many.
func TestMainFileGivenTwice(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"compare", "a.csv", "-trace", "b.csv"}, `compare: the trace is given twice, as the argument "a.csv" and as -trace "b.csv"; give it once`},
		{[]string{"compare", "-trace", "a.csv", "-trace", "b.csv"}, `compare: the trace is given twice, as -trace "a.csv" and as -trace "b.csv"; give it once`},
		{[]string{"compare", "a.csv", "b.csv"}, `compare: unexpected argument "b.csv": it takes one argument, FILE`},
		{[]string{"inspect", "-trace", "b.csv", "a.csv"}, `inspect: the trace is given twice, as the argument "a.csv" and as -trace "b.csv"; give it once`},
		{[]string{"live", "redis:log", "a.csv", "-trace", "b.csv"}, `live redis: the trace is given twice, as the argument "a.csv" and as -trace "b.csv"; give it once`},
		{[]string{"convert", "a.csv", "b.csv", "-o", "c.csv"}, `convert: the output file is given twice, as the argument "b.csv" and as -o "c.csv"; give it once`},
		{[]string{"convert", "a.csv", "b.csv", "-trace", "c.csv"}, `convert: the input trace is given twice, as the argument "a.csv" and as -trace "c.csv"; give it once`},
		{[]string{"convert", "-trace", "a.csv", "-o", "c.csv", "b.csv"}, `convert: unexpected argument "b.csv": IN is given by -trace, OUT is given by -o, which leaves no argument`},
		{[]string{"convert", "a.csv", "b.csv", "c.csv"}, `convert: unexpected argument "c.csv": it takes IN and OUT`},
		{[]string{"convert", "a.csv"}, `convert: want IN and OUT (or -trace IN and -o OUT)`},
		{[]string{"gen", "a.csv", "-o", "b.csv"}, `gen: the output file is given twice, as the argument "a.csv" and as -o "b.csv"; give it once`},
		{[]string{"report", "d", "-o", "e"}, `report: the results folder is given twice, as the argument "d" and as -o "e"; give it once`},
		{[]string{"cloudflare", "d", "-o", "e"}, `cloudflare: the results folder is given twice, as the argument "d" and as -o "e"; give it once`},
		{[]string{"merge", "-o", "d", "s1", "-o", "e"}, `merge: the merged folder is given twice, as -o "d" and as -o "e"; give it once`},
		{[]string{"compare", "a.csv", "-gen", "poisson"}, `give a trace FILE (or -trace FILE) or -gen, not both`},
	} {
		_, _, err := ratebench(t, c.args...)
		var ue usageError
		if !errors.As(err, &ue) || err.Error() != c.want {
			t.Errorf("ratebench %q:\n err  %v\n want %s", c.args, err, c.want)
		}
	}
}

// Every subcommand takes its main file as an argument or by its flag, with
// flags before or after it, to the same effect.
func TestEverySubcommandTakesItsMainFileEitherWay(t *testing.T) {
	dir := t.TempDir()
	const trace = "testdata/small.csv"
	sameOutput := func(name string, forms ...[]string) {
		t.Helper()
		var first string
		for i, args := range forms {
			out, stderr, err := ratebench(t, args...)
			if err != nil {
				t.Errorf("%s: ratebench %q: %v\n%s", name, args, err, stderr)
				return
			}
			if i == 0 {
				first = out
			} else if out != first {
				t.Errorf("%s: ratebench %q printed\n%s\nratebench %q printed\n%s", name, forms[0], first, args, out)
			}
		}
	}
	sameFile := func(name string, path func(i int) string, forms ...[]string) {
		t.Helper()
		var first []byte
		for i, args := range forms {
			if _, stderr, err := ratebench(t, args...); err != nil {
				t.Errorf("%s: ratebench %q: %v\n%s", name, args, err, stderr)
				return
			}
			got, err := os.ReadFile(path(i))
			if err != nil {
				t.Errorf("%s: ratebench %q: %v", name, args, err)
				return
			}
			if i == 0 {
				first = got
			} else if !bytes.Equal(got, first) {
				t.Errorf("%s: ratebench %q wrote other bytes than ratebench %q", name, args, forms[0])
			}
		}
	}
	in := func(name string) func(int) string {
		return func(i int) string { return filepath.Join(dir, name+string(rune('0'+i)), "summary.json") }
	}
	out := func(name string, i int) string { return filepath.Join(dir, name+string(rune('0'+i))) }

	sameOutput("inspect",
		[]string{"inspect", "-trace", trace, "-skip-bad"},
		[]string{"inspect", trace, "-skip-bad"},
		[]string{"inspect", "-skip-bad", trace},
		[]string{"inspect", "-skip-bad", "--", trace})

	cmp := []string{"-rule", "5/30s", "-alg", "counter", "-mode", "independent", "-report=false"}
	sameFile("compare", in("compare"),
		append([]string{"compare", "-trace", trace, "-o", out("compare", 0)}, cmp...),
		append(append([]string{"compare", trace}, cmp...), "-o", out("compare", 1)),
		append(append([]string{"compare"}, cmp...), "-o", out("compare", 2), trace))

	sameFile("gen", func(i int) string { return out("gen", i) + ".csv" },
		[]string{"gen", "-scenario", "boundary", "-requests", "300", "-keys", "3", "-o", out("gen", 0) + ".csv"},
		[]string{"gen", out("gen", 1) + ".csv", "-scenario", "boundary", "-requests", "300", "-keys", "3"},
		[]string{"gen", "-scenario", "boundary", out("gen", 2) + ".csv", "-requests", "300", "-keys", "3"})

	conv := func(i int) string { return out("conv", i) + ".jsonl" }
	sameFile("convert", conv,
		[]string{"convert", trace, conv(0)},
		[]string{"convert", "-trace", trace, "-o", conv(1)},
		[]string{"convert", "-o", conv(2), trace},
		[]string{"convert", "-trace", trace, conv(3)},
		[]string{"convert", trace, "-to", "jsonl", conv(4), "-skip-bad"})

	// The same summary, the same report: whichever way its folder is named.
	sum := filepath.Join(dir, "compare0")
	sameFile("report", func(int) string { return filepath.Join(sum, "report.md") },
		[]string{"report", sum, "-png=false"},
		[]string{"report", "-png=false", "-o", sum},
		[]string{"report", "-png=false", filepath.Join(sum, "summary.json")})

	sameFile("merge", in("merge"),
		[]string{"merge", "-o", out("merge", 0), "-report=false", sum},
		[]string{"merge", sum, "-report=false", "-o", out("merge", 1)})

	cf := []string{"-requests", "3000", "-sources", "30", "-rate", "2", "-workers", "2"}
	sameFile("cloudflare", in("cloudflare"),
		append([]string{"cloudflare", "-o", out("cloudflare", 0)}, cf...),
		append([]string{"cloudflare", out("cloudflare", 1)}, cf...),
		append(append([]string{"cloudflare"}, cf...), out("cloudflare", 2)))
}

// convert IN OUT -ts-unit s: a flag after the arguments is a flag (Go's
// flag package alone stops at the first argument).
func TestConvertFlagAfterTheFiles(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "s.csv")
	os.WriteFile(in, []byte("ts,key\n1,a\n2,b\n"), 0o644)
	outPath := filepath.Join(dir, "ns.csv")
	if _, stderr, err := ratebench(t, "convert", in, outPath, "-ts-unit", "s"); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	got, _ := os.ReadFile(outPath)
	if !strings.Contains(string(got), "1000000000,a") || !strings.Contains(string(got), "2000000000,b") {
		t.Errorf("convert IN OUT -ts-unit s wrote\n%s", got)
	}
}

// live takes its trace as an argument too.
func TestLiveTraceAsArgument(t *testing.T) {
	srv := liveredis.StartForTest(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "t.csv")
	os.WriteFile(path, []byte("ts,key\n1,a\n2,a\n3,b\n"), 0o644)
	stdout, stderr, err := ratebench(t, "live", "redis:log", path, "-addr", srv.Addr, "-o", filepath.Join(dir, "out"))
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if !strings.Contains(stdout, "| `log` | the times it decided at | 3 | 100% | 0 | 0 |") {
		t.Errorf("live redis:log FILE:\n%s", stdout)
	}
}
