package traces

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// Bounds of the look-ahead that tells which log a file is: a log may open
// with many lines that are no requests (HAProxy's TCP-mode lines, its
// messages), so the look goes on until a line of one format, or this far.
const (
	sniffMaxLines = 1000    // non-blank lines
	sniffMaxBytes = 1 << 20 // bytes
)

// logGuess is what the first lines of a log tell of its format.
type logGuess struct {
	// f is the format, FormatAuto when the lines tell none.
	f Format
	// told: a line is a good line of f (or f is told by its family's
	// directives, a W3C extended log). Otherwise no line is, and f is the
	// format the lines look like, by their shape (see sniffer.looks).
	told bool
}

// goodLogLine returns the log format line is a good line of (FormatAuto
// for none), trying the logs by rank.
func goodLogLine(line []byte) Format {
	for _, s := range formats {
		if s.sniff.good != nil && s.sniff.good(line) {
			return s.format
		}
	}
	return FormatAuto
}

// logOpener returns the log family the first non-blank line opens (a W3C
// directive), or nil.
func logOpener(first []byte) *formatSpec {
	for _, s := range formats {
		if s.sniff.opens != nil && s.sniff.opens(first) {
			return s
		}
	}
	return nil
}

// logClaims reports whether a log claims line as its first: it opens a log
// or is a good line of one.
func logClaims(line []byte) bool {
	return logOpener(line) != nil || goodLogLine(line) != FormatAuto
}

// logLook returns the log format a line is shaped like, though it is not
// a good line of it (goodLogLine says that), or FormatAuto: the first by
// lookOrder.
func logLook(line []byte) Format {
	var look *formatSpec
	for _, s := range formats {
		if s.sniff.looks != nil && (look == nil || s.sniff.lookOrder < look.sniff.lookOrder) && s.sniff.looks(line) {
			look = s
		}
	}
	if look == nil {
		return FormatAuto
	}
	return look.format
}

// sniffLog tells which log the lines at the start of br are (see Open): a
// family opened by its first line (W3C, by its directives) by its own
// lines (up to the #Fields line), the others by the first line that is a
// good line of one, among the first sniffMaxLines non-blank lines or
// sniffMaxBytes; when none is, the format most of the lines look like. It
// returns the reader to read the log from (the lines it read, then the
// rest of br), and what it read for guessError. err is a read error other
// than io.EOF.
func sniffLog(br *bufio.Reader) (g logGuess, head []byte, r io.Reader, err error) {
	looks := map[Format]int{}
	var order []Format     // the formats looked like, in the order first seen
	var family *formatSpec // the family the first line opens
	head, err = readAhead(br, func(line []byte, nonBlank int) bool {
		if nonBlank == 1 {
			family = logOpener(line)
		}
		if family != nil {
			if f, ok := family.sniff.tells(line); ok {
				g = logGuess{f: f, told: true}
				return true
			}
			return false
		}
		if f := goodLogLine(line); f != FormatAuto {
			g = logGuess{f: f, told: true}
			return true
		}
		if f := logLook(line); f != FormatAuto {
			if looks[f] == 0 {
				order = append(order, f)
			}
			looks[f]++
		}
		return false
	})
	r = io.MultiReader(bytes.NewReader(head), br)
	switch {
	case err != nil || g.told:
	case family != nil:
		g = logGuess{f: family.format, told: true}
	default:
		for _, f := range order {
			if g.f == FormatAuto || looks[f] > looks[g.f] {
				g.f = f
			}
		}
	}
	return g, head, r, err
}

// readAhead reads lines from br (the last one maybe without a newline)
// and gives look each that is not blank, trimmed of its end of line (and
// the first of a byte order mark), with its count among those, until look
// returns true, or sniffMaxLines of them or sniffMaxBytes were read, or the
// input ends. It returns the bytes read. The line given to look is valid
// only during the call. err is a read error other than io.EOF.
func readAhead(br *bufio.Reader, look func(line []byte, nonBlank int) bool) (head []byte, err error) {
	for n, nonBlank := 0, 0; nonBlank < sniffMaxLines && len(head) < sniffMaxBytes; {
		start := len(head)
		for {
			var chunk []byte
			chunk, err = br.ReadSlice('\n')
			head = append(head, chunk...)
			if err != bufio.ErrBufferFull || len(head) >= sniffMaxBytes {
				break
			}
		}
		if err == bufio.ErrBufferFull { // a line longer than the look-ahead
			return head, nil
		}
		if len(head) > start {
			n++
			line := trimEOL(head[start:])
			if n == 1 {
				line = trimBOM(line)
			}
			if !isJSONBlank(line) {
				nonBlank++
				if look(line, nonBlank) {
					return head, nil
				}
			}
		}
		if err != nil {
			if err == io.EOF {
				err = nil
			}
			return head, err
		}
	}
	return head, nil
}

// guessError returns the error of the first record of head read as a log
// of format f, which its lines only look like (no line of them is a good
// one), saying so: "looks like an HAProxy log, but ..."; nil when it finds
// none.
func guessError(head []byte, name string, f Format, opt Options) error {
	opt.SkipBad = false
	s := specOf(f)
	r, err := s.open(stream{r: bytes.NewReader(head), name: name}, opt)
	if err != nil {
		return err
	}
	if r.Scan() {
		return nil
	}
	var pe *ParseError
	if !errors.As(r.Err(), &pe) {
		return nil
	}
	return &ParseError{Pos: pe.Pos, Msg: "looks like " + s.title + ", but " + pe.Msg}
}
