package summary

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// indentJSON re-indents compact JSON one space per level, keeping on one
// line every array whose elements are scalars or arrays of scalars (phase
// bins, histogram pairs), so that summaries stay small and readable. Key
// order is kept as written.
func indentJSON(compact []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(compact))
	dec.UseNumber()
	v, err := readNode(dec)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	writeNode(&out, v, 0)
	out.WriteByte('\n')
	return out.Bytes(), nil
}

// node is a parsed JSON value: a scalar (its encoded text), an object (keys
// and values in order) or an array.
type node struct {
	scalar []byte
	keys   []string
	vals   []node
	array  bool
}

func readNode(dec *json.Decoder) (node, error) {
	tok, err := dec.Token()
	if err != nil {
		return node{}, err
	}
	switch t := tok.(type) {
	case json.Delim:
		n := node{array: t == '['}
		for dec.More() {
			if !n.array {
				k, err := dec.Token()
				if err != nil {
					return n, err
				}
				n.keys = append(n.keys, k.(string))
			}
			v, err := readNode(dec)
			if err != nil {
				return n, err
			}
			n.vals = append(n.vals, v)
		}
		if _, err := dec.Token(); err != nil { // the closing delimiter
			return n, err
		}
		if !n.array && n.keys == nil {
			n.keys = []string{}
		}
		return n, nil
	default:
		b, err := json.Marshal(t)
		return node{scalar: b}, err
	}
}

func (n node) isScalar() bool { return n.scalar != nil }

// flat reports whether an array fits on one line: scalars, or arrays of
// scalars.
func (n node) flat() bool {
	for _, v := range n.vals {
		if v.isScalar() {
			continue
		}
		if !v.array {
			return false
		}
		for _, w := range v.vals {
			if !w.isScalar() {
				return false
			}
		}
	}
	return true
}

func writeNode(out *bytes.Buffer, n node, depth int) {
	switch {
	case n.isScalar():
		out.Write(n.scalar)
	case n.array && (len(n.vals) == 0 || n.flat()):
		out.WriteByte('[')
		for i, v := range n.vals {
			if i > 0 {
				out.WriteByte(',')
			}
			writeNode(out, v, depth+1)
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
			writeNode(out, v, depth+1)
		}
		if len(n.vals) > 0 {
			out.WriteByte('\n')
			out.Write(bytes.Repeat([]byte{' '}, depth))
		}
		out.WriteByte(close)
	}
}
