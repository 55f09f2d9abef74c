package markup

import (
	"strings"
	"testing"
)

// A table of many columns scrolls in its own box in HTML, its first column
// held at the left of the box with a background of its own; the Markdown
// is a plain table.
func TestWideTableScrollsWithFirstColumnFixed(t *testing.T) {
	tb := Table{}
	row := []Inline{}
	for i := range 20 {
		tb.Head = append(tb.Head, strings.Repeat("column ", 3)+string(rune('a'+i)))
		row = append(row, Text("123,456,789"))
	}
	tb.Rows = [][]Inline{row, row}
	d := &Document{Title: "t"}
	d.Add(tb)
	page := string(d.HTML())
	if !strings.Contains(page, "<div class=\"scroll\">\n<table>") || !strings.Contains(page, "</table>\n</div>") {
		t.Errorf("the table is not wrapped in a scrolling box:\n%s", page)
	}
	for _, rule := range []string{
		".scroll{overflow-x:auto;max-width:100%",
		".scroll th:first-child,.scroll td:first-child{position:sticky;left:0;",
		"background:#fff",
		".scroll th:first-child{background:",
		".scroll tr:nth-child(even) td:first-child{background:",
	} {
		if !strings.Contains(page, rule) {
			t.Errorf("the page's style lacks %q", rule)
		}
	}
	md := string(d.Markdown())
	if strings.Contains(md, "<div") || strings.Contains(md, "sticky") || !strings.Contains(md, "| column column column a |") {
		t.Errorf("Markdown not a plain table:\n%s", md)
	}
}
