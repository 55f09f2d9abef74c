package summary

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// The layout indentJSON writes, read from a tree: the decoded value, each
// token encoded again. It is the definition the one-pass indenter is
// checked against.
type refNode struct {
	scalar []byte
	keys   []string
	vals   []refNode
	array  bool
}

func refIndent(compact []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(compact))
	dec.UseNumber()
	v, err := refRead(dec)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	refWrite(&out, v, 0)
	out.WriteByte('\n')
	return out.Bytes(), nil
}

func refRead(dec *json.Decoder) (refNode, error) {
	tok, err := dec.Token()
	if err != nil {
		return refNode{}, err
	}
	d, ok := tok.(json.Delim)
	if !ok {
		b, err := json.Marshal(tok)
		return refNode{scalar: b}, err
	}
	n := refNode{array: d == '['}
	for dec.More() {
		if !n.array {
			k, err := dec.Token()
			if err != nil {
				return n, err
			}
			n.keys = append(n.keys, k.(string))
		}
		v, err := refRead(dec)
		if err != nil {
			return n, err
		}
		n.vals = append(n.vals, v)
	}
	_, err = dec.Token()
	return n, err
}

// refFlat: an array of scalars, or of arrays of scalars.
func (n refNode) refFlat() bool {
	for _, v := range n.vals {
		if v.scalar != nil {
			continue
		}
		if !v.array {
			return false
		}
		for _, w := range v.vals {
			if w.scalar == nil {
				return false
			}
		}
	}
	return true
}

func refWrite(out *bytes.Buffer, n refNode, depth int) {
	switch {
	case n.scalar != nil:
		out.Write(n.scalar)
	case n.array && n.refFlat():
		out.WriteByte('[')
		for i, v := range n.vals {
			if i > 0 {
				out.WriteByte(',')
			}
			refWrite(out, v, depth+1)
		}
		out.WriteByte(']')
	default:
		open, close := byte('{'), byte('}')
		if n.array {
			open, close = '[', ']'
		}
		out.WriteByte(open)
		for i, v := range n.vals {
			if i > 0 {
				out.WriteByte(',')
			}
			out.WriteByte('\n')
			out.Write(bytes.Repeat([]byte{' '}, depth+1))
			if !n.array {
				k, _ := json.Marshal(n.keys[i])
				fmt.Fprintf(out, "%s: ", k)
			}
			refWrite(out, v, depth+1)
		}
		if len(n.vals) > 0 {
			out.WriteByte('\n')
			out.Write(bytes.Repeat([]byte{' '}, depth))
		}
		out.WriteByte(close)
	}
}

// indentCases are compact documents with every shape the layout tells
// apart: flat and nested arrays, empty containers, brackets, quotes and
// escapes inside strings and keys.
var indentCases = []string{
	`{}`, `[]`, `1`, `"s"`, `null`, `true`,
	`{"a":1,"b":"x","c":null,"d":false,"e":-1.5e-7}`,
	`{"a":[],"b":{},"c":[[]],"d":[[[]]],"e":[{}]}`,
	`{"bins":[0,1,2],"pairs":[[1,2],[3,4]],"mixed":[1,[2,3],"x"]}`,
	`{"deep":[[1,[2]]],"objs":[{"k":[1,2]},{"k":[]}],"arr":[[{"a":1}]]}`,
	`{"s":"[{\"}]","t":"a\\\"b","u":"\u003c\u0026\u003e\u2028","[k]":"{"}`,
	`[["a]",1],["b[",2]]`,
	`[[1,2],[3,[4]]]`,
	`{"a":{"b":{"c":[1,{"d":[]}]}}}`,
}

func TestIndentJSONLaysOutAsTheTreeDoes(t *testing.T) {
	for _, c := range indentCases {
		want, err := refIndent([]byte(c))
		if err != nil {
			t.Fatalf("%s: %v", c, err)
		}
		got, err := indentJSON([]byte(c))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s:\ngot  %q (%v)\nwant %q", c, got, err, want)
		}
	}
}

// Every summary committed under results/ was written by the tree's layout:
// compacted, it comes back byte for byte.
func TestIndentJSONRewritesTheCommittedSummaries(t *testing.T) {
	paths, err := filepath.Glob("../results/*/summary.json")
	if err != nil || len(paths) < 5 {
		t.Fatalf("committed summaries: %v, %v", paths, err)
	}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, data); err != nil {
			t.Fatal(p, err)
		}
		got, err := indentJSON(compact.Bytes())
		if err != nil || !bytes.Equal(got, data) {
			t.Errorf("%s: re-indented differs from the committed file (%v)", p, err)
		}
	}
}

func TestIndentJSONRefusesWhatIsNotCompactJSON(t *testing.T) {
	for _, c := range []string{``, `{`, `[1,2`, `{"a"}`, `{"a":1,}`, `{"a":1 }`, `"open`, `[1]x`, `{"a":1}{`, `{1:2}`} {
		if got, err := indentJSON([]byte(c)); err == nil {
			t.Errorf("%q: got %q, want an error", c, got)
		}
	}
}

func FuzzIndentJSON(f *testing.F) {
	for _, c := range indentCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if !json.Valid(data) {
			return
		}
		laid, err := refIndent(data) // each token encoded as Marshal does
		if err != nil {
			return
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, laid); err != nil {
			t.Fatal(err)
		}
		got, err := indentJSON(compact.Bytes())
		if err != nil || !bytes.Equal(got, laid) {
			t.Fatalf("%q:\ngot  %q (%v)\nwant %q", compact.Bytes(), got, err, laid)
		}
	})
}

func BenchmarkIndentJSON(b *testing.B) {
	data, err := os.ReadFile("../results/products/summary.json")
	if err != nil {
		b.Fatal(err)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, data); err != nil {
		b.Fatal(err)
	}
	b.Run("one-pass", func(b *testing.B) {
		b.SetBytes(int64(compact.Len()))
		for b.Loop() {
			if _, err := indentJSON(compact.Bytes()); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("tree", func(b *testing.B) {
		b.SetBytes(int64(compact.Len()))
		for b.Loop() {
			if _, err := refIndent(compact.Bytes()); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// Members reads an object's members as written, white space and all, and
// only an object.
func TestMembersReadsTheObjectsLayout(t *testing.T) {
	data := []byte(" {\n \"a\" : 1 ,\"b\":{\"c\":[1,{\"}\":\"]\"}]},\n\t\"s\": \"x\\\"}\" , \"n\":null,\"e\":[],\"a\":-2.5e3 }\n")
	var got []string
	if err := Members(data, func(k, v []byte) { got = append(got, string(k)+"="+string(v)) }); err != nil {
		t.Fatal(err)
	}
	want := []string{`"a"=1`, `"b"={"c":[1,{"}":"]"}]}`, `"s"="x\"}"`, `"n"=null`, `"e"=[]`, `"a"=-2.5e3`}
	if !slices.Equal(got, want) {
		t.Errorf("members %q, want %q", got, want)
	}
	for _, c := range []string{`[]`, `1`, `"a"`, `null`, ` `, `{}`} {
		n := 0
		err := Members([]byte(c), func(_, _ []byte) { n++ })
		if (c == `{}`) != (err == nil) || n != 0 {
			t.Errorf("%q: %d members, %v", c, n, err)
		}
	}
}

// A use bin is read as encoding/json reads it into a pair: the integers of
// a pair directly, anything else by the decoder, with its errors.
func TestUseBinReadsAsTheDecoderDoes(t *testing.T) {
	for _, c := range []string{`[1,2]`, `[ -3 , 40 ]`, `[0,-0]`, "[\n 9223372036854775807,\n 1\n]", `[1]`, `[1,2,3]`, `[1.5,2]`, `[1e3,2]`,
		`["a",2]`, `[9223372036854775808,1]`, `null`, `{}`, `[[1],2]`, `[]`} {
		var pair [2]int64
		wantErr := json.Unmarshal([]byte(c), &pair)
		var b UseBin
		err := b.UnmarshalJSON([]byte(c))
		if (err == nil) != (wantErr == nil) || err == nil && (b != UseBin{pair[0], pair[1]}) {
			t.Errorf("%s: read %v, %v; the decoder reads %v, %v", c, b, err, pair, wantErr)
		}
	}
}
