package report

import (
	"bytes"
	"fmt"
	"html"
	"strings"

	"ratebench/internal/escape"
)

// The report is built once as a small document model and rendered twice,
// to Markdown and to HTML, so that both say the same thing and every piece
// of text is escaped by the renderer, never by the code that writes it.

type spanKind int

const (
	plain spanKind = iota
	strong
	code
	quotedCode // code whose writer quoted the input it cites (see visibleQuoted)
	command    // a shell command line, quoted by escape.ShellCommand: shown as it is
)

// span is a run of text; its content is always untrusted as far as the
// renderers are concerned.
type span struct {
	kind spanKind
	text string
}

// inline is a sequence of spans: a paragraph, a cell, a heading.
type inline []span

func txt(s string) inline { return inline{{plain, s}} }

// txtf is txt with fmt.Sprintf.
func txtf(format string, args ...any) inline { return txt(fmt.Sprintf(format, args...)) }

func (in inline) T(s string) inline { return append(in, span{plain, s}) }
func (in inline) Tf(format string, args ...any) inline {
	return append(in, span{plain, fmt.Sprintf(format, args...)})
}
func (in inline) B(s string) inline { return append(in, span{strong, s}) }
func (in inline) C(s string) inline { return append(in, span{code, s}) }

// Q is C for text that quotes the input it cites already (a skip reason).
func (in inline) Q(s string) inline { return append(in, span{quotedCode, s}) }

// Cmd is the command line of args, each word quoted for a POSIX shell
// (escape.ShellCommand), shown in code as it is: pasted into a shell, it
// gives back args exactly.
func (in inline) Cmd(args ...string) inline {
	return append(in, span{command, escape.ShellCommand(args...)})
}

type block interface{ isBlock() }

type heading struct {
	level int
	id    string
	text  inline
}

type para struct{ text inline }

type bullets struct{ items []inline }

type table struct {
	head  []string
	right []bool // right-align the column (numbers)
	rows  [][]inline
}

// figureBlock shows a plot: plots/NAME.svg (and .png).
type figureBlock struct {
	name    string
	alt     string
	caption inline
	svg     []byte
	png     bool
}

// fold is a section a reader opens when needed (the glossary, the
// configuration): folded in HTML (<details>), a plain section in Markdown.
type fold struct {
	level  int // of the heading it stands for
	id     string
	title  inline
	blocks []block
}

func (heading) isBlock()     {}
func (para) isBlock()        {}
func (bullets) isBlock()     {}
func (table) isBlock()       {}
func (figureBlock) isBlock() {}
func (fold) isBlock()        {}

type document struct {
	title  string
	blocks []block
	// lead is how many of the first blocks (the verdict) come before the
	// contents.
	lead int
}

func (d *document) add(b ...block) { d.blocks = append(d.blocks, b...) }

// ---- Markdown ----

func mdInline(in inline) string { return mdInlineIn(in, false) }

// mdInlineIn is mdInline, for a table cell when inTable.
func mdInlineIn(in inline, inTable bool) string {
	var b strings.Builder
	for _, s := range in {
		if s.text == "" {
			continue
		}
		switch s.kind {
		case strong:
			b.WriteString("**" + escape.Markdown(s.text) + "**")
		case code:
			if mdCodeSafe(s.text) {
				b.WriteString(mdCode(s.text, inTable))
			} else {
				b.WriteString(escape.Markdown(s.text))
			}
		case command:
			b.WriteString(mdCode(s.text, inTable))
		case quotedCode:
			if mdCodeSafe(s.text) {
				b.WriteString(mdCode(s.text, inTable))
			} else {
				b.WriteString(escape.MarkdownLiteral(escape.VisibleQuoted(s.text)))
			}
		default:
			b.WriteString(escape.Markdown(s.text))
		}
	}
	return b.String()
}

func (d *document) markdown() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# %s\n", escape.Markdown(d.title))
	mdBlocks(&b, d.blocks)
	return b.Bytes()
}

func mdBlocks(b *bytes.Buffer, blocks []block) {
	for _, blk := range blocks {
		b.WriteByte('\n')
		switch x := blk.(type) {
		case fold:
			fmt.Fprintf(b, "%s %s\n", strings.Repeat("#", x.level), mdInline(x.title))
			mdBlocks(b, x.blocks)
		case heading:
			fmt.Fprintf(b, "%s %s\n", strings.Repeat("#", x.level), mdInline(x.text))
		case para:
			fmt.Fprintf(b, "%s\n", mdInline(x.text))
		case bullets:
			for _, it := range x.items {
				fmt.Fprintf(b, "- %s\n", mdInline(it))
			}
		case table:
			x = x.compact()
			b.WriteString("|")
			for _, h := range x.head {
				fmt.Fprintf(b, " %s |", escape.Markdown(h))
			}
			b.WriteString("\n|")
			for i := range x.head {
				if i < len(x.right) && x.right[i] {
					b.WriteString("---:|")
				} else {
					b.WriteString("---|")
				}
			}
			b.WriteByte('\n')
			for _, row := range x.rows {
				b.WriteString("|")
				for i := range x.head {
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
		case figureBlock:
			fmt.Fprintf(b, "![%s](plots/%s.svg)\n\n", escape.Markdown(x.alt), x.name)
			cap := mdInline(x.caption)
			if x.png {
				cap += fmt.Sprintf(" ([SVG](plots/%s.svg), [PNG](plots/%s.png))", x.name, x.name)
			}
			fmt.Fprintf(b, "%s\n", strings.TrimSpace(cap))
		}
	}
}

// ---- HTML ----

const css = `body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Liberation Sans",sans-serif;color:#1d1d1f;margin:0;background:#fff}
main{max-width:1100px;margin:0 auto;padding:1.5em 2em 4em}
h1{font-size:1.6em;margin:.2em 0 .6em}
h2{font-size:1.35em;margin-top:2.2em;border-bottom:2px solid #ddd;padding-bottom:.2em}
h3{font-size:1.15em;margin-top:1.8em}
h4{font-size:1em;margin-top:1.4em}
table{border-collapse:collapse;margin:.6em 0 1.2em;font-size:.9em;font-variant-numeric:tabular-nums}
th,td{border:1px solid #d0d0d0;padding:.25em .55em;vertical-align:top}
th{background:#f3f3f3;text-align:left}
td.r,th.r{text-align:right}
tr:nth-child(even) td{background:#fafafa}
td{overflow-wrap:anywhere;max-width:28em}
td.r,th.r,td code{white-space:nowrap;overflow-wrap:normal}
.scroll{overflow-x:auto;max-width:100%;margin:.6em 0 1.2em}
.scroll table{margin:0}
details{margin:1em 0}
details>summary{cursor:pointer;font-weight:600}
details.h2>summary{font-size:1.35em;border-bottom:2px solid #ddd;padding-bottom:.2em;margin-top:1.6em}
details.h3>summary{font-size:1.15em}
h1,h2,h3,h4,summary,p,li,figcaption{overflow-wrap:anywhere}
code{font:.9em ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:#f3f3f3;padding:0 .2em;border-radius:3px}
figure{margin:1em 0 2em}
figure svg{width:100%;max-width:100%;height:auto;display:block}
figcaption{font-size:.9em;color:#444;margin-top:.3em}
nav ul{columns:2;font-size:.9em}
@media (max-width:900px){main{padding:1em}nav ul{columns:1}}
`

func htmlInline(in inline) string {
	var b strings.Builder
	for _, s := range in {
		if s.text == "" {
			continue
		}
		switch s.kind {
		case strong:
			b.WriteString("<strong>" + escape.HTML(s.text) + "</strong>")
		case code:
			b.WriteString("<code>" + escape.HTML(s.text) + "</code>")
		case quotedCode:
			b.WriteString("<code>" + html.EscapeString(escape.VisibleQuoted(s.text)) + "</code>")
		case command:
			b.WriteString("<code>" + html.EscapeString(s.text) + "</code>")
		default:
			b.WriteString(escape.HTML(s.text))
		}
	}
	return b.String()
}

func (d *document) html() []byte {
	var b bytes.Buffer
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
	b.WriteString("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
	// Nothing in the page needs a script, a fetch or an external file.
	b.WriteString("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">\n")
	fmt.Fprintf(&b, "<title>%s</title>\n<style>\n%s</style>\n</head>\n<body>\n<main>\n", escape.HTML(d.title), css)
	fmt.Fprintf(&b, "<h1>%s</h1>\n", escape.HTML(d.title))

	// Contents: the level-2 headings, folded, so that the first screen
	// is the answer.
	var toc []heading
	for _, blk := range d.blocks {
		switch x := blk.(type) {
		case heading:
			if x.level == 2 && x.id != "" {
				toc = append(toc, x)
			}
		case fold:
			if x.level == 2 && x.id != "" {
				toc = append(toc, heading{x.level, x.id, x.title})
			}
		}
	}
	var nav strings.Builder
	if len(toc) > 2 {
		nav.WriteString("<nav>\n<details>\n<summary>Contents</summary>\n<ul>\n")
		for _, h := range toc {
			fmt.Fprintf(&nav, "<li><a href=\"#%s\">%s</a></li>\n", h.id, htmlInline(h.text))
		}
		nav.WriteString("</ul>\n</details>\n</nav>\n")
	}
	lead := min(d.lead, len(d.blocks))
	htmlBlocks(&b, d.blocks[:lead])
	b.WriteString(nav.String())
	htmlBlocks(&b, d.blocks[lead:])
	b.WriteString("</main>\n</body>\n</html>\n")
	return b.Bytes()
}

func htmlBlocks(b *bytes.Buffer, blocks []block) {
	for _, blk := range blocks {
		switch x := blk.(type) {
		case fold:
			id := ""
			if x.id != "" {
				id = fmt.Sprintf(" id=\"%s\"", x.id)
			}
			fmt.Fprintf(b, "<details%s class=\"h%d\">\n<summary>%s</summary>\n", id, x.level, htmlInline(x.title))
			htmlBlocks(b, x.blocks)
			b.WriteString("</details>\n")
		case heading:
			id := ""
			if x.id != "" {
				id = fmt.Sprintf(" id=\"%s\"", x.id)
			}
			fmt.Fprintf(b, "<h%d%s>%s</h%d>\n", x.level, id, htmlInline(x.text), x.level)
		case para:
			fmt.Fprintf(b, "<p>%s</p>\n", htmlInline(x.text))
		case bullets:
			b.WriteString("<ul>\n")
			for _, it := range x.items {
				fmt.Fprintf(b, "<li>%s</li>\n", htmlInline(it))
			}
			b.WriteString("</ul>\n")
		case table:
			x = x.compact()
			// A wide table scrolls in its own box, never the page.
			b.WriteString("<div class=\"scroll\">\n<table>\n<thead><tr>")
			for i, h := range x.head {
				fmt.Fprintf(b, "<th%s>%s</th>", alignClass(x.right, i), escape.HTML(h))
			}
			b.WriteString("</tr></thead>\n<tbody>\n")
			for _, row := range x.rows {
				b.WriteString("<tr>")
				for i := range x.head {
					cell := ""
					if i < len(row) {
						cell = htmlInline(row[i])
					}
					fmt.Fprintf(b, "<td%s>%s</td>", alignClass(x.right, i), cell)
				}
				b.WriteString("</tr>\n")
			}
			b.WriteString("</tbody>\n</table>\n</div>\n")
		case figureBlock:
			fmt.Fprintf(b, "<figure id=\"fig-%s\">\n", x.name)
			b.Write(inlineSVG(x.svg))
			fmt.Fprintf(b, "<figcaption>%s</figcaption>\n</figure>\n", htmlInline(x.caption))
		}
	}
}

// compact leaves out the columns that are empty (or "—") in every row:
// a figure the run did not measure.
func (t table) compact() table {
	if len(t.rows) == 0 {
		return t
	}
	var keep []int
	for i := range t.head {
		for _, row := range t.rows {
			if i < len(row) {
				if c := strings.TrimSpace(plainText(row[i])); c != "" && c != "—" {
					keep = append(keep, i)
					break
				}
			}
		}
	}
	if len(keep) == len(t.head) {
		return t
	}
	out := table{}
	for _, i := range keep {
		out.head = append(out.head, t.head[i])
		out.right = append(out.right, i < len(t.right) && t.right[i])
	}
	for _, row := range t.rows {
		r := make([]inline, len(keep))
		for j, i := range keep {
			if i < len(row) {
				r[j] = row[i]
			}
		}
		out.rows = append(out.rows, r)
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
