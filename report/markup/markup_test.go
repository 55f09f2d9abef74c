package markup

import (
	"html"
	"strings"
	"testing"

	"ratebench/internal/escape"
)

// A command is shown as escape.ShellCommand quoted it, literally: in a
// Markdown code span, and in HTML with its entities the only change.
func TestCommandShownLiterally(t *testing.T) {
	args := []string{"ratebench", "explain", "-key", `x'; touch PWNED; echo '\`}
	want := escape.ShellCommand(args...)
	d := &Document{Title: "t"}
	d.Add(Para{Text: Text("Run ").Cmd(args...)})
	md := string(d.Markdown())
	if !strings.Contains(md, "Run `"+want+"`\n") {
		t.Errorf("Markdown %q does not hold the command %q in a code span", md, want)
	}
	page := string(d.HTML())
	_, after, _ := strings.Cut(page, "<p>Run <code>")
	inner, _, ok := strings.Cut(after, "</code>")
	if !ok || html.UnescapeString(inner) != want || strings.ContainsAny(inner, "<>'\"") {
		t.Errorf("HTML code %q, want %q escaped", inner, want)
	}
}

// Code that is not plain is escaped in both renderers: no tag survives.
func TestCodeEscaped(t *testing.T) {
	d := &Document{Title: "t"}
	d.Add(Para{Text: Inline{}.C("<script>alert(1)</script>")}, Table{Head: []string{"a"}, Rows: [][]Inline{{Inline{}.Cmd("a|b")}}})
	if md := string(d.Markdown()); !strings.Contains(md, `\<script\>`) || !strings.Contains(md, "| `'a\\|b'` |") {
		t.Errorf("Markdown:\n%s", md)
	}
	if page := string(d.HTML()); strings.Contains(page, "<script") || !strings.Contains(page, "<code>&#39;a|b&#39;</code>") {
		t.Errorf("HTML:\n%s", page)
	}
}
