package summary

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// InputArg is one flag of how the trace was read, as the command line gave
// it: Flag is its name without the dash, as compare spells it ("format",
// "key", "reorder"), Value its value ("true" for a boolean flag such as
// skip-bad).
type InputArg struct {
	Flag  string `json:"flag"`
	Value string `json:"value"`
}

// InputFlags are the flags of how a trace is read that a summary records
// in trace.input_args, in the order a suggested command writes them; a
// reading flag the commands gain is one more name here.
var InputFlags = []string{"format", "key", "ts", "cost", "ts-unit", "ts-format", "pattern", "columns", "sep", "reorder", "skip-bad", "max-key", "max-line"}

// boolInputFlags are the input flags that take no value.
var boolInputFlags = []string{"skip-bad"}

// flagFor is the name command gives the input flag: explain's own -key is
// the key to explain, so it reads the key's identity column as -key-by.
func InputFlagName(command, flag string) string {
	if command == "explain" && flag == "key" {
		return "key-by"
	}
	return flag
}

// InputArgs returns the words of the input flags that read the trace
// again as it was read, for the ratebench subcommand command (compare,
// inspect, explain, convert): "-format", "accesslog", "-skip-bad", ...
// in the order of InputFlags. A summary written before input_args keeps
// only an explicit -ts-unit, which it records in ts_unit_from.
func (t TraceInfo) InputArgs(command string) []string {
	args := t.Input
	if len(args) == 0 && t.TSUnitFrom == "explicit" {
		args = []InputArg{{Flag: "ts-unit", Value: t.TSUnit}}
	}
	var words []string
	for _, name := range InputFlags {
		for _, a := range args {
			if a.Flag != name {
				continue
			}
			flag := "-" + InputFlagName(command, a.Flag)
			if slices.Contains(boolInputFlags, a.Flag) {
				if a.Value == "true" {
					words = append(words, flag)
				}
				continue
			}
			words = append(words, flag, a.Value)
		}
	}
	return words
}

// Command returns the words of the command line of ratebench command on
// this trace, read as it was: program (the name ratebench is called by,
// Program in a report: see suggested.go), command, the trace (-trace
// PATH, or -gen SCENARIO for a generated one), then its input flags.
// Every command a report or the terminal suggests on a trace starts so.
func (t TraceInfo) Command(program, command string) []string {
	args := []string{program, command}
	if spec, ok := strings.CutPrefix(t.Path, "gen:"); ok && t.Format == "generated" {
		args = append(args, "-gen", spec)
	} else {
		args = append(args, "-trace", t.Path)
	}
	return append(args, t.InputArgs(command)...)
}

// WithInput returns t with the input flag flag set to value, in place of
// the value it was read with, if any (a suggested -reorder, say).
func (t TraceInfo) WithInput(flag, value string) TraceInfo {
	args := slices.DeleteFunc(slices.Clone(t.Input), func(a InputArg) bool { return a.Flag == flag })
	if len(t.Input) == 0 && t.TSUnitFrom == "explicit" && flag != "ts-unit" {
		args = append(args, InputArg{Flag: "ts-unit", Value: t.TSUnit})
	}
	t.Input = append(args, InputArg{Flag: flag, Value: value})
	return t
}

// inputArgs checks trace.input_args: known flags, each once, with a value
// a reading flag takes.
func (v *validator) inputArgs(args []InputArg) {
	seen := map[string]bool{}
	for i, a := range args {
		p := fmt.Sprintf("trace.input_args[%d]", i)
		switch {
		case !slices.Contains(InputFlags, a.Flag):
			v.fail(p+".flag", "%q is not a flag of how a trace is read (%s)", a.Flag, strings.Join(InputFlags, ", "))
		case seen[a.Flag]:
			v.fail(p+".flag", "%q is given twice", a.Flag)
		case a.Value == "":
			v.fail(p+".value", "missing")
		case slices.Contains(boolInputFlags, a.Flag) && a.Value != "true" && a.Value != "false":
			v.fail(p+".value", "%q is not true or false", a.Value)
		case a.Flag == "reorder":
			if d, err := time.ParseDuration(a.Value); err != nil || d < 0 {
				v.fail(p+".value", "%q is not a duration of at least 0", a.Value)
			}
		case a.Flag == "max-key" || a.Flag == "max-line":
			if n, err := strconv.Atoi(a.Value); err != nil || n < 1 {
				v.fail(p+".value", "%q is not a positive number of bytes", a.Value)
			}
		}
		seen[a.Flag] = true
	}
}
