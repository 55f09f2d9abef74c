package summary

import (
	"strings"

	"ratebench/algorithms"
)

// reference checks config.reference: the log behind a refusal cache,
// in the canonical spelling the engine writes (log:block, log:block=1h).
func (v *validator) reference(spec string) {
	r := algorithms.Rule{L: 1, W: 1}
	l, err := algorithms.New(spec, r)
	b, ok := l.(*algorithms.Blocked)
	switch {
	case err != nil:
		v.fail("config.reference", "%v", err)
	case !ok || b.Inner().Name() != "log":
		v.fail("config.reference", "%q: want the log behind a refusal cache (log:block, log:block=D); the plain log is written as no reference", spec)
	case b.Name() != spec:
		v.fail("config.reference", "%q: want it written %q", spec, b.Name())
	}
}

// ReferenceArgs are the words that name the reference on a command line
// (compare, explain): none for the plain log, -ref and its spec otherwise.
func (c RunConfig) ReferenceArgs() []string {
	if c.Reference == "" {
		return nil
	}
	return []string{"-ref", c.Reference}
}

// ReferenceText names the reference in words: the exact sliding-window
// log, and the refusal cache in front of it, if any.
func (c RunConfig) ReferenceText() string {
	how, ok := strings.CutPrefix(c.Reference, "log:block")
	switch {
	case !ok:
		return "the exact sliding-window log"
	case how == "":
		return "the exact sliding-window log behind a refusal cache (" + c.Reference + ": a key the log refuses is refused till its window's end)"
	}
	return "the exact sliding-window log behind a refusal cache (" + c.Reference + ": a key the log refuses is refused for " + strings.TrimPrefix(how, "=") + ")"
}
