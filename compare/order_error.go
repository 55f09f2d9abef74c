package compare

import (
	"fmt"
	"time"

	"ratebench/internal/escape"
	"ratebench/internal/numfmt"
	"ratebench/traces"
)

// Error says how far the key's time went back, between which dates, and
// the -reorder that puts the request in order (or by how much the one
// given is too small), rounded up (reorderHint). When the caller has read
// the whole trace for it (Need, Command), that is the -reorder that puts
// every request in order, exact, with the command that replays with it.
func (e *OrderError) Error() string {
	gap := e.Prev - e.T
	need := reorderHint(max(e.Late, gap))
	if e.Need > 0 {
		need = e.Need
	}
	key := ""
	if e.Key != "" { // a KeyReplay's error names no key: it replays one
		key = fmt.Sprintf("key %q: ", e.Key)
	}
	msg := fmt.Sprintf("%stime goes backwards by %v, to %s after %s; ", key, time.Duration(gap), fmtDate(e.T), fmtDate(e.Prev))
	if e.Reorder > 0 && need > e.Reorder {
		msg += fmt.Sprintf("-reorder %s is too small by %s: ", numfmt.FlagDuration(e.Reorder), numfmt.FlagDuration(need-e.Reorder))
	}
	if e.Need > 0 {
		msg += fmt.Sprintf("use -reorder %s, the most a request of the trace comes after a later one (as ratebench inspect reports it)", numfmt.FlagDuration(need))
		if e.Command != "" {
			msg += ": " + e.Command
		}
		return msg
	}
	file := "FILE" // standard input ("stdin" in positions): the file it came from
	if e.File != "" && e.File != "-" && e.File != "stdin" {
		file = escape.ShellWord(e.File) // a command to paste: quoted
	}
	return msg + fmt.Sprintf("use -reorder %s (ratebench inspect %s reports the least that works)", numfmt.FlagDuration(need), file)
}

// reorderHint rounds a reorder window up to two significant digits, and
// to whole seconds from 100 s: 34.2s becomes 35s, 59.3s 1m, 23.41ms 24ms.
func reorderHint(ns int64) int64 {
	step := int64(1)
	for v := ns; v >= 100; v /= 10 {
		step *= 10
	}
	step = min(step, int64(time.Second))
	return (ns + step - 1) / step * step
}

func fmtDate(ns int64) string { return time.Unix(0, ns).UTC().Format(time.RFC3339Nano) }

// orderHint fills in an OrderError at the request of r the replay failed
// on: how late it came (from r's Lateness when r reorders, else latest,
// the latest time offered before it), the reorder window and the file.
// Other errors pass as they are.
func orderHint(err error, late int64, lr traces.Lateness, file string) error {
	if oe, ok := err.(*OrderError); ok {
		oe.Late, oe.File = late, file
		if lr != nil {
			oe.Reorder = int64(lr.Window())
		}
	}
	return err
}

// lateness returns how late the current request of r came (see
// OrderError.Late): r's own account when it reorders (lr), else from
// latest, the latest time offered before it.
func lateness(lr traces.Lateness, latest, t int64) int64 {
	if lr != nil {
		return lr.Late()
	}
	return max(0, latest-t)
}
