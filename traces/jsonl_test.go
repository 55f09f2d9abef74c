package traces

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestJSONLRead(t *testing.T) {
	tests := []struct {
		name, in string
		unit     time.Duration
		want     []Request
	}{
		{"empty", "", 0, nil},
		{"basic", `{"ts":5,"key":"a","cost":2}` + "\n", 0, []Request{{5, []byte("a"), 2}}},
		{"no cost", `{"ts":5,"key":"a"}`, 0, []Request{{5, []byte("a"), 1}}},
		{"null cost", `{"ts":5,"key":"a","cost":null}`, 0, []Request{{5, []byte("a"), 1}}},
		{"field order and spaces", " { \"key\" : \"a\" ,\t\"cost\" : 3 , \"ts\" : 5 } \r\n", 0, []Request{{5, []byte("a"), 3}}},
		{"unit", `{"ts":1700000000,"key":"a"}`, time.Second, []Request{{1700000000_000000000, []byte("a"), 1}}},
		{"decimal seconds", `{"ts":1700000000.123456789,"key":"a"}`, time.Millisecond, []Request{{1700000000_123456789, []byte("a"), 1}}},
		{"decimal exact", `{"ts":1.000000001,"key":"a"}`, 0, []Request{{1_000000001, []byte("a"), 1}}},
		{"string rfc3339", `{"ts":"2024-01-02T03:04:05.123+01:00","key":"a"}`, 0, []Request{{rfc("2024-01-02T02:04:05.123Z"), []byte("a"), 1}}},
		{"string integer", `{"ts":"1700000000123","key":"a"}`, time.Millisecond, []Request{{1700000000123_000000, []byte("a"), 1}}},
		{"escapes", `{"ts":1,"key":"q\"b\\s\/n\nr\rt\tb\bf\f"}`, 0, []Request{{1, []byte("q\"b\\s/n\nr\rt\tb\bf\f"), 1}}},
		{"unicode escapes", `{"ts":1,"key":"\u00e9\u4e16\ud83d\ude80\u0001"}`, 0, []Request{{1, []byte("é世🚀\x01"), 1}}},
		{"replacement character", `{"ts":1,"key":"\ufffd"}`, 0, []Request{{1, []byte("\uFFFD"), 1}}},
		{"raw utf-8", "{\"ts\":1,\"key\":\"héllo 世界\"}", 0, []Request{{1, []byte("héllo 世界"), 1}}},
		{"unknown fields skipped", `{"a":{"b":[1,{"c":"}"}],"d":null},"ts":1,"e":[true,false,-1.5e3,"x"],"key":"k","f":{}}`, 0, []Request{{1, []byte("k"), 1}}},
		{"escaped field name", `{"t\u0073":7,"key":"k"}`, 0, []Request{{7, []byte("k"), 1}}},
		{"other fields repeat", `{"ts":1,"x":1,"key":"a","x":{"key":"b"},"x":2}`, 0, []Request{{1, []byte("a"), 1}}},
		{"trailing blank lines", "{\"ts\":1,\"key\":\"a\"}\n\n  \n", 0, []Request{{1, []byte("a"), 1}}},
		{"bom", "\xEF\xBB\xBF{\"ts\":1,\"key\":\"a\"}\n", 0, []Request{{1, []byte("a"), 1}}},
		{"two lines", "{\"ts\":1,\"key\":\"a\"}\n{\"ts\":2,\"key\":\"b\"}\n", 0, []Request{{1, []byte("a"), 1}, {2, []byte("b"), 1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := read(FormatJSONL, []byte(tt.in), "t.jsonl", Options{TSUnit: tt.unit})
			if err != nil {
				t.Fatal(err)
			}
			diffRequests(t, got, tt.want)
		})
	}
}

func TestJSONLErrors(t *testing.T) {
	const good = `{"ts":1,"key":"a"}` + "\n"
	tests := []struct {
		name, in string
		want     string
	}{
		{"missing key", good + good + good + `{"ts":1}`, `t.jsonl:4: missing "key" (fields: "ts")`},
		{"missing ts", `{"key":"a"}`, `t.jsonl:1: missing "ts" (fields: "key")`},
		{"not an object", good + `[1,2]`, `t.jsonl:2: invalid JSON: expected '{', found '[' at column 1`},
		{"truncated", good + `{"ts":1,"key":"a"`, `t.jsonl:2: invalid JSON: unexpected end of line, expected ',' or '}' at column 18`},
		{"trailing comma", `{"ts":1,"key":"a",}`, `t.jsonl:1: invalid JSON: expected a field name, found '}' at column 19`},
		{"text after", `{"ts":1,"key":"a"} x`, `t.jsonl:1: invalid JSON: text after the object at column 20`},
		{"unclosed string", `{"ts":1,"key":"a}`, `t.jsonl:1: invalid JSON: string not closed before the end of the line at column 18`},
		{"control char", "{\"ts\":1,\"key\":\"a\tb\"}", `t.jsonl:1: invalid JSON: control character in string at column 17`},
		{"bad escape", `{"ts":1,"key":"a\qb"}`, `t.jsonl:1: invalid JSON: invalid escape at column 17`},
		{"bad unicode escape", `{"ts":1,"key":"\u12G4"}`, `t.jsonl:1: invalid JSON: invalid \u escape at column 16`},
		{"bad literal", `{"ts":1,"key":"a","x":tru}`, `t.jsonl:1: invalid JSON: invalid literal, expected true at column 23`},
		{"bad number", `{"ts":01,"key":"a"}`, `t.jsonl:1: invalid JSON: expected ',' or '}', found '1' at column 8`},
		{"bad nested", `{"ts":1,"key":"a","x":[1,}`, `t.jsonl:1: invalid JSON: expected a value, found '}' at column 26`},
		{"too deep", `{"x":` + strings.Repeat("[", 1002) + strings.Repeat("]", 1002) + `}`, `t.jsonl:1: invalid JSON: nesting deeper than 1000 at column 1007`},
		{"ts bad string", `{"ts":"abc","key":"a"}`, `t.jsonl:1: ts "abc" is not a number, decimal seconds or RFC 3339 time`},
		{"ts negative", `{"ts":-5,"key":"a"}`, `t.jsonl:1: ts -5 is negative`},
		{"ts overflow", `{"ts":99999999999999999999,"key":"a"}`, `t.jsonl:1: ts 99999999999999999999 overflows int64 nanoseconds`},
		{"ts overflow by the auto unit", `{"ts":1431857112,"key":"a"}` + "\n" + `{"ts":"1431857112000","key":"a"}`,
			`t.jsonl:2: ts "1431857112000" overflows int64 nanoseconds as s (the unit of the trace's first timestamp): give the unit with -ts-unit`},
		{"ts exponent", `{"ts":1.7e9,"key":"a"}`, `t.jsonl:1: ts 1.7e9 has an exponent; write an integer or decimal seconds`},
		{"ts too fine", `{"ts":1.0000000001,"key":"a"}`, `t.jsonl:1: ts 1.0000000001 has more than 9 fraction digits (finer than a nanosecond)`},
		{"ts bool", `{"ts":true,"key":"a"}`, `t.jsonl:1: ts is not a number or a string`},
		{"ts null", `{"ts":null,"key":"a"}`, `t.jsonl:1: ts is null`},
		{"key number", `{"ts":1,"key":5}`, `t.jsonl:1: key is not a string`},
		{"key null", `{"ts":1,"key":null}`, `t.jsonl:1: key is null`},
		{"empty key", `{"ts":1,"key":""}`, `t.jsonl:1: empty key`},
		{"zero cost", `{"ts":1,"key":"a","cost":0}`, `t.jsonl:1: cost 0 is not positive`},
		{"negative cost", `{"ts":1,"key":"a","cost":-2}`, `t.jsonl:1: cost -2 is not positive`},
		{"fractional cost", `{"ts":1,"key":"a","cost":1.5}`, `t.jsonl:1: cost 1.5 is not an integer`},
		{"cost overflow", `{"ts":1,"key":"a","cost":9223372036854775808}`, `t.jsonl:1: cost 9223372036854775808 exceeds the largest cost, 2147483647`},
		{"string cost", `{"ts":1,"key":"a","cost":"2"}`, `t.jsonl:1: cost is not a number`},
		{"key twice", good + `{"ts":1,"key":"a","key":"b"}`, `t.jsonl:2: key is given twice (which one counts would be a guess)`},
		{"key twice, the same", `{"ts":1,"key":"a","key":"a"}`, `t.jsonl:1: key is given twice (which one counts would be a guess)`},
		{"ts twice", `{"ts":1,"key":"a","ts":2}`, `t.jsonl:1: ts is given twice (which one counts would be a guess)`},
		{"cost twice", `{"ts":1,"cost":null,"key":"a","cost":2}`, `t.jsonl:1: cost is given twice (which one counts would be a guess)`},
		{"key twice, not strings", `{"ts":1,"key":5,"key":null}`, `t.jsonl:1: key is given twice (which one counts would be a guess)`},
		{"blank line in the middle", good + "\n" + good, `t.jsonl:2: empty line`},
		{"NUL byte", "{\"ts\":1,\"key\":\"a\x00\"}", `t.jsonl:1: NUL byte`},
		{"invalid utf-8 key", "{\"ts\":1,\"key\":\"héllo\xff\"}", `t.jsonl:1: key is not valid UTF-8`},
		{"escaped NUL in the key", `{"ts":1,"key":"a\u0000b"}` + "\n" + `{"ts":1}`, `t.jsonl:1: key holds a NUL byte`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := read(FormatJSONL, []byte(tt.in), "t.jsonl", Options{})
			if err == nil {
				t.Fatalf("no error, read %+v", got)
			}
			if err.Error() != tt.want {
				t.Fatalf("error\n got: %s\nwant: %s", err, tt.want)
			}
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %T is not a *ParseError", err)
			}
		})
	}
}

func TestJSONLWriter(t *testing.T) {
	reqs := []Request{
		{1, []byte("plain"), 1},
		{2, []byte("q\"b\\n\nc\x01\u2028"), 9},
	}
	want := `{"ts":1,"key":"plain","cost":1}` + "\n" +
		`{"ts":2,"key":"q\"b\\n\nc\u0001\u2028","cost":9}` + "\n"
	if got := string(write(t, FormatJSONL, reqs)); got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

func TestJSONLAllocs(t *testing.T) {
	const perRun = 1000
	reqs := benchRequests(perRun * 60)
	reqs[5].Key = []byte("escapes \"here\"\n\u00e9")
	data := write(t, FormatJSONL, reqs)
	r, err := NewJSONLReader(strings.NewReader(string(data)), "t.jsonl", Options{})
	if err != nil {
		t.Fatal(err)
	}
	allocs := testing.AllocsPerRun(50, func() {
		for range perRun {
			if !r.Scan() {
				t.Fatal("short trace", r.Err())
			}
		}
	})
	if allocs != 0 {
		t.Fatalf("%.0f allocations per %d records, want 0", allocs, perRun)
	}
}
