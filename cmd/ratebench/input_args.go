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

// rerunArgs are the flags of fs, the flag set of command, that were given
// besides the trace and how to read it (-rule, -alg, -o, -report=false,
// ...), each with its value, for a command suggested to run it again: with
// them and the input flags, it is the same run.
func rerunArgs(fs *flag.FlagSet, command string) []string {
	reading := map[string]bool{"trace": true}
	for _, name := range summary.InputFlags {
		reading[summary.InputFlagName(command, name)] = true
	}
	var args []string
	fs.Visit(func(fl *flag.Flag) {
		if reading[fl.Name] {
			return
		}
		switch v := fl.Value.(type) {
		case *listFlag: // repeated, each value its own (a -clients value holds commas)
			for _, s := range *v {
				args = append(args, "-"+fl.Name, s)
			}
		default:
			if isBoolFlag(fl) {
				args = append(args, "-"+fl.Name+"="+v.String())
			} else {
				args = append(args, "-"+fl.Name, v.String())
			}
		}
	})
	return args
}
