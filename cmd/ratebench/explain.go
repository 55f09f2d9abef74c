package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"ratebench/algorithms"
	"ratebench/compare"
	"ratebench/internal/escape"
	"ratebench/report"
	"ratebench/summary"
	"ratebench/traces"
)

const explainSynopsis = "-key K [-rule 5/30s] [-alg counter,fixed,token] [-from T] [-to T] [-o DIR] (FILE | -gen SCENARIO)\n\n" +
	"FILE (or -trace FILE) is the trace. Only the requests of the key K are replayed, through the exact log and\n" +
	"each algorithm, as compare replays them; the disagreements are listed and DIR/explain.svg (and .png) shows\n" +
	"the key's requests over a few windows around the first disagreement (or -from, -to), one lane per algorithm.\n" +
	"The key's identity column or field is -key-by here (-key in the other subcommands)."

// explainWindows is how many windows of the rule the plot shows on each
// side of the key's first disagreement, by default.
const explainWindows = 2

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
	count := fs.String("count", string(compare.CountAccepted), "counting `policy`: accepted or all")
	mode := fs.String("mode", string(compare.Independent), "comparison `mode`: independent or shadow")
	from := fs.String("from", "", "start of the span shown: a `time` (RFC 3339) or a duration after the key's first request, e.g. 90s (default: "+fmt.Sprint(explainWindows)+" windows before the first disagreement)")
	to := fs.String("to", "", "end of the span shown, as -from (default: "+fmt.Sprint(explainWindows)+" windows after the first disagreement)")
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
	specs, err := algorithms.ParseSpecs(*algs, primary)
	if err != nil {
		return usageError{"explain: -alg: " + err.Error()}
	}
	specs = without(specs, "log") // the reference
	if len(specs) == 0 {
		return usageError{"explain: -alg names no algorithm besides the log"}
	}
	kr, err := compare.NewKeyReplay(rules, specs, compare.Count(*count), compare.Mode(*mode))
	if err != nil {
		return usageError{"explain: " + err.Error()}
	}
	if *maxList < 0 {
		return usageError{"explain: -list must not be negative"}
	}
	spanFrom, err := parseSpanBound("-from", *from)
	if err != nil {
		return err
	}
	spanTo, err := parseSpanBound("-to", *to)
	if err != nil {
		return err
	}
	dir := *out
	if dir == "" {
		dir = filepath.Join(runsDir, "explain-"+escape.FileName(keyPrefix(*key, 64)))
	}

	r, path, _, _, err := tf.openOrGenerate(*genSpec)
	if err != nil {
		return err
	}
	defer r.Close()
	ex := &explanation{key: *key, algs: kr.Algorithms(), w: primary.W, from: spanFrom, to: spanTo, maxList: *maxList,
		over: make([]int64, len(specs)), under: make([]int64, len(specs))}
	for r.Scan() {
		q := r.Request()
		if string(q.Key) != *key {
			continue
		}
		d, err := kr.Add(q.T, q.Cost)
		if err != nil {
			return &traces.ParseError{Pos: r.Pos(), Msg: err.Error()}
		}
		ex.add(d)
	}
	if err := r.Err(); err != nil {
		return err
	}
	if ex.requests == 0 {
		return fmt.Errorf("explain: no request of the key %q in %s", escape.Visible(*key), escape.Visible(path))
	}
	lo, hi := ex.span()
	view := &report.KeyView{Key: *key, Rule: *rule, Count: *count, Mode: *mode, L: primary.L, W: primary.W,
		Origin: ex.origin, From: lo, To: hi, Algorithms: ex.algs}
	for _, d := range ex.kept {
		if d.T >= lo && d.T <= hi {
			view.Requests = append(view.Requests, report.KeyRequest{T: d.T, Cost: d.Cost, Log: d.Log, Exact: d.Exact, Admit: d.Admit, Estimate: d.Estimate})
		}
	}
	ex.print(stdout, *rule, *count, *mode, lo, hi, len(view.Requests))

	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	formats := []string{"svg"}
	if *png {
		formats = append(formats, "png")
	}
	for _, f := range formats {
		data, err := report.KeyFigure(view, f)
		if err != nil {
			return err
		}
		p := filepath.Join(dir, "explain."+f)
		if err := summary.WriteFileAtomic(p, data); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote %s\n", p)
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

// spanBound is a bound of the span shown: an absolute time, or an offset
// from the key's first request.
type spanBound struct {
	set      bool
	absolute bool
	ns       int64
}

func parseSpanBound(flagName, v string) (spanBound, error) {
	if v == "" {
		return spanBound{}, nil
	}
	if d, err := time.ParseDuration(v); err == nil {
		return spanBound{set: true, ns: int64(d)}, nil
	}
	if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
		return spanBound{set: true, absolute: true, ns: t.UnixNano()}, nil
	}
	return spanBound{}, usageError{fmt.Sprintf("explain: %s %q: want a duration after the key's first request (90s, 5m) or an RFC 3339 time (2024-01-01T00:01:30Z)", flagName, v)}
}

func (b spanBound) at(origin int64) int64 {
	if b.absolute {
		return b.ns
	}
	return origin + b.ns
}

// explanation gathers, while the trace streams by, what explain shows of
// one key: its totals, its first disagreements, and its requests in the
// span shown (only those: memory follows the key's requests in the span).
type explanation struct {
	key      string
	algs     []string
	w        int64
	from, to spanBound
	maxList  int

	requests     int64
	origin, last int64
	over, under  []int64
	listed       []disagreement
	more         int64
	firstDis     int64 // time of the first disagreement, if seen
	seenDis      bool
	kept         []compare.KeyDecision // the requests in the span shown
	head, recent []compare.KeyDecision // before the first disagreement (see keep)
	started      bool                  // kept holds the span around the first disagreement
}

type disagreement struct {
	d   compare.KeyDecision
	alg int
}

func (e *explanation) add(d compare.KeyDecision) {
	if e.requests == 0 {
		e.origin = d.T
	}
	e.requests++
	e.last = d.T
	dis := false
	for i, a := range d.Admit {
		if a == d.Log {
			continue
		}
		dis = true
		if a {
			e.over[i]++
		} else {
			e.under[i]++
		}
		if len(e.listed) < e.maxList {
			e.listed = append(e.listed, disagreement{d, i})
		} else {
			e.more++
		}
	}
	if dis && !e.seenDis {
		e.seenDis, e.firstDis = true, d.T
	}
	e.keep(d)
}

// keep holds d if it may be in the span shown, and lets go of what can no
// longer be: before the first disagreement, the requests of the last
// windows (where the span starts if one comes) and those of the key's
// first windows (the span if none comes).
func (e *explanation) keep(d compare.KeyDecision) {
	before := int64(explainWindows) * e.w
	switch {
	case e.from.set || e.to.set:
		lo, hi := e.bounds()
		if d.T >= lo && d.T <= hi {
			e.kept = append(e.kept, d)
		}
	case !e.seenDis:
		if d.T <= e.origin+2*before {
			e.head = append(e.head, d)
		}
		e.recent = append(e.recent, d)
		i := 0
		for i < len(e.recent) && e.recent[i].T < d.T-before {
			i++
		}
		e.recent = e.recent[i:]
	case !e.started:
		// The first disagreement: the span starts in the windows before it.
		i := 0
		for i < len(e.recent) && e.recent[i].T < d.T-before {
			i++
		}
		e.kept = append(e.recent[i:], d)
		e.head, e.recent, e.started = nil, nil, true
	case d.T <= e.firstDis+before:
		e.kept = append(e.kept, d)
	}
}

// bounds is the span given by -from and -to, once the origin is known; a
// bound not given is the key's first (or last) request.
func (e *explanation) bounds() (int64, int64) {
	lo, hi := e.origin, int64(1<<63-1)
	if e.from.set {
		lo = e.from.at(e.origin)
	}
	if e.to.set {
		hi = e.to.at(e.origin)
	}
	return lo, hi
}

// span is the span shown once the trace is read.
func (e *explanation) span() (int64, int64) {
	before := int64(explainWindows) * e.w
	switch {
	case e.from.set || e.to.set:
		lo, hi := e.bounds()
		if !e.to.set {
			hi = e.last
		}
		return lo, max(hi, lo)
	case e.seenDis:
		return max(e.firstDis-before, e.origin), min(e.firstDis+before, e.last)
	}
	e.kept = e.head
	return e.origin, min(e.origin+2*before, e.last)
}

func (e *explanation) print(w io.Writer, rule, count, mode string, lo, hi int64, shown int) {
	fmt.Fprintf(w, "key %s: %d requests, rule %s, count %s, mode %s\n", escape.Visible(keyQuoted(e.key)), e.requests, escape.Visible(rule), count, mode)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for i, a := range e.algs {
		fmt.Fprintf(tw, "  %s\t%d disagreements:\t%d over,\t%d under\n", a, e.over[i]+e.under[i], e.over[i], e.under[i])
	}
	tw.Flush()
	total := int64(len(e.listed)) + e.more
	if total == 0 {
		fmt.Fprintln(w, "no disagreement: every algorithm decided as the log on every request of the key")
	} else {
		if e.more > 0 {
			fmt.Fprintf(w, "\nthe first %d of %d disagreements:\n", len(e.listed), total)
		} else {
			fmt.Fprintf(w, "\n%d disagreements:\n", total)
		}
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  time\tafter first\talgorithm\tlog decided\talgorithm decided\tkind\tlog's count in (t-W, t]\talgorithm's estimate")
		for _, x := range e.listed {
			kind := "over"
			if x.d.Log {
				kind = "under"
			}
			estimate := "-"
			if v := x.d.Estimate[x.alg]; v == v { // not NaN
				estimate = fmt.Sprintf("%.4g", v)
			}
			fmt.Fprintf(tw, "  %s\t+%s\t%s\t%s\t%s\t%s\t%d\t%s\n", time.Unix(0, x.d.T).UTC().Format(time.RFC3339Nano),
				time.Duration(x.d.T-e.origin), e.algs[x.alg], decided(x.d.Log), decided(x.d.Admit[x.alg]), kind, x.d.Exact, estimate)
		}
		tw.Flush()
	}
	fmt.Fprintf(w, "\nplotted: %d requests from %s to %s (+%s to +%s after the key's first request)\n", shown,
		time.Unix(0, lo).UTC().Format(time.RFC3339Nano), time.Unix(0, hi).UTC().Format(time.RFC3339Nano),
		time.Duration(lo-e.origin), time.Duration(hi-e.origin))
}

func decided(admit bool) string {
	if admit {
		return "admitted"
	}
	return "refused"
}

func keyQuoted(k string) string {
	if k == "" || strings.ContainsAny(k, " \t") {
		return fmt.Sprintf("%q", k)
	}
	return k
}

// keyPrefix is key's first n bytes at most: a folder name for any key, however long.
func keyPrefix(key string, n int) string {
	if len(key) > n {
		return key[:n]
	}
	return key
}
