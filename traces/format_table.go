package traces

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// The trace formats are one table. Each format's reader file registers its
// entry from an init function (register); the entry says all the package
// and the command need of the format: its names, the extensions that name
// it, how its content is told, how it is read and written, and what the
// help texts say of it. Open, Create, NewWriter, ParseFormat,
// FormatFromPath and FormatOf go through the table, and so do the lists of
// formats in messages and help texts (in the order of the entries' ranks):
// nothing else names a format. Adding one is its reader file (with its
// entry), its sample in samples/ and its section in docs/formats.md.

// formatSpec is one trace format's entry in the table.
type formatSpec struct {
	// format is the format, its name (the value of -format).
	format Format
	// aliases are other names ParseFormat takes for it, in lower case.
	aliases []string
	// rank is its place in every list of formats, lowest first; no two
	// formats share one.
	rank int
	// exts are the extensions that name it (FormatFromPath), in lower case
	// with the dot; the first is the one written.
	exts []string
	// kind names it in the lists of what a trace may be ("JSON lines", a
	// log's "HAProxy"); "" leaves it out of them (a format that is never
	// told from the content).
	kind string
	// title names a log in messages: "an HAProxy log".
	title string
	// note is what the help of -format adds to its name ("any line format,
	// by -pattern"), or "".
	note string
	// log: a log, read only. An extension that names a log (.log) says only
	// "a log": which one, the lines tell (see sniffLog), and when they tell
	// none, the log it names.
	log bool

	// open returns a reader of the trace in s; nil for a format not read
	// as a stream.
	open func(s stream, opt Options) (Reader, error)
	// openAt, for a format read at random (Parquet), returns a reader of
	// the size bytes of r. Such a format is read from an uncompressed file
	// only, never from a stream, and is listed after the text formats.
	openAt func(r io.ReaderAt, size int64, name string, opt Options, closer io.Closer) (Reader, error)
	// openFolder returns a reader of the trace in the folder dir: a
	// folder given with this format is read so.
	openFolder func(dir string, opt Options) (Reader, error)
	// folderOnly: its traces are folders (a dataset), whatever the path
	// given; a folder given with no format is read by it.
	folderOnly bool
	// impliedBy reports whether opt asks for this format when none is
	// given (-pattern, regex); nil for none.
	impliedBy func(opt Options) bool

	// writer returns a writer of the format to w, whose Close closes closer
	// (nil: nothing); path, "" for a stream, is the file's name, which may
	// say more (.tsv: tabs). nil for a format ratebench does not write.
	writer func(w io.Writer, closer io.Closer, path string) Writer
	// refuseCreate, when not nil, returns why Create does not write the
	// file at path in this format (an error naming path), or nil.
	refuseCreate func(path string) error

	sniff sniffer
}

// sniffer is how a format is told from a trace's content (see
// sniffFormat and sniffLog); its zero value tells nothing.
type sniffer struct {
	// magic: the trace starts with these bytes.
	magic string
	// line reports whether the first non-blank line is a record of the
	// format, by its form.
	line func(first []byte) bool
	// header reports whether the first non-blank line is the format's
	// header. Headers are tried after every format's line, and only on a
	// line no log claims (logClaims).
	header func(first []byte, opt Options) bool
	// what says what the trace would have been as this format, for the
	// error when the content tells no format; nil: its kind.
	what func(opt Options) string

	// The logs are told by their first lines, up to sniffMaxLines:
	//
	// opens reports whether the first non-blank line opens a log of this
	// family (a W3C directive); then tells reads the lines, that one
	// included, until one tells the format (the #Fields line, which tells
	// CloudFront from W3C), and when none does, the format is this one.
	opens func(first []byte) bool
	tells func(line []byte) (Format, bool)
	// good reports whether line is a good line of the log.
	good func(line []byte) bool
	// looks reports whether line is shaped like a line of the log, though
	// it is not a good one. A line that looks like several logs is counted
	// for the one of the lowest lookOrder: the most particular form.
	looks     func(line []byte) bool
	lookOrder int
}

// stream is a trace as a format's open reads it: its text, decompressed,
// from the first byte.
type stream struct {
	r io.Reader
	// name is the trace's name in errors.
	name string
	// path is the file's path, which may say more than the format (a .tsv
	// has tabs); "" for standard input and other streams.
	path string
	// closer is what the reader's Close closes, or nil.
	closer io.Closer
}

// asReader returns r as a Reader, nil (not a nil *R) on error.
func asReader[R Reader](r R, err error) (Reader, error) {
	if err != nil {
		return nil, err
	}
	return r, nil
}

// formats are the entries of the table, by rank.
var formats []*formatSpec

// register adds a format to the table. It panics when the format, one of
// its names or extensions, its rank or its lookOrder is another's.
func register(s *formatSpec) {
	for _, o := range formats {
		clash := o.format == s.format || o.rank == s.rank ||
			o.sniff.looks != nil && s.sniff.looks != nil && o.sniff.lookOrder == s.sniff.lookOrder
		for _, n := range append([]string{string(s.format)}, s.aliases...) {
			clash = clash || slices.Contains(o.aliases, n) || string(o.format) == n
		}
		for _, e := range s.exts {
			clash = clash || slices.Contains(o.exts, e)
		}
		if clash {
			panic(fmt.Sprintf("traces: format %s clashes with %s", s.format, o.format))
		}
	}
	if s.format == FormatAuto || s.format == "auto" {
		panic("traces: a format cannot be named auto")
	}
	formats = append(formats, s)
	slices.SortFunc(formats, func(a, b *formatSpec) int { return a.rank - b.rank })
}

// specOf returns the entry of f, nil for FormatAuto or an unknown format.
func specOf(f Format) *formatSpec {
	for _, s := range formats {
		if s.format == f {
			return s
		}
	}
	return nil
}

// textFirst returns the formats of which keep says true: those read as
// text, then those read at random (Parquet), each by rank.
func textFirst(keep func(*formatSpec) bool) []*formatSpec {
	var text, random []*formatSpec
	for _, s := range formats {
		switch {
		case !keep(s):
		case s.openAt != nil:
			random = append(random, s)
		default:
			text = append(text, s)
		}
	}
	return append(text, random...)
}

// joinOr joins words as a list: "a, b or c".
func joinOr(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// logKinds names the logs told from the content, for messages: "NCSA
// access, ALB, CloudFront, W3C or HAProxy".
func logKinds() string {
	var kinds []string
	for _, s := range formats {
		if s.log && s.kind != "" {
			kinds = append(kinds, s.kind)
		}
	}
	return joinOr(kinds)
}

// errReadOnly is the error of writing the log s, naming what is written.
func errReadOnly(s *formatSpec) error {
	var names []string
	for _, w := range textFirst(func(s *formatSpec) bool { return s.writer != nil }) {
		names = append(names, string(w.format))
	}
	return fmt.Errorf("traces: cannot write %s: the format is read only (write %s)", s.title, joinOr(names))
}

// FormatInfo describes a trace format, for help texts and listings.
type FormatInfo struct {
	// Format is the format; its String is the value of -format.
	Format Format
	// Aliases are other values of -format that name it.
	Aliases []string
	// Exts are the file extensions that name it; the first is the one
	// written.
	Exts []string
	// Kind names it in a list of what a trace may be ("JSON lines", a
	// log's "HAProxy"); "" for a format left out of such lists.
	Kind string
	// Note is what the help of -format adds to its name, or "".
	Note string
	// Log: a log, read only.
	Log bool
	// Writes: Create writes it (convert, gen).
	Writes bool
}

// Formats describes the trace formats, in the order every list of them
// follows.
func Formats() []FormatInfo {
	infos := make([]FormatInfo, len(formats))
	for i, s := range formats {
		infos[i] = FormatInfo{Format: s.format, Aliases: slices.Clone(s.aliases), Exts: slices.Clone(s.exts), Kind: s.kind,
			Note: s.note, Log: s.log, Writes: s.writer != nil}
	}
	return infos
}
