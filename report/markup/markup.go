// Package markup is the document model of ratebench's pages: a document
// of blocks (headings, paragraphs, bullets, tables, figures, folded
// sections) made of inline spans (text, strong, code, shell commands),
// rendered to Markdown and to a self-contained HTML page. A document is
// built once and rendered twice, so that both say the same thing, and
// every piece of text is escaped by the renderer, never by the code that
// writes it: text is untrusted (keys come from traces, names from a
// summary).
package markup

import (
	"bytes"
	"fmt"
	"strings"

	"ratebench/internal/escape"
)

type spanKind int

const (
	plain spanKind = iota
	strong
	code
	quotedCode // code whose writer quoted the input it cites (see visibleQuoted)
	command    // a shell command line, quoted by escape.ShellCommand: shown as it is
	link       // plain text linking to a section of the same document (its anchor)
)

// span is a run of text; its content is always untrusted as far as the
// renderers are concerned.
type span struct {
	kind   spanKind
	Text   string
	anchor string // a link's target: the ID of a heading of the document
}

// Inline is a sequence of spans: a paragraph, a cell, a heading.
// Inline is a sequence of spans: a paragraph, a cell, a heading. Its
// methods append a span and return the sequence, so that text reads in order:
// Text("Run ").C("compare").T(" again.").
type Inline []span

// Text is an inline of plain text.
func Text(s string) Inline { return Inline{{kind: plain, Text: s}} }

// Textf is txt with fmt.Sprintf.
func Textf(format string, args ...any) Inline { return Text(fmt.Sprintf(format, args...)) }

// T appends plain text.
func (in Inline) T(s string) Inline { return append(in, span{kind: plain, Text: s}) }

// Tf is T with fmt.Sprintf.
func (in Inline) Tf(format string, args ...any) Inline {
	return append(in, span{kind: plain, Text: fmt.Sprintf(format, args...)})
}

// L appends text s linking to the heading of ID anchor in the same
// document (plain text in a terminal).
func (in Inline) L(s, anchor string) Inline {
	return append(in, span{kind: link, Text: s, anchor: anchor})
}

// B appends strong text.
func (in Inline) B(s string) Inline { return append(in, span{kind: strong, Text: s}) }

// C appends code: a name, a flag, a value, made visible (escape.Visible)
// and shown in a code span where it can be as it is.
func (in Inline) C(s string) Inline { return append(in, span{kind: code, Text: s}) }

// Q is C for text that quotes the input it cites already (a skip reason).
func (in Inline) Q(s string) Inline { return append(in, span{kind: quotedCode, Text: s}) }

// Cmd is the command line of args, each word quoted for a POSIX shell
// (escape.ShellCommand), shown in code as it is: pasted into a shell, it
// gives back args exactly.
func (in Inline) Cmd(args ...string) Inline {
	return append(in, span{kind: command, Text: escape.ShellCommand(args...)})
}

// Block is one of Heading, Para, Bullets, Table, Figure and Fold.
type Block interface{ isBlock() }

// Heading is a heading of Level 1 to 6; ID, if not empty, is its anchor.
type Heading struct {
	Level int
	ID    string
	Text  Inline
}

// Para is a paragraph.
type Para struct{ Text Inline }

// Bullets is a bulleted list.
type Bullets struct{ Items []Inline }

// Table is a table of a header row and rows of cells; a column whose
// cells are all empty (or "—") is left out.
type Table struct {
	Head  []string
	Right []bool // right-align the column (numbers)
	Rows  [][]Inline
}

// Figure shows a plot: plots/NAME.svg (and .png).
type Figure struct {
	Name    string
	Alt     string
	Caption Inline
	SVG     []byte
	PNG     bool
}

// Fold is a section a reader opens when needed (the glossary, the
// configuration): folded in HTML (<details>), a plain section in Markdown.
type Fold struct {
	Level  int // of the heading it stands for
	ID     string
	Title  Inline
	Blocks []Block
}

func (Heading) isBlock() {}
func (Para) isBlock()    {}
func (Bullets) isBlock() {}
func (Table) isBlock()   {}
func (Figure) isBlock()  {}
func (Fold) isBlock()    {}

// Document is a page: a title over blocks.
type Document struct {
	Title  string
	Blocks []Block
	// lead is how many of the first blocks (the verdict) come before the
	// contents.
	Lead int
}

// Add appends blocks to the document.
func (d *Document) Add(b ...Block) { d.Blocks = append(d.Blocks, b...) }

// compact leaves out the columns that are empty (or "—") in every row:
// a figure the run did not measure.
func (t Table) compact() Table {
	if len(t.Rows) == 0 {
		return t
	}
	var keep []int
	for i := range t.Head {
		for _, row := range t.Rows {
			if i < len(row) {
				if c := strings.TrimSpace(PlainText(row[i])); c != "" && c != "—" {
					keep = append(keep, i)
					break
				}
			}
		}
	}
	if len(keep) == len(t.Head) {
		return t
	}
	out := Table{}
	for _, i := range keep {
		out.Head = append(out.Head, t.Head[i])
		out.Right = append(out.Right, i < len(t.Right) && t.Right[i])
	}
	for _, row := range t.Rows {
		r := make([]Inline, len(keep))
		for j, i := range keep {
			if i < len(row) {
				r[j] = row[i]
			}
		}
		out.Rows = append(out.Rows, r)
	}
	return out
}

func alignClass(right []bool, i int) string {
	if i < len(right) && right[i] {
		return ` class="r"`
	}
	return ""
}

// inlineSVG returns an SVG document as an element to place in HTML: from
// its <svg tag on, without the XML prelude, with a role and a final
// newline.
func inlineSVG(svg []byte) []byte {
	i := bytes.Index(svg, []byte("<svg"))
	if i < 0 {
		return nil
	}
	out := append([]byte(`<svg role="img"`), svg[i+len("<svg"):]...)
	if !bytes.HasSuffix(out, []byte("\n")) {
		out = append(out, '\n')
	}
	return out
}

// PlainText is an inline's text for a terminal, invisible characters made
// visible.
func PlainText(in Inline) string {
	var b strings.Builder
	for _, s := range in {
		b.WriteString(s.Text)
	}
	return escape.Visible(b.String())
}

// Plain is the text of in without markup, for a terminal.
func Plain(in Inline) string {
	var b strings.Builder
	for _, s := range in {
		b.WriteString(s.Text)
	}
	return b.String()
}
