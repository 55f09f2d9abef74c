package main

import (
	"flag"
	"fmt"
	"io"
	"path/filepath"

	"ratebench/algorithms"
	"ratebench/compare"
	"ratebench/compare/explain"
	"ratebench/compare/resultsdir"
	"ratebench/internal/escape"
	"ratebench/report"
	"ratebench/summary"
)

const explainSynopsis = "-key K [-rule 5/30s] [-alg counter,fixed,token] [-ref log] [-from T] [-to T] [-o DIR] (FILE | -gen SCENARIO)\n\n" +
	"FILE (or -trace FILE) is the trace. Only the requests of the key K are replayed, through the exact log and\n" +
	"each algorithm, as compare replays them; the disagreements are listed and DIR/explain.svg (and .png) shows\n" +
	"the key's requests over a few windows around the first disagreement (or -from, -to), one lane per algorithm.\n" +
	"The key's identity column or field is -key-by here (-key in the other subcommands)."

// runExplain is 'ratebench explain': one key's requests, replayed through
// the log and the named algorithms, its disagreements listed and drawn.
func runExplain(stdout, stderr io.Writer, args []string) error {
	fs := newFlagSet("explain", stderr, explainSynopsis)
	var tf traceFlags
	registerExplainTrace(fs, &tf)
	genSpec := fs.String("gen", "", "replay a generated `scenario` instead of a trace (as compare -gen)")
	key := fs.String("key", "", "the `key` to explain (required)")
	rule := fs.String("rule", compare.DefaultConfig().Rules[0].String(), "the rule `L/W` (or layered L/W+L/W)")
	algs := fs.String("alg", "counter,fixed,token", "comma-separated `algorithms` to set beside the log: "+specList())
	ref := fs.String("ref", "log", "the `reference`: log, or the log behind a refusal cache, log:block or log:block=D (as compare -ref)")
	count := fs.String("count", string(compare.CountAccepted), "counting `policy`: accepted or all")
	mode := fs.String("mode", string(compare.Independent), "comparison `mode`: independent or shadow")
	from := fs.String("from", "", "start of the span shown: a `time` (RFC 3339) or a duration after the key's first request, e.g. 90s (default: "+fmt.Sprint(explain.Windows)+" windows before the first disagreement)")
	to := fs.String("to", "", "end of the span shown, as -from (default: "+fmt.Sprint(explain.Windows)+" windows after the first disagreement)")
	maxList := fs.Int("list", 20, "disagreements listed at most")
	out := fs.String("o", "", "output `DIR` (default "+runsDir+"/explain-<key>)")
	png := fs.Bool("png", true, "write a PNG beside the SVG")
	if err := parseCommand(fs, args, tf.operand()); err != nil {
		return err
	}
	if !isGiven(fs, "key") {
		fs.Usage()
		return usageError{"explain: want -key K, the key to explain"}
	}
	rules, err := algorithms.ParseRules(*rule)
	if err != nil {
		return usageError{"explain: " + err.Error()}
	}
	primary := algorithms.PrimaryRule(rules)
	listed, err := algorithms.ParseSpecs(*algs, primary)
	if err != nil {
		return usageError{"explain: -alg: " + err.Error()}
	}
	for _, s := range listed.Skipped {
		fmt.Fprintln(stderr, s)
	}
	specs := without(listed.Names, "log") // the reference
	if len(specs) == 0 {
		return usageError{"explain: -alg names no algorithm besides the log"}
	}
	kr, err := compare.NewKeyReplay(rules, *ref, specs, compare.Count(*count), compare.Mode(*mode))
	if err != nil {
		return usageError{"explain: " + err.Error()}
	}
	if *maxList < 0 {
		return usageError{"explain: -list must not be negative"}
	}
	spanFrom, err := explain.ParseBound(*from)
	if err != nil {
		return usageError{"explain: -from " + err.Error()}
	}
	spanTo, err := explain.ParseBound(*to)
	if err != nil {
		return usageError{"explain: -to " + err.Error()}
	}
	dir := *out
	if dir == "" {
		dir = filepath.Join(runsDir, summary.ExplainChange(*key))
	}

	r, path, format, _, err := tf.openOrGenerate(*genSpec)
	if err != nil {
		return err
	}
	defer r.Close()
	ex, err := explain.Replay(r, kr, explain.Options{Key: *key, W: primary.W, From: spanFrom, To: spanTo, MaxList: *maxList})
	if err != nil {
		return tf.adviseReorder(err, format, "explain", rerunArgs(fs, "explain")...)
	}
	if ex.Requests() == 0 {
		return fmt.Errorf("explain: no request of the key %s in %s", escape.ShellWord(*key), escape.Visible(path))
	}
	lo, hi, err := ex.Span()
	if err != nil {
		return usageError{"explain: " + err.Error()}
	}
	view := ex.View(*rule, *count, *mode, primary.L, lo, hi)
	ex.Print(stdout, *rule, *count, *mode, lo, hi, len(view.Requests))
	return writeExplainFigures(stdout, dir, view, *png)
}

// explainOwns tells the files explain owns in its folder: its figures.
func explainOwns(rel string) bool { return rel == "explain.svg" || rel == "explain.png" }

// writeExplainFigures writes the figure of view as dir/explain.svg (and
// .png), locked and staged as every results folder.
func writeExplainFigures(stdout io.Writer, dir string, view *report.KeyView, png bool) error {
	rd, err := resultsdir.Lock(dir)
	if err != nil {
		return err
	}
	defer rd.Close()
	formats := []string{"svg"}
	if png {
		formats = append(formats, "png")
	}
	for _, f := range formats {
		data, err := report.KeyFigure(view, f)
		if err != nil {
			return err
		}
		if err := rd.Write("explain."+f, data); err != nil {
			return err
		}
	}
	if err := rd.Commit(explainOwns); err != nil {
		return err
	}
	for _, f := range formats {
		fmt.Fprintf(stdout, "wrote %s\n", escape.Visible(filepath.Join(dir, "explain."+f)))
	}
	return nil
}

// registerExplainTrace registers the trace-reading flags, -trace among
// them, but the key's identity column as -key-by: explain's -key is the
// key to explain.
func registerExplainTrace(fs *flag.FlagSet, tf *traceFlags) {
	tmp := flag.NewFlagSet(fs.Name(), flag.ContinueOnError)
	tf.register(tmp)
	tmp.VisitAll(func(f *flag.Flag) {
		name := f.Name
		if name == "key" {
			name = "key-by"
		}
		fs.Var(f.Value, name, f.Usage)
	})
}

func isGiven(fs *flag.FlagSet, name string) bool {
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	return given
}

func without(list []string, v string) []string {
	var out []string
	for _, s := range list {
		if s != v {
			out = append(out, s)
		}
	}
	return out
}
