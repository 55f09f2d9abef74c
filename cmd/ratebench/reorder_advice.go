package main

import (
	"errors"
	"time"

	"ratebench/compare"
	"ratebench/compare/tracestats"
	"ratebench/internal/escape"
	"ratebench/internal/numfmt"
	"ratebench/traces"
)

// maxReorderScan bounds the requests adviseReorder reads to find the
// -reorder a trace needs: past it, the advice is the replay's own, the
// least the request it failed on needs (a variable for the tests).
var maxReorderScan = 1 << 26

// adviseReorder completes the advice of err, when a request of the trace
// file went back in its key's time, with the -reorder that puts every
// request of the trace in order, as ratebench inspect finds it: the trace
// read once more, without reordering, up to maxReorderScan requests (or
// to a bad record, where it stops), and the command line that replays it
// so, command's words (program's, with the input flags of tf and that
// -reorder) followed by rest. The first going-back a replay meets is often not the
// largest. Other errors, and a trace read from standard input or a pipe,
// which cannot be read twice, pass as they are.
func (tf *traceFlags) adviseReorder(err error, format, command string, rest ...string) error {
	var pe *traces.ParseError
	var oe *compare.OrderError
	if !errors.As(err, &pe) || !errors.As(err, &oe) || !tf.readsAgain() {
		return err
	}
	need, ok := tf.reorderNeed()
	if !ok || need < oe.Prev-oe.T {
		return err // read in part: the least known is the replay's own hint
	}
	oe.Need = need
	words := tf.readTrace(format).WithInput("reorder", numfmt.FlagDuration(need)).Command(program, command)
	oe.Command = escape.ShellCommand(append(words, rest...)...)
	return &traces.ParseError{Pos: pe.Pos, Msg: oe.Error(), Err: oe}
}

// reorderNeed reads the trace of tf in file order and returns the
// -reorder it needs (tracestats' ReorderNeed), ok when it read it whole;
// not ok, without reading, when it cannot be read twice (rereadable).
func (tf *traceFlags) reorderNeed() (need int64, ok bool) {
	if tf.rereadable("the -reorder a trace needs reads it twice") != nil {
		return 0, false
	}
	again := *tf
	again.reorder, again.cancel = 0, nil // the replay's signals are stopped by now
	r, _, err := again.open()
	if err != nil {
		return 0, false
	}
	defer r.Close()
	s := tracestats.New()
	for n := 0; r.Scan(); n++ {
		if n == maxReorderScan {
			return s.ReorderNeed(), false
		}
		q := r.Request()
		s.Add(q.Key, q.T, q.Cost)
	}
	return s.ReorderNeed(), r.Err() == nil
}

// readsAgain tells whether the trace of tf can be read once more: a
// regular file, not standard input or a pipe.
func (tf *traceFlags) readsAgain() bool {
	return tf.path != "" && tf.rereadable("") == nil
}

// sameTimeInOrder reads the trace of tf again through a -reorder of need
// ns and returns how many of its requests are at their key's previous
// time in the key's time order, what compare records replaying it so; ok
// when it could be read again and came out in every key's time order.
func (tf *traceFlags) sameTimeInOrder(need int64) (n int64, ok bool) {
	if !tf.readsAgain() || need <= 0 {
		return 0, false
	}
	again := *tf
	again.reorder = time.Duration(need)
	r, _, err := again.open()
	if err != nil {
		return 0, false
	}
	defer r.Close()
	s, err := tracestats.Read(r)
	if err != nil || !s.KeyOrdered() {
		return 0, false
	}
	return s.SameTime(), true
}
