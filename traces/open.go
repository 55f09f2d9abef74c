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
// content: "PAR1" is Parquet (which must be an uncompressed file, not
// standard input), a first line starting with "{" is JSON lines, a first
// line naming a "ts" column (and, normally, the key column) is a CSV
// header, and otherwise the first good log line among the first 1000 lines
// (or MiB) tells the log (see logLineFormat; W3C extended logs by their
// first line, a directive). When no line is a good line of a log but they
// look like one (an HAProxy log of TCP-mode lines, an ALB log with a bad
// time), it is that log: its reader skips the bad lines with SkipBad, and
// without, the error is its reader's, saying "looks like an HAProxy log,
// but ...". A .log file is a log of the kind its first lines tell, the NCSA
// access log when they tell none. The reader's Close closes the file.
func Open(path string, f Format, opt Options) (Reader, error) {
	if err := opt.check(); err != nil {
		return nil, err
	}
	if path == "-" {
		return open(source{r: newCancelReader(os.Stdin, opt.Cancel), name: "stdin", stdin: true}, f, opt)
	}
	if f == FormatDataset || (f == FormatAuto || f == FormatParquet) && isDir(path) {
		if !IsDataset(path) {
			return nil, fmt.Errorf("%s: not a dataset: it has no %s (convert -partitions N writes one)", path, DatasetFile)
		}
		return OpenDataset(path, opt)
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
	if f == FormatAuto && opt.Pattern != "" {
		f = FormatRegex // only a pattern reads a file so
	}
	if f == FormatAuto && !src.stdin {
		if f = formatOfExt(filepath.Ext(stripCompressionExt(src.name))); f == FormatAccessLog {
			f = formatLog // which log, the content tells
		}
	}
	if f == FormatParquet && src.file != nil {
		return openParquet(src, opt)
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
		if f == FormatParquet {
			return nil, parquetNeedsFileError(src, kind)
		}
		if dec, err = newDecompressor(kind, br, opt.zstdMaxWindow); err != nil {
			return nil, fmt.Errorf("%s: %w", src.name, err)
		}
		closer = closers{dec, src.closer}
		br = bufio.NewReaderSize(dec, readBufferSize)
	}
	r, err := openText(src, br, kind, closer, f, opt)
	if err != nil && dec != nil {
		dec.Close()
	}
	return r, err
}

// openText opens a text trace, or sniffs a Parquet one, from br.
func openText(src source, br *bufio.Reader, kind compression, closer io.Closer, f Format, opt Options) (Reader, error) {
	var err error
	var r io.Reader = br // what the reader reads: br, or what sniffing read of it then br
	switch f {
	case FormatAuto:
		if f, r, err = sniffFormat(br, src, opt); err != nil {
			return nil, err
		}
	case formatLog:
		if f, r, err = sniffLogFormat(br, src.name, opt); err != nil {
			return nil, err
		}
		if f == FormatAuto {
			f = FormatAccessLog
		}
	}
	if f.isLog() {
		return newLogReader(r, src.name, f, opt, closer)
	}
	switch f {
	case FormatCSV:
		if opt.Sep == 0 && opt.MultiSep == "" && !src.stdin && isTSVPath(src.name) {
			opt.Sep = '\t'
		}
		return newCSVReader(r, src.name, opt, closer)
	case FormatJSONL:
		return newJSONLReader(r, src.name, opt, closer)
	case FormatParquet:
		if kind != compressNone || src.file == nil {
			return nil, parquetNeedsFileError(src, kind)
		}
		return openParquet(src, opt)
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

func openParquet(src source, opt Options) (Reader, error) {
	var head [4]byte
	n, _ := src.file.ReadAt(head[:], 0)
	if kind := sniffCompression(head[:n]); kind != compressNone {
		return nil, parquetNeedsFileError(src, kind)
	}
	st, err := src.file.Stat()
	if err != nil {
		return nil, err
	}
	return newParquetReader(src.file, st.Size(), src.name, opt, src.closer)
}

func parquetNeedsFileError(src source, kind compression) error {
	if kind != compressNone {
		return &ParseError{Pos: Position{File: src.name}, Msg: fmt.Sprintf(
			"a %s-compressed stream cannot be read as Parquet: Parquet needs random access; decompress it to a file first", kind)}
	}
	return &ParseError{Pos: Position{File: src.name}, Msg: "Parquet cannot be read from standard input: it needs random access; save it to a file first"}
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
	// Look at the first non-blank line, and only if it decides nothing, at
	// the lines of a log (sniffLog).
	head, err := peekUntil(br, func(b []byte) bool {
		return len(b) >= 4 && bytes.HasPrefix(b, []byte("PAR1")) || len(nonBlankLines(b, 1, true)) == 1
	})
	if len(head) == 0 && err != nil {
		return FormatAuto, nil, fmt.Errorf("%s:1: %w", src.name, err)
	}
	if bytes.HasPrefix(head, []byte("PAR1")) {
		return FormatParquet, br, nil
	}
	lines := nonBlankLines(head, 1, false)
	if len(lines) == 0 {
		if err != nil {
			return FormatAuto, nil, fmt.Errorf("%s:1: %w", src.name, err)
		}
		return FormatAuto, nil, &ParseError{Pos: Position{File: src.name}, Msg: "empty file, cannot tell the trace format (give the format)"}
	}
	first := lines[0]
	if t := bytes.TrimLeft(first, " \t"); len(t) > 0 && t[0] == '{' {
		return FormatJSONL, br, nil
	}
	if !isW3CDirective(first) && logLineFormat(first) == FormatAuto && looksDelimited(first, opt) {
		return FormatCSV, br, nil
	}
	if err != nil {
		return FormatAuto, nil, fmt.Errorf("%s: %w", src.name, err)
	}
	f, r, err := sniffLogFormat(br, src.name, opt)
	if err != nil || f != FormatAuto {
		return f, r, err
	}
	names, kerr := opt.columnNames()
	if kerr != nil {
		names = [3]string{"ts", "key"}
	}
	what := fmt.Sprintf("not CSV with %s and %s columns, JSON lines, Parquet, or an %s log", names[colTS], names[colKey], logKinds)
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
	kind := compressionOfPath(path)
	switch f {
	case FormatCSV, FormatJSONL:
	case FormatDataset:
		return nil, fmt.Errorf("%s: a dataset is written by CreateDataset (convert -partitions N), not Create", path)
	case FormatParquet:
		if kind != compressNone {
			return nil, fmt.Errorf("%s: cannot write compressed Parquet: Parquet compresses its pages (zstd) and needs random access; drop the %s extension", path, filepath.Ext(path))
		}
	default:
		if f.isLog() {
			return nil, fmt.Errorf("%s: %w", path, errReadOnly(f))
		}
		return nil, fmt.Errorf("%s: unknown trace format %v", path, f)
	}
	file, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if f == FormatParquet {
		return newParquetWriter(file, file), nil
	}
	var w io.Writer = file
	var closer io.Closer = file
	if kind != compressNone {
		cw, err := newCompressor(kind, file)
		if err != nil {
			file.Close()
			return nil, err
		}
		w, closer = cw, closers{cw, file}
	}
	if f == FormatCSV {
		return &CSVWriter{t: newTextWriter(w, closer), tabs: isTSVPath(path)}, nil
	}
	return &JSONLWriter{t: newTextWriter(w, closer)}, nil
}

// NewWriter returns a writer of format f (not FormatAuto) to w, for
// output that is not a file of its own (standard output, a buffer). Close
// finishes the trace but does not close w.
func NewWriter(w io.Writer, f Format) (Writer, error) {
	switch f {
	case FormatCSV:
		return NewCSVWriter(w), nil
	case FormatJSONL:
		return NewJSONLWriter(w), nil
	case FormatParquet:
		return NewParquetWriter(w), nil
	}
	if f.isLog() {
		return nil, errReadOnly(f)
	}
	return nil, fmt.Errorf("traces: cannot write trace format %v", f)
}

// isDir reports whether path is a folder.
func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}
