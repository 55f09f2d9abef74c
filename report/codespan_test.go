package report

import (
	"bytes"
	"strings"
	"testing"

	"ratebench/internal/escape"
	"ratebench/report/markup"
)

// readCodeSpan reads the code span that s opens with, as CommonMark reads
// it: the text between a run of n backticks and the next run of exactly
// n, one space stripped each side when both are there. rest is what
// follows the span.
func readCodeSpan(s string) (content, rest string, ok bool) {
	n := len(s) - len(strings.TrimLeft(s, "`"))
	if n == 0 {
		return "", s, false
	}
	body := s[n:]
	for i := 0; i < len(body); {
		if body[i] != '`' {
			i++
			continue
		}
		j := i
		for j < len(body) && body[j] == '`' {
			j++
		}
		if j-i == n {
			c := body[:i]
			if len(c) >= 2 && c[0] == ' ' && c[len(c)-1] == ' ' && strings.Trim(c, " ") != "" {
				c = c[1 : len(c)-1]
			}
			return c, body[j:], true
		}
		i = j
	}
	return "", s, false
}

// A code span holds any printable text literally: backticks, spaces at
// its ends, markup.
func TestMarkdownCodeSpan(t *testing.T) {
	for _, s := range []string{"plain", "a`b", "``x``", "`", "a ``` b", " x ", " ", "<script>alert(1)</script>", "*a* _b_ [c](d)", `\`} {
		md := markup.MarkdownCode(s, false)
		got, rest, ok := readCodeSpan(md)
		if !ok || got != s || rest != "" {
			t.Errorf("mdCode(%q) = %q reads back as %q (rest %q, %v)", s, md, got, rest, ok)
		}
	}
	if got := markup.MarkdownCode("a|b", true); got != "`a\\|b`" {
		t.Errorf("in a table cell mdCode(a|b) = %s, want `a\\|b`", got)
	}
	if got := markup.MarkdownCodeBlock("ratebench x\n```y"); got != "````\nratebench x\n```y\n````\n" {
		t.Errorf("mdCodeBlock = %q: a line of the text closes the block", got)
	}
}

// The Cloudflare page shows the trace's path in a code span that holds it
// whole, whatever backticks or markup it holds: nothing of it becomes
// Markdown or HTML.
func TestCloudflarePathInCodeSpan(t *testing.T) {
	for _, path := range []string{"gen:population:requests=100", "a`b``c<script>alert(1)</script>.csv", "`", "x` <img src=x onerror=alert(1)> `"} {
		s := readSummary(t, "small.summary.json")
		s.Trace.Path = path
		var b bytes.Buffer
		if err := CloudflareREADME(&b, s, "", "ratebench cloudflare", nil); err != nil {
			t.Fatal(err)
		}
		_, after, ok := strings.Cut(b.String(), " sources (")
		if !ok {
			t.Fatalf("the page does not name the trace: %s", b.String())
		}
		got, rest, ok := readCodeSpan(after)
		if !ok || got != escape.Visible(path) || !strings.HasPrefix(rest, "). Rule ") {
			t.Errorf("path %q: the code span reads %q, followed by %.20q", path, got, rest)
		}
	}
}

// outsideCodeSpans is md without its code spans (whose text is literal),
// reading a backslash as escaping the character after it.
func outsideCodeSpans(md string) string {
	var b strings.Builder
	for i := 0; i < len(md); {
		switch md[i] {
		case '\\':
			b.WriteString(md[i:min(i+2, len(md))])
			i += 2
		case '`':
			if _, rest, ok := readCodeSpan(md[i:]); ok {
				i = len(md) - len(rest)
				continue
			}
			j := i
			for j < len(md) && md[j] == '`' {
				j++
			}
			b.WriteString(md[i:j])
			i = j
		default:
			b.WriteByte(md[i])
			i++
		}
	}
	return b.String()
}
