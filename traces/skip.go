package traces

import (
	"fmt"
	"unicode/utf8"
)

// badRecords is what a reader knows of its bad records: with skip set it
// counts them and keeps the first MaxSkipExamples. It holds the reader's
// Options.Cancel too, looked at for every record skipped, so that a run of
// bad records does not keep a cancelled reader going.
type badRecords struct {
	skip   bool
	cancel <-chan struct{}
	n      int64
	first  []*ParseError
}

// add records a bad record at pos. It returns true when the reader skips it
// and goes on, false when the reader must stop with the error: the record's
// own, or, once Options.Cancel is closed, one that wraps ErrInterrupted.
func (b *badRecords) add(pos Position, msg string) (error, bool) {
	if !b.skip {
		return &ParseError{Pos: pos, Msg: msg}, false
	}
	if closed(b.cancel) {
		return fmt.Errorf("%v: %w", pos, ErrInterrupted), false
	}
	b.n++
	if len(b.first) < MaxSkipExamples {
		b.first = append(b.first, &ParseError{Pos: pos, Msg: msg})
	}
	return nil, true
}

// interrupted reports whether the reader's Options.Cancel is closed.
func (b *badRecords) interrupted() bool { return closed(b.cancel) }

// skipped implements SkipCounter.Skipped.
func (b *badRecords) skipped() (int64, []*ParseError) {
	return b.n, b.first[:len(b.first):len(b.first)]
}

// keyProblem checks a key read from a trace, returning what is wrong with it
// or "". Every reader checks its keys with it, whatever the format's own
// rules: keys must be non-empty, at most maxKey bytes, valid UTF-8 and
// free of NUL bytes (however the format spells them, a JSON "\u0000"
// included). A key is what the trace holds, exactly: a reader never makes
// two different keys one (JSON's lone surrogates are refused here, not
// made U+FFFD; see appendRuneExact).
func keyProblem(key []byte, maxKey int) string {
	switch {
	case len(key) == 0:
		return "empty key"
	case len(key) > maxKey:
		return fmt.Sprintf("key of %d bytes exceeds the limit of %d (-max-key)", len(key), maxKey)
	case !utf8.Valid(key):
		if r, ok := loneSurrogate(key); ok {
			return fmt.Sprintf(`key holds the lone surrogate U+%04X (in JSON, a "\u%04x" escape without its pair), which is not a Unicode character`, r, r)
		}
		return "key is not valid UTF-8"
	case containsNUL(key):
		return "key holds a NUL byte"
	}
	return ""
}

// blankLines tracks a run of blank lines in a line-oriented trace: blank
// lines are allowed only at the end of the file, so a run is an error (or,
// with SkipBad, as many skipped records) only once a record follows it.
type blankLines struct {
	first int64 // line of the first pending blank line, or 0
	n     int64 // number of pending blank lines
}

func (bl *blankLines) add(line int64) {
	if bl.n == 0 {
		bl.first = line
	}
	bl.n++
}

// flush reports the pending blank lines as bad records, when a record
// follows them. It returns the error to stop with, or nil to go on.
func (bl *blankLines) flush(bad *badRecords, name string) error {
	for i := int64(0); i < bl.n; i++ {
		if err, skip := bad.add(Position{File: name, Line: bl.first + i}, "empty line"); !skip {
			return err
		}
	}
	bl.n = 0
	return nil
}

// loneSurrogate returns the first surrogate code point encoded in b as if
// it were a character (the bytes ED A0..BF xx, which appendRuneExact
// writes for a lone JSON surrogate), or false.
func loneSurrogate(b []byte) (rune, bool) {
	for i := 0; i+2 < len(b); i++ {
		if b[i] == 0xED && b[i+1] >= 0xA0 && b[i+1] <= 0xBF && b[i+2]&0xC0 == 0x80 {
			return 0xD000 | rune(b[i+1]&0x3F)<<6 | rune(b[i+2]&0x3F), true
		}
	}
	return 0, false
}
