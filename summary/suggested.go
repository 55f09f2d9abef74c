package summary

import (
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"ratebench/internal/escape"
	"ratebench/internal/numfmt"
)

// Suggested commands. The report and the terminal suggest command lines
// to run next: a tighter limit, one key explained, the trace read again
// with -reorder. Each runs as pasted and gives the figures its sentence
// promises, so each carries every flag of the run that shapes them, read
// from the summary (the report reads nothing else): how the trace was
// read (TraceInfo.Command); the reference, algorithms, modes, count
// policy and budget; how the requests were spread or placed inside a
// coarse clock's unit (PlacementArgs). One that writes results names a
// folder of its own (TraceInfo.SuggestedFolder), never that of the run it
// came from, which it would otherwise overwrite: a compare without -o
// writes to RunsDir/<trace name>, the run's own folder when it had no -o
// either.
//
// The program's name. The terminal calls ratebench as it was invoked
// (bin/ratebench after make build, ratebench from the PATH), so that a
// suggestion pasted into the same shell runs the same binary. A report
// calls it Program, whatever binary wrote it: its bytes depend on the
// summary alone, so that regenerating it (ratebench report DIR, make
// report-check) gives the same file, and the name a binary was invoked by
// is of one shell on one machine, not of the summary. The report says
// once that a checkout built by make has it at bin/ratebench.

// Program is the name a report's commands call ratebench by: the name go
// install puts on the PATH.
const Program = "ratebench"

// RunsDir is where compare writes its results when no -o names a folder:
// RunsDir/<trace name> (TraceInfo.Name), a folder git ignores.
const RunsDir = "results/runs"

// DefaultSeed is the seed of compare's -spread-seed and -placement-seed
// when not given: a suggestion leaves out a seed of this value.
const DefaultSeed = 1

// DefaultModes are compare's modes when -mode is not given: a suggestion
// leaves out a -mode of these.
var DefaultModes = []string{"independent", "shadow"}

// TraceName is the trace file's base name without extension, for the
// default results folder: as it is if it prints on one line, else made a
// file name of letters, digits, '-' and '.' (escape.FileName), so that no
// newline or terminal escape reaches a folder's name; "stdin" for
// standard input.
func TraceName(path string) string {
	if path == "-" {
		return "stdin"
	}
	base := filepath.Base(path)
	for ext := filepath.Ext(base); ext != ""; ext = filepath.Ext(base) {
		base = strings.TrimSuffix(base, ext)
	}
	if base == "" || base == "." || base == string(filepath.Separator) {
		return "trace"
	}
	if escape.Visible(base) != base {
		return escape.FileName(base)
	}
	return base
}

// Name is the name compare gives the trace's default results folder
// (RunsDir/Name): a generated trace's scenario ("mix" of gen:mix:...), a
// file's TraceName.
func (t TraceInfo) Name() string {
	if spec, ok := strings.CutPrefix(t.Path, "gen:"); ok && t.Format == "generated" {
		return strings.SplitN(spec, ":", 2)[0]
	}
	return TraceName(t.Path)
}

// SuggestedFolder is the results folder of a command suggested on the
// run whose folder is from, changed as change says ("22-1m",
// "explain-k1"): from, a hyphen and change. The report does not know
// where its summary lies (its bytes must not depend on it): there from is
// "", and the run's folder is taken as compare's default for the trace,
// RunsDir/Name.
func (t TraceInfo) SuggestedFolder(from, change string) string {
	if from == "" {
		from = filepath.Join(RunsDir, t.Name())
	}
	from = filepath.Clean(from)
	if base := filepath.Base(from); base == "." || base == ".." || base == string(filepath.Separator) {
		return filepath.Join(from, change)
	}
	return from + "-" + change
}

// RulesChange names the change to rules in a folder name: "22-1m" for
// 22/1m, "11-10-7-1m" for limits of one window, else the rules joined
// ("5-1s-10-1m").
func RulesChange(rules []string) string {
	var limits []string
	window := ""
	for _, r := range rules {
		l, w, ok := strings.Cut(r, "/")
		if !ok || strings.Contains(r, "+") || window != "" && w != window {
			return escape.FileName(strings.Join(rules, "-"))
		}
		limits, window = append(limits, l), w
	}
	return escape.FileName(strings.Join(limits, "-") + "-" + window)
}

// ExplainChange names one key explained in a folder name: "explain-" and
// the key's first 64 bytes made a file name (escape.FileName), as
// explain's default folder is named.
func ExplainChange(key string) string {
	if len(key) > 64 {
		key = key[:64]
	}
	return "explain-" + escape.FileName(key)
}

// Args are the words of the budget flags that give b (compare's, report's),
// its rates written so that they read back exactly (numfmt.FlagRate);
// none for a nil budget.
func (b *Budget) Args() []string {
	if b == nil {
		return nil
	}
	var out []string
	for _, f := range []struct {
		flag string
		v    *float64
	}{{"-max-over", b.MaxOver}, {"-max-under", b.MaxUnder}, {"-max-over-of-refused", b.MaxOverOfRefused}, {"-max-under-of-admitted", b.MaxUnderOfAdmitted}} {
		if f.v != nil {
			out = append(out, f.flag, numfmt.FlagRate(*f.v))
		}
	}
	return out
}

// PlacementArgs are the compare flags that place the requests inside the
// clock's unit as the run did, for a compare at rules (whose figures rest
// on the same placements): -spread and its seed after compare -spread;
// after placements, their count and seed where not the defaults, or,
// where the clock is fine for rules (the run's was too coarse for a rule
// of its own), -spread with the first placement's seed, the placement
// the run's bindings were counted on; after a run of a clock too coarse
// for its rules left on the recorded clock (-placements 0), the same.
func (s *Summary) PlacementArgs(rules []string) []string {
	seed := func(flag string, v uint64) []string {
		if v == DefaultSeed {
			return nil
		}
		return []string{flag, strconv.FormatUint(v, 10)}
	}
	t := s.Trace
	switch {
	case t.Spread != nil:
		return append([]string{"-spread"}, seed("-spread-seed", t.Spread.Seed)...)
	case t.Placements != nil && !ClockTooCoarse(t, rules):
		return append([]string{"-spread"}, seed("-spread-seed", t.Placements.Seed)...)
	case t.Placements != nil:
		var out []string
		if t.Placements.Count != DefaultPlacements {
			out = append(out, "-placements", strconv.Itoa(t.Placements.Count))
		}
		return append(out, seed("-placement-seed", t.Placements.Seed)...)
	case ClockTooCoarse(t, s.Config.Rules) && ClockTooCoarse(t, rules):
		return []string{"-placements", "0"}
	}
	return nil
}

// CompareCommand is the command line of a compare of s's trace, read as
// the run read it, at rules under the count policy count, writing to the
// folder out: program, the trace's words (TraceInfo.Command), the rules,
// the reference, the run's algorithms, its modes and count where not
// compare's defaults, budget (the one its verdict is drawn under) and the
// placements (PlacementArgs).
func (s *Summary) CompareCommand(program string, rules []string, count string, budget *Budget, out string) []string {
	c := s.Config
	args := append(s.Trace.Command(program, "compare"), "-rule", strings.Join(rules, ","))
	args = append(args, c.ReferenceArgs()...)
	var algs []string
	for _, a := range c.Algorithms {
		if a != "log" {
			algs = append(algs, a)
		}
	}
	if len(algs) > 0 {
		args = append(args, "-alg", strings.Join(algs, ","))
	}
	if len(c.Modes) > 0 && !slices.Equal(c.Modes, DefaultModes) {
		args = append(args, "-mode", strings.Join(c.Modes, ","))
	}
	if count != "accepted" {
		args = append(args, "-count", count)
	}
	args = append(args, budget.Args()...)
	args = append(args, s.PlacementArgs(rules)...)
	return append(args, "-o", out)
}
