package main

import (
	"strconv"
	"time"

	"ratebench/summary"
	"ratebench/traces"
)

// inputArgs are the flags of how the trace was read that were set off
// their defaults, as a summary records them (summary.InputFlags): the
// commands suggested on the trace carry them. A reading flag is one more
// line here (and its name in summary.InputFlags).
func (tf *traceFlags) inputArgs() []summary.InputArg {
	var out []summary.InputArg
	for _, f := range []struct{ flag, value, unset string }{
		{"format", tf.format, "auto"},
		{"key", tf.key, ""},
		{"ts", tf.columns.ts, ""},
		{"cost", tf.columns.cost, ""},
		{"ts-unit", tf.tsUnit, "auto"},
		{"columns", tf.columns.columns, ""},
		{"sep", tf.columns.sep, ""},
		{"reorder", flagDuration(tf.reorder), "0s"},
		{"skip-bad", strconv.FormatBool(tf.skipBad), "false"},
		{"max-key", strconv.Itoa(tf.maxKey), strconv.Itoa(traces.DefaultMaxKey)},
		{"max-line", strconv.Itoa(tf.maxLine), strconv.Itoa(traces.DefaultMaxLine)},
	} {
		if f.value != f.unset {
			out = append(out, summary.InputArg{Flag: f.flag, Value: f.value})
		}
	}
	return out
}

// readTrace is the trace of tf as a summary describes it, for the
// commands suggested on it: its path and the input flags it was read with.
func (tf *traceFlags) readTrace(format string) summary.TraceInfo {
	return summary.TraceInfo{Path: tf.path, Format: format, Input: tf.inputArgs()}
}

// flagDuration writes d as the -reorder flag takes it, without the zero
// minutes and seconds time.Duration writes: "1m", "1h", "2m10s", "1.5s".
func flagDuration(d time.Duration) string {
	s := d.String()
	for _, zero := range []string{"m0s", "h0m"} {
		if len(s) > len(zero) && s[len(s)-len(zero):] == zero {
			s = s[:len(s)-len(zero)+1]
		}
	}
	return s
}

// ruleArgs are the -rule and -sweep flags of the compare, as given, for a
// command suggested to run it again.
func (f *compareFlags) ruleArgs() []string {
	var args []string
	for _, r := range f.rules {
		args = append(args, "-rule", r)
	}
	if *f.sweep != "" {
		args = append(args, "-sweep", *f.sweep)
	}
	return args
}
