package traces

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
)

// Which column of a trace: the indexes of settings.names.
const (
	colTS = iota
	colKey
	colCost
)

// columnFlags are the command-line flags that name the columns, for
// errors.
var columnFlags = [3]string{"-ts", "-key", "-cost"}

// columnNames returns the names of the ts, key and cost columns of CSV and
// Parquet traces (fields of JSON lines), defaults filled in; they must
// differ.
func (o Options) columnNames() ([3]string, error) {
	names := [3]string{o.TS, o.Key, o.Cost}
	for i, def := range [3]string{"ts", "key", "cost"} {
		if names[i] == "" {
			names[i] = def
		}
	}
	for i := range names {
		for j := i + 1; j < len(names); j++ {
			if names[i] == names[j] {
				return names, fmt.Errorf("traces: the %s and %s columns cannot both be %q (%s, %s)",
					colWord(i), colWord(j), names[i], columnFlags[i], columnFlags[j])
			}
		}
	}
	return names, nil
}

func colWord(i int) string { return [3]string{"timestamp", "key", "cost"}[i] }

// sepCandidates are the separators a CSV reader tries on a header, in
// order, when none is given.
var sepCandidates = [...]byte{',', '\t', ';', '|'}

// ParseSep parses a separator of one character as a -sep flag gives it
// (SetSep takes any value of the flag, of one character or several): one
// ASCII punctuation character, a space, or a tab, written as itself, as
// `\t` or as "tab"; "comma", "semicolon", "pipe" and "space" name theirs.
// "" means 0, the separator told from the file's name or header (see
// Options.Sep).
func ParseSep(s string) (byte, error) {
	switch strings.ToLower(s) {
	case "":
		return 0, nil
	case `\t`, "tab":
		return '\t', nil
	case "comma":
		return ',', nil
	case "semicolon":
		return ';', nil
	case "pipe":
		return '|', nil
	case "space":
		return ' ', nil
	}
	if len(s) == 1 && sepProblem(s[0]) == "" {
		return s[0], nil
	}
	msg := "want one character such as , ; | or tab"
	if len(s) == 1 {
		msg = sepProblem(s[0])
	}
	return 0, fmt.Errorf("invalid separator %q: %s", s, msg)
}

// sepProblem tells what makes c unfit to separate fields, or "".
func sepProblem(c byte) string {
	switch {
	case c == '\t' || c == ' ':
		return ""
	case c == '"':
		return "the quote quotes fields"
	case c < ' ' || c > '~':
		return "want a printable ASCII character or tab"
	case c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '.' || c == '-' || c == '+':
		return "letters, digits and . - + are part of values"
	}
	return ""
}

// SetSep sets the separator the value of a -sep flag gives: one character
// (see ParseSep) in Sep, and a separator of several characters (" | ",
// "::"; not one of the names ParseSep knows) in MultiSep. "" leaves the
// separator to be told from the file.
func (o *Options) SetSep(s string) error {
	o.Sep, o.MultiSep = 0, ""
	if sep, err := ParseSep(s); err == nil || len(s) < 2 {
		o.Sep = sep
		return err
	}
	if msg := multiSepProblem(s); msg != "" {
		return fmt.Errorf("invalid separator %q: %s", s, msg)
	}
	o.MultiSep = s
	return nil
}

// multiSepProblem tells what makes s unfit to separate fields, or "".
func multiSepProblem(s string) string {
	value := true // made of characters that are part of values only
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\t' && (c < ' ' || c > '~') {
			return "want printable ASCII characters or tabs"
		}
		if sepProblem(c) == "" {
			value = false
		}
	}
	if value {
		return "letters, digits and . - + are part of values: a separator needs another character"
	}
	return ""
}

func (o Options) checkSep() error {
	if o.MultiSep != "" {
		if o.Sep != 0 {
			return fmt.Errorf("traces: Sep and MultiSep both given")
		}
		if msg := multiSepProblem(o.MultiSep); msg != "" || len(o.MultiSep) < 2 {
			if msg == "" {
				msg = "a separator of one character goes in Sep"
			}
			return fmt.Errorf("traces: invalid separator %q (-sep): %s", o.MultiSep, msg)
		}
	}
	if o.Sep == 0 {
		return nil
	}
	if msg := sepProblem(o.Sep); msg != "" {
		return fmt.Errorf("traces: invalid separator %q (-sep): %s", o.Sep, msg)
	}
	return nil
}

// ParseColumns parses the value of a -columns flag: column names separated
// by commas, spaces around them ignored; an empty name or "_" is a column
// to ignore. "" means nil, a file with a header.
func ParseColumns(s string) []string {
	if strings.TrimSpace(s) == "" {
		return nil
	}
	cols := strings.Split(s, ",")
	for i, c := range cols {
		cols[i] = strings.TrimSpace(c)
	}
	return cols
}

// unnamedColumn reports whether a name of Options.Columns is a column to
// ignore.
func unnamedColumn(name string) bool { return name == "" || name == "_" }

// required returns the columns a trace must have: ts and key, and cost
// when it is named (a cost column left to its default is optional).
func (o Options) required() []int {
	if o.Cost != "" {
		return []int{colTS, colKey, colCost}
	}
	return []int{colTS, colKey}
}

// columnsGiven finds the ts, key and cost columns among the names of
// Options.Columns, the required ones (see Options.required) among them.
func columnsGiven(cols []string, names [3]string, required []int) (at [3]int, err error) {
	at = [3]int{-1, -1, -1}
	for i, c := range cols {
		if unnamedColumn(c) {
			continue
		}
		for j, n := range names {
			if c != n {
				continue
			}
			if at[j] >= 0 {
				return at, fmt.Errorf("traces: -columns %s names %q twice", strings.Join(cols, ","), c)
			}
			at[j] = i
		}
	}
	for _, j := range required {
		if at[j] < 0 {
			return at, fmt.Errorf("traces: -columns %s has no %q column (the %s column, %s)",
				strings.Join(cols, ","), names[j], colWord(j), columnFlags[j])
		}
	}
	return at, nil
}

// refuseColumns refuses the options a format (what) does not take: the
// separator and the columns of a headerless file, and, unless named, the
// names of the ts and cost columns.
func (o Options) refuseColumns(what string, named bool) error {
	var flag string
	switch {
	case o.Pattern != "" || !named && o.TSFormat != "":
		return o.refuseLineOptions(what)
	case o.Sep != 0 || o.MultiSep != "":
		flag = "-sep"
	case o.Columns != nil:
		flag = "-columns"
	case !named && o.TS != "":
		flag = "-ts"
	case !named && o.Cost != "":
		flag = "-cost"
	default:
		return nil
	}
	return fmt.Errorf("traces: %s does not apply to %s", flag, what)
}

// isTSVPath reports whether a file's name ends in .tsv, before any
// compression extension.
func isTSVPath(name string) bool {
	return strings.EqualFold(filepath.Ext(stripCompressionExt(name)), ".tsv")
}

// splitLiteral splits rec at each sep, left to right, into dst, as
// splitCSV does (fields past len(dst) appended when grow is set, only
// counted otherwise), without quoting: a multi-character separator
// (Options.MultiSep). Fields are slices of rec.
func splitLiteral(rec []byte, dst [][]byte, grow bool, sep []byte) ([][]byte, int) {
	n := 0
	for {
		f, rest, found := bytes.Cut(rec, sep)
		dst = putField(dst, n, f, grow)
		n++
		if !found {
			return dst, n
		}
		rec = rest
	}
}

// headerColumns splits a header line with sep into trimmed names.
func headerColumns(line []byte, sep byte) []string {
	var scratch []byte
	fields, _, _ := splitCSV(line, nil, &scratch, true, sep)
	names := make([]string, len(fields))
	for i, f := range fields {
		names[i] = string(bytes.Trim(f, " \t"))
	}
	return names
}

// detectSep returns the separator of a CSV trace whose first line is line:
// the first of sepCandidates that splits it into columns including the
// wanted ones, else the one that splits it into the most columns (comma
// when none splits it). A file without a header (n > 0 columns given)
// takes the first that splits it into exactly n fields, else comma.
func detectSep(line []byte, want []string, n int) byte {
	line = trimEOL(bytes.TrimPrefix(line, utf8BOM))
	best, most := sepCandidates[0], 1
	for _, sep := range sepCandidates {
		names := headerColumns(line, sep)
		if n > 0 {
			if len(names) == n {
				return sep
			}
			continue
		}
		if hasAll(names, want) {
			return sep
		}
		if len(names) > most {
			best, most = sep, len(names)
		}
	}
	return best
}

func hasAll(names, want []string) bool {
	for _, w := range want {
		found := false
		for _, n := range names {
			if n == w {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// looksDelimited reports whether the first line of a trace, which is not
// JSON lines or an access log, is the header of a CSV trace: it names the
// ts column, split by the separator of opt or any of sepCandidates. With
// a separator or columns given, it is CSV whatever the line.
func looksDelimited(first []byte, opt Options) bool {
	if opt.Sep != 0 || opt.MultiSep != "" || opt.Columns != nil {
		return true
	}
	names, err := opt.columnNames()
	if err != nil {
		return false
	}
	for _, sep := range sepCandidates {
		if hasAll(headerColumns(first, sep), names[colTS:colTS+1]) { // the CSV reader tells whether the key column is there
			return true
		}
	}
	return false
}

// putField stores field n of a record in dst: in place when dst has room,
// appended when grow is set (dst then holds fields 0..n-1), else dropped
// (the caller only counts the fields past its columns).
func putField(dst [][]byte, n int, f []byte, grow bool) [][]byte {
	switch {
	case n < len(dst):
		dst[n] = f
	case grow:
		dst = append(dst, f)
	}
	return dst
}
