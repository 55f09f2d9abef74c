package traces

import (
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

type pqHostileName struct {
	TS  int64  `parquet:"ts"`
	Key string "parquet:\"\x1b[2J\u202e\""
}

// Input text in an error is quoted: terminal escapes, format characters
// and bytes that are not UTF-8 never reach the terminal raw.
func TestErrorsQuoteInput(t *testing.T) {
	const hostile = "\x1b[31mX\xff\u202e"
	tests := []struct {
		name string
		f    Format
		in   []byte
		want string
	}{
		{"csv header columns", FormatCSV, []byte("ts,key2," + hostile + "\n1,a,b\n"),
			`t:1: header has no "key" column (columns: "ts", "key2", "\x1b[31mX\xff\u202e")`},
		{"parquet columns", FormatParquet, writeParquetRows(t, []pqHostileName{{1, "a"}}),
			`t: no "key" column (columns: "ts", "\x1b[2J\u202e")`},
		{"csv ts", FormatCSV, []byte("ts,key\n" + hostile + ",a\n"), `t:2: ts "\x1b[31mX\xff\u202e" is not a number, decimal seconds or RFC 3339 time`},
		{"csv cost", FormatCSV, []byte("ts,key,cost\n1,a," + hostile + "\n"), `t:2: cost "\x1b[31mX\xff\u202e" is not an integer`},
		{"jsonl ts string", FormatJSONL, []byte(`{"ts":"\u001b[31m","key":"a"}`), `t:1: ts "\x1b[31m" is not a number, decimal seconds or RFC 3339 time`},
		{"jsonl syntax", FormatJSONL, []byte(`{"ts":1` + hostile), `t:1: invalid JSON: expected ',' or '}', found byte 0x1b at column 8`},
		{"access log date", FormatAccessLog, []byte(`1.2.3.4 - - [` + hostile + `] "GET / HTTP/1.1" 200 1`), `t:1: date "\x1b[31mX\xff\u202e" is not a valid time`},
		{"access log status", FormatAccessLog, []byte(`1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1" ` + hostile + ` 1`), `t:1: status "\x1b[31mX\xff\u202e" is not a 3-digit number`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := read(tt.f, tt.in, "t", Options{})
			if err == nil || err.Error() != tt.want {
				t.Errorf("error\n got: %v\nwant: %s", err, tt.want)
			}
			if err != nil && !isPlainText(err.Error()) {
				t.Errorf("raw input in %q", err)
			}
		})
	}
}

// isPlainText reports whether s is valid UTF-8 that prints as itself.
func isPlainText(s string) bool {
	return utf8.ValidString(s) && strings.IndexFunc(s, func(r rune) bool { return !strconv.IsPrint(r) }) < 0
}

// A message that carries text from elsewhere (a library's error about a
// corrupt file) is escaped where it would not print, and left alone where
// it is already quoted.
func TestParseErrorPrintable(t *testing.T) {
	e := &ParseError{Pos: Position{File: "t.parquet"}, Msg: "corrupt Parquet file: bad name \x1b[2J\xff\u202e " + strconv.Quote("a\nb")}
	want := `t.parquet: corrupt Parquet file: bad name \x1b[2J\xff\u202e "a\nb"`
	if got := e.Error(); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
