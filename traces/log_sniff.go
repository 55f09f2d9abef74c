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
	// told: a line is a good line of f (or f is a W3C extended log, told
	// by its directives). Otherwise no line is, and f is the format the
	// lines look like, by their shape (see logLineLook).
	told bool
}

// sniffLog tells which log the lines at the start of br are (see Open):
// W3C (or CloudFront) by their directives up to the #Fields line, the
// others by the first line that is a good line of one, among the first
// sniffMaxLines non-blank lines or sniffMaxBytes; when none is, the format
// most of the lines look like. It returns the reader to read the log from
// (the lines it read, then the rest of br), and what it read for
// guessError. err is a read error other than io.EOF.
func sniffLog(br *bufio.Reader) (g logGuess, head []byte, r io.Reader, err error) {
	var looks [FormatHAProxy + 1]int
	var order []Format // the formats looked like, in the order first seen
	w3c := false
	head, err = readAhead(br, func(line []byte, nonBlank int) bool {
		if nonBlank == 1 && isW3CDirective(line) {
			w3c = true
		}
		if w3c {
			if bytes.HasPrefix(line, w3cFields) {
				g = logGuess{f: w3cDialect([][]byte{line}), told: true}
				return true
			}
			return false
		}
		if f := logLineFormat(line); f != FormatAuto {
			g = logGuess{f: f, told: true}
			return true
		}
		if f := logLineLook(line); f != FormatAuto {
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
	case w3c:
		g = logGuess{f: FormatW3C, told: true}
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

// logLineLook returns the log format a line is shaped like, though it is
// not a good line of it (logLineFormat says that), or FormatAuto: an
// HAProxy line has an address:port before its [accept date]; an ALB line
// starts with one of its types and a time; an access log line with three
// words and a [date].
func logLineLook(line []byte) Format {
	if ip, _ := haproxyClient(line); ip != nil {
		return FormatHAProxy
	}
	first, rest := accessToken(line)
	second, _ := accessToken(rest)
	switch string(first) {
	case "http", "https", "h2", "grpcs", "ws", "wss":
		if len(second) > 0 && second[0] >= '0' && second[0] <= '9' {
			return FormatALB
		}
	}
	var ident, user []byte
	ident, rest = accessToken(rest)
	user, rest = accessToken(rest)
	if len(first) > 0 && len(ident) > 0 && len(user) > 0 && len(rest) > 0 && rest[0] == '[' {
		return FormatAccessLog
	}
	return FormatAuto
}

// guessError returns the error of the first record of head read as a log
// of format f, which its lines only look like (no line of them is a good
// one), saying so: "looks like an HAProxy log, but ..."; nil when it finds
// none.
func guessError(head []byte, name string, f Format, opt Options) error {
	opt.SkipBad = false
	r, err := newLogReader(bytes.NewReader(head), name, f, opt, nil)
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
	return &ParseError{Pos: pe.Pos, Msg: "looks like " + logTitle(f) + ", but " + pe.Msg}
}
