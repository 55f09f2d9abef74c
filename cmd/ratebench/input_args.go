package main

import (
	"flag"
	"time"

	"ratebench/internal/numfmt"
	"ratebench/summary"
)

// inputArgs are the flags of how the trace was read (summary.InputFlags)
// that were set off their defaults, as a summary records them: the commands
// suggested on the trace carry them. A reading flag is recorded once its
// name is in summary.InputFlags.
func (tf *traceFlags) inputArgs() []summary.InputArg {
	if tf.flags == nil {
		return nil
	}
	var out []summary.InputArg
	for _, name := range summary.InputFlags {
		f := tf.flags.Lookup(name)
		if f == nil || f.Value.String() == f.DefValue {
			continue
		}
		v := f.Value.String()
		if g, ok := f.Value.(flag.Getter); ok {
			if d, ok := g.Get().(time.Duration); ok {
				v = numfmt.FlagDuration(int64(d))
			}
		}
		out = append(out, summary.InputArg{Flag: name, Value: v})
	}
	return out
}

// readTrace is the trace of tf as a summary describes it, for the
// commands suggested on it: its path and the input flags it was read with.
func (tf *traceFlags) readTrace(format string) summary.TraceInfo {
	return summary.TraceInfo{Path: tf.path, Format: format, Input: tf.inputArgs()}
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
