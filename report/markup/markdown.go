package markup

import (
	"bytes"
	"fmt"
	"strings"

	"ratebench/internal/escape"
)

// The Markdown renderer.

func mdInline(in Inline) string { return mdInlineIn(in, false) }

// mdInlineIn is mdInline, for a table cell when inTable.
func mdInlineIn(in Inline, inTable bool) string {
	var b strings.Builder
	for _, s := range in {
		if s.Text == "" {
			continue
		}
		switch s.kind {
		case strong:
			b.WriteString("**" + escape.Markdown(s.Text) + "**")
		case code:
			if mdCodeSafe(s.Text) {
				b.WriteString(MarkdownCode(s.Text, inTable))
			} else {
				b.WriteString(escape.Markdown(s.Text))
			}
		case command:
			b.WriteString(MarkdownCode(s.Text, inTable))
		case link:
			b.WriteString("[" + escape.Markdown(s.Text) + "](#" + s.anchor + ")")
		case quotedCode:
			if mdCodeSafe(s.Text) {
				b.WriteString(MarkdownCode(s.Text, inTable))
			} else {
				b.WriteString(escape.MarkdownLiteral(escape.VisibleQuoted(s.Text)))
			}
		default:
			b.WriteString(escape.Markdown(s.Text))
		}
	}
	return b.String()
}

// Markdown is the document as Markdown (CommonMark with GitHub's tables).
func (d *Document) Markdown() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# %s\n", escape.Markdown(d.Title))
	mdBlocks(&b, d.Blocks)
	return b.Bytes()
}

func mdBlocks(b *bytes.Buffer, blocks []Block) {
	for _, blk := range blocks {
		b.WriteByte('\n')
		switch x := blk.(type) {
		case Fold:
			fmt.Fprintf(b, "%s %s\n", strings.Repeat("#", x.Level), mdInline(x.Title))
			mdBlocks(b, x.Blocks)
		case Heading:
			fmt.Fprintf(b, "%s %s\n", strings.Repeat("#", x.Level), mdInline(x.Text))
		case Para:
			fmt.Fprintf(b, "%s\n", mdInline(x.Text))
		case Bullets:
			for _, it := range x.Items {
				fmt.Fprintf(b, "- %s\n", mdInline(it))
			}
		case Table:
			x = x.compact()
			b.WriteString("|")
			for _, h := range x.Head {
				fmt.Fprintf(b, " %s |", escape.Markdown(h))
			}
			b.WriteString("\n|")
			for i := range x.Head {
				if i < len(x.Right) && x.Right[i] {
					b.WriteString("---:|")
				} else {
					b.WriteString("---|")
				}
			}
			b.WriteByte('\n')
			for _, row := range x.Rows {
				b.WriteString("|")
				for i := range x.Head {
					cell := ""
					if i < len(row) {
						cell = mdInlineIn(row[i], true)
					}
					if cell == "" {
						cell = " "
					}
					fmt.Fprintf(b, " %s |", cell)
				}
				b.WriteByte('\n')
			}
		case Figure:
			fmt.Fprintf(b, "![%s](plots/%s.svg)\n\n", escape.Markdown(x.Alt), x.Name)
			cap := mdInline(x.Caption)
			if x.PNG {
				cap += fmt.Sprintf(" ([SVG](plots/%s.svg), [PNG](plots/%s.png))", x.Name, x.Name)
			}
			fmt.Fprintf(b, "%s\n", strings.TrimSpace(cap))
		}
	}
}
