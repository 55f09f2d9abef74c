package main

import (
	"errors"
	"flag"
	"fmt"
	"slices"
	"strings"
)

// The command-line grammar shared by every subcommand: flags may come
// before, between and after the arguments; "--" ends the flags (what
// follows is an argument even if it starts with a dash); a lone "-"
// (standard input) is an argument; a flag that takes a value takes the
// next word whatever it is, a boolean flag never does (-report=false sets
// it false). A subcommand's main files (the trace, IN and OUT, the results
// folder) are operands: each may be given as an argument or by its flag,
// once.

// operand is one of a subcommand's main arguments, which may be given as
// an argument or by its flag.
type operand struct {
	name  string  // as the synopsis names it: FILE, IN, OUT, DIR
	what  string  // what it is, for errors: "the trace"
	flag  string  // the flag that gives it too, without its dash: trace, o
	value *string // where it goes (the flag's variable)
}

// parsedArgs is a command line once parsed: the arguments that are not
// flags, in order, and the values given to each flag, in order.
type parsedArgs struct {
	args  []string
	given map[string][]string
}

// parseArgs parses args into fs with the flags anywhere among the
// arguments, and returns the arguments. Flag errors are usage errors
// (flag.ErrHelp is returned as it is, the usage printed).
func parseArgs(fs *flag.FlagSet, args []string) (parsedArgs, error) {
	p := parsedArgs{given: map[string][]string{}}
	var flags []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			p.args = append(p.args, args[i+1:]...)
			break
		}
		if len(a) < 2 || a[0] != '-' {
			p.args = append(p.args, a)
			continue
		}
		flags = append(flags, a)
		name, value, hasValue := strings.Cut(strings.TrimPrefix(a[1:], "-"), "=")
		f := fs.Lookup(name)
		if f == nil { // fs.Parse says so
			continue
		}
		if !hasValue && !isBoolFlag(f) {
			if i+1 == len(args) { // fs.Parse says it needs a value
				return p, parseError(fs.Parse([]string{a}))
			}
			i++
			value = args[i]
			flags = append(flags, value)
		}
		p.given[name] = append(p.given[name], value)
	}
	return p, parseError(fs.Parse(append(append(flags, "--"), p.args...)))
}

// parseError makes an error of fs.Parse a usage error (flag.ErrHelp is
// returned as it is, the usage printed).
func parseError(err error) error {
	if err == nil || errors.Is(err, flag.ErrHelp) {
		return err
	}
	return usageError{err.Error()}
}

func isBoolFlag(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// parseCommand parses args into fs (see parseArgs) and sets the operands
// from the arguments and their flags: as many arguments as operands give
// them in order, fewer give those not given by flag, in order. An operand
// given twice (as an argument and by its flag, or by its flag twice) is a
// usage error saying so, as is an argument left over.
func parseCommand(fs *flag.FlagSet, args []string, ops ...operand) error {
	p, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	name := fs.Name()
	var free []operand // the operands not given by flag
	for _, op := range ops {
		switch v := p.given[op.flag]; len(v) {
		case 0:
			free = append(free, op)
		case 1:
		default:
			return usageError{fmt.Sprintf("%s: %s is given twice, as -%s %q and as -%s %q; give it once", name, op.what, op.flag, v[0], op.flag, v[1])}
		}
	}
	switch {
	case len(p.args) > len(ops):
		if len(ops) == 0 {
			return usageError{fmt.Sprintf("%s: unexpected argument %q (it takes flags only)", name, p.args[0])}
		}
		return usageError{fmt.Sprintf("%s: unexpected argument %q: it takes %s", name, p.args[len(ops)], operandList(ops))}
	case len(p.args) == len(ops) && len(free) < len(ops):
		for i, op := range ops {
			if v := p.given[op.flag]; len(v) > 0 {
				return usageError{fmt.Sprintf("%s: %s is given twice, as the argument %q and as -%s %q; give it once", name, op.what, p.args[i], op.flag, v[0])}
			}
		}
	case len(p.args) > len(free):
		return usageError{fmt.Sprintf("%s: unexpected argument %q: %s", name, p.args[len(free)], givenByFlag(ops, free))}
	}
	if len(p.args) == len(ops) {
		free = ops
	}
	for i, a := range p.args {
		*free[i].value = a
	}
	return nil
}

// operandList names ops for a message: "IN and OUT".
func operandList(ops []operand) string {
	var names []string
	for _, op := range ops {
		names = append(names, op.name)
	}
	if len(names) == 1 {
		return "one argument, " + names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// givenByFlag says which operands were given by flag and which are left
// to arguments: "IN is given by -trace; only OUT is left".
func givenByFlag(ops, free []operand) string {
	var by []string
	for _, op := range ops {
		if !slices.ContainsFunc(free, func(o operand) bool { return o.flag == op.flag }) {
			by = append(by, fmt.Sprintf("%s is given by -%s", op.name, op.flag))
		}
	}
	msg := strings.Join(by, ", ")
	if len(free) == 0 {
		return msg + ", which leaves no argument"
	}
	return msg + ", which leaves " + operandList(free)
}

// grammarNote ends every subcommand's synopsis in its usage text.
const grammarNote = "Flags may come before or after the arguments; -- ends the flags (what follows is an argument\n" +
	"even if it starts with -). A file given as an argument may not be given by its flag too."

// operand is the trace as a subcommand's main argument: FILE, or -trace
// FILE.
func (tf *traceFlags) operand() operand { return operand{"FILE", "the trace", "trace", &tf.path} }
