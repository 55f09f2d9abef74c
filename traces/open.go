package traces

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Open opens the trace at path for reading; path "-" is standard input
// (named "stdin" in errors, and not closed by Close).
//
// A folder is read as a dataset (OpenDataset). A gzip or zstd stream is
// recognized by its first bytes, whatever the file's name, and read
// decompressed (for the text formats: Parquet needs random access, so a
// compressed Parquet file is an error).
//
// With FormatAuto the format comes from the file extension, once a .gz,
// .zst or .zstd extension is stripped (see FormatFromPath), or else, when
// the extension is missing or unknown and for standard input, from the
// content, as each format's sniffer tells it (format_table.go), in this
// order: the first bytes (a magic number: "PAR1" is Parquet, which must be
// an uncompressed file, not standard input); the first non-blank line, by
// its form (starting with "{": JSON lines), else, unless a log claims it,
// as a header (naming a "ts" column, and normally the key column: CSV);
// and otherwise the first good log line among the first 1000 lines (or
// MiB) tells the log (see sniffLog; W3C extended logs by their first line,
// a directive). When no line is a good line of a log but they look like
// one (an HAProxy log of TCP-mode lines, an ALB log with a bad time), it is
// that log: its reader skips the bad lines with SkipBad, and without, the
// error is its reader's, saying "looks like an HAProxy log, but ...". A
// .log file is a log of the kind its first lines tell, the NCSA access log
// when they tell none. A -pattern (Options.Pattern) with no format given
// reads the file as FormatRegex. The reader's Close closes the file.
func Open(path string, f Format, opt Options) (Reader, error) {
	if err := opt.check(); err != nil {
		return nil, err
	}
	if path == "-" {
		return open(source{r: newCancelReader(os.Stdin, opt.Cancel), name: "stdin", stdin: true}, f, opt)
	}
	if s := folderFormat(path, f); s != nil {
		return s.openFolder(path, opt)
	}
	file, err := openFile(path, opt.Cancel)
	if err != nil {
		return nil, err
	}
	r, err := open(source{r: newCancelReader(file, opt.Cancel), name: path, file: file, closer: file}, f, opt)
	if err != nil {
		file.Close()
		return nil, err
	}
	return r, nil
}

// folderFormat returns the format Open reads path by as a folder, or nil:
// f, when its traces are folders (a dataset), or when path is a folder and
// f reads folders (Parquet, a dataset's parts); with no format given, when
// path is a folder, the format whose traces are folders.
func folderFormat(path string, f Format) *formatSpec {
	s := specOf(f)
	switch {
	case s != nil && s.folderOnly:
		return s
	case f != FormatAuto && (s == nil || s.openFolder == nil), !isDir(path):
		return nil
	case s != nil:
		return s
	}
	for _, s := range formats {
		if s.folderOnly {
			return s
		}
	}
	return nil
}

// openStream reads a trace from a stream that is not a file, as Open does
// standard input: the format comes from f or the content, never from name,
// which is only used in errors. Close does not close r.
func openStream(r io.Reader, name string, f Format, opt Options) (Reader, error) {
	if err := opt.check(); err != nil {
		return nil, err
	}
	return open(source{r: newCancelReader(r, opt.Cancel), name: name, stdin: true}, f, opt)
}

// source is where a trace comes from.
type source struct {
	r      io.Reader
	name   string
	file   *os.File  // for random access (Parquet); nil for a stream
	closer io.Closer // closes r, or nil
	stdin  bool      // a stream: tell the format from the content only
}

// open detects the compression and the format and builds the reader. On
// error the caller closes src.
func open(src source, f Format, opt Options) (Reader, error) {
	if f == FormatAuto {
		f = impliedFormat(opt)
	}
	anyLog := false // the extension says "a log": which one, the content tells
	if f == FormatAuto && !src.stdin {
		if s := formatOfExt(filepath.Ext(stripCompressionExt(src.name))); s != nil {
			f, anyLog = s.format, s.log
		}
	}
	s := specOf(f)
	if s != nil && s.openAt != nil && src.file != nil {
		return openAt(src, s, opt)
	}
	br := bufio.NewReaderSize(src.r, readBufferSize)
	head, err := br.Peek(len(zstdMagic))
	if err != nil && err != io.EOF {
		return nil, fmt.Errorf("%s: %w", src.name, err)
	}
	kind := sniffCompression(head)
	closer := src.closer
	var dec *decompressor
	if kind != compressNone {
		if s != nil && s.openAt != nil {
			return nil, needsFileError(src, s, kind)
		}
		if dec, err = newDecompressor(kind, br, opt.zstdMaxWindow); err != nil {
			return nil, fmt.Errorf("%s: %w", src.name, err)
		}
		closer = closers{dec, src.closer}
		br = bufio.NewReaderSize(dec, readBufferSize)
	}
	r, err := openText(src, br, kind, closer, f, anyLog, opt)
	if err != nil && dec != nil {
		dec.Close()
	}
	return r, err
}

// impliedFormat returns the format opt asks for when none is given
// (-pattern: regex), or FormatAuto.
func impliedFormat(opt Options) Format {
	for _, s := range formats {
		if s.impliedBy != nil && s.impliedBy(opt) {
			return s.format
		}
	}
	return FormatAuto
}

// openText opens a text trace, or sniffs one read at random (Parquet),
// from br: of format f, or the one its content tells for FormatAuto, or
// with anyLog the log its lines tell, f when they tell none.
func openText(src source, br *bufio.Reader, kind compression, closer io.Closer, f Format, anyLog bool, opt Options) (Reader, error) {
	var err error
	var r io.Reader = br // what the reader reads: br, or what sniffing read of it then br
	switch {
	case f == FormatAuto:
		if f, r, err = sniffFormat(br, src, opt); err != nil {
			return nil, err
		}
	case anyLog:
		var told Format
		if told, r, err = sniffLogFormat(br, src.name, opt); err != nil {
			return nil, err
		}
		if told != FormatAuto {
			f = told
		}
	}
	switch s := specOf(f); {
	case s != nil && s.openAt != nil:
		if kind != compressNone || src.file == nil {
			return nil, needsFileError(src, s, kind)
		}
		return openAt(src, s, opt)
	case s != nil && s.open != nil:
		in := stream{r: r, name: src.name, closer: closer}
		if !src.stdin {
			in.path = src.name
		}
		return s.open(in, opt)
	}
	return nil, fmt.Errorf("%s: unknown trace format %v", src.name, f)
}

// sniffLogFormat tells which log br holds (see sniffLog), FormatAuto for
// none, and returns the reader to read it from. When no line is a good line
// of any log but they look like one, that format is it: with SkipBad its
// reader skips the bad lines; without, the error is its reader's on the
// first line, saying which format the lines look like.
func sniffLogFormat(br *bufio.Reader, name string, opt Options) (Format, io.Reader, error) {
	g, head, r, err := sniffLog(br)
	if err != nil {
		return FormatAuto, nil, fmt.Errorf("%s: %w", name, err)
	}
	if !g.told && g.f != FormatAuto && !opt.SkipBad {
		if err := guessError(head, name, g.f, opt); err != nil {
			return FormatAuto, nil, err
		}
	}
	return g.f, r, nil
}

// openAt opens the file of src as format s, which is read at random
// (Parquet): uncompressed.
func openAt(src source, s *formatSpec, opt Options) (Reader, error) {
	var head [4]byte
	n, _ := src.file.ReadAt(head[:], 0)
	if kind := sniffCompression(head[:n]); kind != compressNone {
		return nil, needsFileError(src, s, kind)
	}
	st, err := src.file.Stat()
	if err != nil {
		return nil, err
	}
	return s.openAt(src.file, st.Size(), src.name, opt, src.closer)
}

// needsFileError is the error of reading format s, which is read at
// random (Parquet), from a stream: compressed (kind), or standard input.
func needsFileError(src source, s *formatSpec, kind compression) error {
	if kind != compressNone {
		return &ParseError{Pos: Position{File: src.name}, Msg: fmt.Sprintf(
			"a %s-compressed stream cannot be read as %s: %s needs random access; decompress it to a file first", kind, s.kind, s.kind)}
	}
	return &ParseError{Pos: Position{File: src.name}, Msg: s.kind + " cannot be read from standard input: it needs random access; save it to a file first"}
}

// peekUntil returns the buffered start of br, reading more only until done
// says it is enough (so that a slow stream is not waited for needlessly),
// the buffer is full, or the input ends. err is a read error other than
// io.EOF.
func peekUntil(br *bufio.Reader, done func([]byte) bool) (head []byte, err error) {
	for {
		head, _ = br.Peek(br.Buffered())
		if done(head) || len(head) == br.Size() {
			return head, nil
		}
		if _, err = br.Peek(len(head) + 1); err != nil {
			head, _ = br.Peek(br.Buffered())
			if err == io.EOF {
				err = nil
			}
			return head, err
		}
	}
}

// nonBlankLines splits the complete lines of head (and a last line without a
// newline when complete is false) and returns the first n that are not
// blank, after a byte order mark.
func nonBlankLines(head []byte, n int, complete bool) [][]byte {
	var lines [][]byte
	rest := trimBOM(head)
	for len(lines) < n && len(rest) > 0 {
		j := bytes.IndexByte(rest, '\n')
		if j < 0 && complete {
			break
		}
		line := rest
		if j >= 0 {
			line, rest = rest[:j], rest[j+1:]
		} else {
			rest = nil
		}
		if line = trimEOL(line); !isJSONBlank(line) {
			lines = append(lines, line)
		}
	}
	return lines
}

// sniffFormat tells the format of a trace from its first bytes (see Open),
// and returns the reader to read it from.
func sniffFormat(br *bufio.Reader, src source, opt Options) (Format, io.Reader, error) {
	// Look at the first bytes and the first non-blank line, and only if
	// they decide nothing, at the lines of a log (sniffLog).
	head, err := peekUntil(br, func(b []byte) bool {
		return magicFormat(b) != FormatAuto || len(nonBlankLines(b, 1, true)) == 1
	})
	if len(head) == 0 && err != nil {
		return FormatAuto, nil, fmt.Errorf("%s:1: %w", src.name, err)
	}
	if f := magicFormat(head); f != FormatAuto {
		return f, br, nil
	}
	lines := nonBlankLines(head, 1, false)
	if len(lines) == 0 {
		if err != nil {
			return FormatAuto, nil, fmt.Errorf("%s:1: %w", src.name, err)
		}
		return FormatAuto, nil, &ParseError{Pos: Position{File: src.name}, Msg: "empty file, cannot tell the trace format (give the format)"}
	}
	if f := firstLineFormat(lines[0], opt); f != FormatAuto {
		return f, br, nil
	}
	if err != nil {
		return FormatAuto, nil, fmt.Errorf("%s: %w", src.name, err)
	}
	f, r, err := sniffLogFormat(br, src.name, opt)
	if err != nil || f != FormatAuto {
		return f, r, err
	}
	var whats []string
	for _, s := range textFirst(func(s *formatSpec) bool {
		return !s.log && (s.sniff.magic != "" || s.sniff.line != nil || s.sniff.header != nil)
	}) {
		if s.sniff.what != nil {
			whats = append(whats, s.sniff.what(opt))
		} else {
			whats = append(whats, s.kind)
		}
	}
	what := fmt.Sprintf("not %s, or an %s log", strings.Join(whats, ", "), logKinds())
	var msg string
	switch ext := filepath.Ext(stripCompressionExt(src.name)); {
	case src.stdin:
		msg = "cannot tell the trace format from the content (" + what + "); give the format"
	case ext == "":
		msg = "cannot tell the trace format: no file extension, and the content is " + what + "; give the format"
	default:
		msg = fmt.Sprintf("cannot tell the trace format: the extension %q is unknown, and the content is %s; give the format", strings.ToLower(ext), what)
	}
	return FormatAuto, nil, &ParseError{Pos: Position{File: src.name}, Msg: msg}
}

// magicFormat returns the format whose magic head starts with, or
// FormatAuto.
func magicFormat(head []byte) Format {
	for _, s := range formats {
		if s.sniff.magic != "" && bytes.HasPrefix(head, []byte(s.sniff.magic)) {
			return s.format
		}
	}
	return FormatAuto
}

// firstLineFormat returns the format the first non-blank line of a trace
// tells, or FormatAuto: a record of one by its form, else, when no log
// claims the line, a format's header.
func firstLineFormat(first []byte, opt Options) Format {
	for _, s := range formats {
		if s.sniff.line != nil && s.sniff.line(first) {
			return s.format
		}
	}
	if logClaims(first) {
		return FormatAuto
	}
	for _, s := range formats {
		if s.sniff.header != nil && s.sniff.header(first, opt) {
			return s.format
		}
	}
	return FormatAuto
}

// Create creates (or truncates) the trace file at path for writing. With
// FormatAuto the format comes from the extension (see FormatFromPath). A
// CSV or JSON lines file whose name ends in .gz, .zst or .zstd is
// compressed with gzip or zstd. The writer's Close flushes and closes the
// file; the trace is complete only if it succeeds.
func Create(path string, f Format) (Writer, error) {
	if f == FormatAuto {
		var err error
		if f, err = FormatFromPath(path); err != nil {
			return nil, err
		}
	}
	s := specOf(f)
	switch {
	case s == nil:
		return nil, fmt.Errorf("%s: unknown trace format %v", path, f)
	case s.refuseCreate != nil:
		if err := s.refuseCreate(path); err != nil {
			return nil, err
		}
	}
	if s.writer == nil {
		if s.log {
			return nil, fmt.Errorf("%s: %w", path, errReadOnly(s))
		}
		return nil, fmt.Errorf("%s: unknown trace format %v", path, f)
	}
	file, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	var w io.Writer = file
	var closer io.Closer = file
	if kind := compressionOfPath(path); kind != compressNone {
		cw, err := newCompressor(kind, file)
		if err != nil {
			file.Close()
			return nil, err
		}
		w, closer = cw, closers{cw, file}
	}
	return s.writer(w, closer, path), nil
}

// NewWriter returns a writer of format f (not FormatAuto) to w, for
// output that is not a file of its own (standard output, a buffer). Close
// finishes the trace but does not close w.
func NewWriter(w io.Writer, f Format) (Writer, error) {
	if s := specOf(f); s != nil && s.writer != nil {
		return s.writer(w, nil, ""), nil
	} else if s != nil && s.log {
		return nil, errReadOnly(s)
	}
	return nil, fmt.Errorf("traces: cannot write trace format %v", f)
}

// isDir reports whether path is a folder.
func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}
