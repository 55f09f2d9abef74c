package main

import (
	"fmt"
	"os"

	"ratebench/summary"
)

// rereadable returns nil when the trace of tf can be read through a
// second time, as -spread (to find the unit of its times) and the advice
// of the -reorder a trace needs read it: a regular file, or a folder (a
// dataset's, else its opening says what is wrong). Standard input, a
// named pipe or a device is read once: opening a named pipe again waits
// for a writer that may never come, and a pipe read again is empty. The
// error, a usage error, starts with why, which says who reads the trace
// twice. A path that cannot be looked at passes: its opening says why.
func (tf *traceFlags) rereadable(why string) error {
	if tf.path == "-" {
		return usageError{why + ": standard input is read once; give a trace file"}
	}
	fi, err := os.Stat(tf.path)
	if err != nil || fi.Mode().IsRegular() || fi.IsDir() {
		return nil
	}
	return usageError{fmt.Sprintf("%s: %s is not a regular file (%s), which is read once; give a trace file", why, tf.path, summary.FileKind(fi.Mode()))}
}
