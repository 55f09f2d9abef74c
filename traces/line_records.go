package traces

import (
	"bytes"
	"io"
)

// lineRecords is what the one-record-per-line readers (JSON lines, access
// logs) share: the line loop that skips blank lines (an error only when a
// record follows them), refuses NUL bytes and overlong lines, and reports or
// skips the records their parser rejects.
type lineRecords struct {
	name    string
	lr      lineReader
	blank   blankLines
	bad     badRecords
	recLine int64
	err     error
	done    bool
}

func newLineRecords(r io.Reader, name string, maxLine int, opt Options) lineRecords {
	return lineRecords{name: name, lr: newLineReader(r, maxLine), bad: badRecords{skip: opt.SkipBad, cancel: opt.Cancel}}
}

func (l *lineRecords) interrupted() bool { return l.bad.interrupted() }

// scan reads lines until parse accepts one (returns ""), and returns true;
// it returns false at the end of the input or on an error that stops the
// reader. parse returns what is wrong with a line it rejects.
func (l *lineRecords) scan(parse func(line []byte) string) bool {
	if l.done {
		return false
	}
	for {
		line, err := l.lr.next()
		var msg string
		switch err {
		case nil:
			l.recLine = l.lr.line
			if l.recLine == 1 {
				line = trimBOM(line)
			}
			line = trimEOL(line)
			if isJSONBlank(line) {
				l.blank.add(l.recLine)
				continue
			}
		case errLineTooLong:
			l.recLine = l.lr.line
			msg = l.lr.tooLongMsg()
		case io.EOF:
			l.done = true
			return false
		default:
			l.err, l.done = l.lr.readErr(l.name, err), true
			return false
		}
		if l.blank.n != 0 {
			if err := l.blank.flush(&l.bad, l.name); err != nil {
				l.err, l.done = err, true
				return false
			}
		}
		if msg == "" {
			if bytes.IndexByte(line, 0) >= 0 {
				msg = "NUL byte"
			} else if msg = parse(line); msg == "" {
				return true
			}
		}
		if err, skip := l.bad.add(Position{File: l.name, Line: l.recLine}, msg); !skip {
			l.err, l.done = err, true
			return false
		}
	}
}
