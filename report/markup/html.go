package markup

import (
	"bytes"
	"fmt"
	"html"
	"strings"

	"ratebench/internal/escape"
)

// The HTML renderer.

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
td{overflow-wrap:break-word;max-width:28em}
td.r,td code{white-space:nowrap;overflow-wrap:normal}
th{overflow-wrap:normal;vertical-align:bottom}
.scroll{overflow-x:auto;max-width:100%;margin:.6em 0 1.2em}
.scroll table{margin:0}
.scroll th:first-child,.scroll td:first-child{position:sticky;left:0;z-index:1;background:#fff;box-shadow:1px 0 0 #d0d0d0}
.scroll th:first-child{background:#f3f3f3}
.scroll tr:nth-child(even) td:first-child{background:#fafafa}
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

func htmlInline(in Inline) string {
	var b strings.Builder
	for _, s := range in {
		if s.Text == "" {
			continue
		}
		switch s.kind {
		case strong:
			b.WriteString("<strong>" + escape.HTML(s.Text) + "</strong>")
		case code:
			b.WriteString("<code>" + escape.HTML(s.Text) + "</code>")
		case quotedCode:
			b.WriteString("<code>" + html.EscapeString(escape.VisibleQuoted(s.Text)) + "</code>")
		case command:
			b.WriteString("<code>" + html.EscapeString(s.Text) + "</code>")
		case link:
			b.WriteString(`<a href="#` + html.EscapeString(s.anchor) + `">` + escape.HTML(s.Text) + "</a>")
		default:
			b.WriteString(escape.HTML(s.Text))
		}
	}
	return b.String()
}

// HTML is the document as a self-contained HTML page: its style inline,
// its figures inline SVG, no script, no external file.
func (d *Document) HTML() []byte {
	var b bytes.Buffer
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
	b.WriteString("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
	// Nothing in the page needs a script, a fetch or an external file.
	b.WriteString("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">\n")
	fmt.Fprintf(&b, "<title>%s</title>\n<style>\n%s</style>\n</head>\n<body>\n<main>\n", escape.HTML(d.Title), css)
	fmt.Fprintf(&b, "<h1>%s</h1>\n", escape.HTML(d.Title))

	// Contents: the level-2 headings, folded, so that the first screen
	// is the answer.
	var toc []Heading
	for _, blk := range d.Blocks {
		switch x := blk.(type) {
		case Heading:
			if x.Level == 2 && x.ID != "" {
				toc = append(toc, x)
			}
		case Fold:
			if x.Level == 2 && x.ID != "" {
				toc = append(toc, Heading{x.Level, x.ID, x.Title})
			}
		}
	}
	var nav strings.Builder
	if len(toc) > 2 {
		nav.WriteString("<nav>\n<details>\n<summary>Contents</summary>\n<ul>\n")
		for _, h := range toc {
			fmt.Fprintf(&nav, "<li><a href=\"#%s\">%s</a></li>\n", h.ID, htmlInline(h.Text))
		}
		nav.WriteString("</ul>\n</details>\n</nav>\n")
	}
	lead := min(d.Lead, len(d.Blocks))
	htmlBlocks(&b, d.Blocks[:lead])
	b.WriteString(nav.String())
	htmlBlocks(&b, d.Blocks[lead:])
	b.WriteString("</main>\n</body>\n</html>\n")
	return b.Bytes()
}

func htmlBlocks(b *bytes.Buffer, blocks []Block) {
	for _, blk := range blocks {
		switch x := blk.(type) {
		case Fold:
			id := ""
			if x.ID != "" {
				id = fmt.Sprintf(" id=\"%s\"", x.ID)
			}
			fmt.Fprintf(b, "<details%s class=\"h%d\">\n<summary>%s</summary>\n", id, x.Level, htmlInline(x.Title))
			htmlBlocks(b, x.Blocks)
			b.WriteString("</details>\n")
		case Heading:
			id := ""
			if x.ID != "" {
				id = fmt.Sprintf(" id=\"%s\"", x.ID)
			}
			fmt.Fprintf(b, "<h%d%s>%s</h%d>\n", x.Level, id, htmlInline(x.Text), x.Level)
		case Para:
			fmt.Fprintf(b, "<p>%s</p>\n", htmlInline(x.Text))
		case Bullets:
			b.WriteString("<ul>\n")
			for _, it := range x.Items {
				fmt.Fprintf(b, "<li>%s</li>\n", htmlInline(it))
			}
			b.WriteString("</ul>\n")
		case Table:
			x = x.compact()
			// A wide table scrolls in its own box, never the page, its first
			// column (what each row is) fixed at the left of the box.
			b.WriteString("<div class=\"scroll\">\n<table>\n<thead><tr>")
			for i, h := range x.Head {
				fmt.Fprintf(b, "<th%s>%s</th>", alignClass(x.Right, i), escape.HTML(h))
			}
			b.WriteString("</tr></thead>\n<tbody>\n")
			for _, row := range x.Rows {
				b.WriteString("<tr>")
				for i := range x.Head {
					cell := ""
					if i < len(row) {
						cell = htmlInline(row[i])
					}
					fmt.Fprintf(b, "<td%s>%s</td>", alignClass(x.Right, i), cell)
				}
				b.WriteString("</tr>\n")
			}
			b.WriteString("</tbody>\n</table>\n</div>\n")
		case Figure:
			fmt.Fprintf(b, "<figure id=\"fig-%s\">\n", x.Name)
			b.Write(inlineSVG(x.SVG))
			fmt.Fprintf(b, "<figcaption>%s</figcaption>\n</figure>\n", htmlInline(x.Caption))
		}
	}
}
