package escape

import "testing"

func TestVisibleAndMarkdownEscape(t *testing.T) {
	for _, c := range []struct{ in, vis, md string }{
		{"plain-key.1", "plain-key.1", "plain-key.1"},
		{"line\nbreak", `line\nbreak`, `line\\nbreak`},
		{"\xff\xfe", `\xff\xfe`, `\\xff\\xfe`},
		{`back\slash`, `back\\slash`, `back\\\\slash`},
		{"a|b", "a|b", `a\|b`},
		{"tab\there\x00\x7f", `tab\there\x00\x7f`, `tab\\there\\x00\\x7f`},
		{"rtl\u202eevil", `rtl\u202eevil`, `rtl\\u202eevil`},
		{"# title", "# title", `\# title`},
		{"- item", "- item", `\- item`},
		{"1. item", "1. item", `1\. item`},
		{"9.60%", "9.60%", "9.60%"},
		{"ünïcode ok", "ünïcode ok", "ünïcode ok"},
	} {
		if got := Visible(c.in); got != c.vis {
			t.Errorf("Visible(%q) = %q, want %q", c.in, got, c.vis)
		}
		if got := Markdown(c.in); got != c.md {
			t.Errorf("Markdown(%q) = %q, want %q", c.in, got, c.md)
		}
	}
	if got := HTML("<a href='x'>\n"); got != "&lt;a href=&#39;x&#39;&gt;\\n" {
		t.Errorf("HTML = %q", got)
	}
}

func TestFileName(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", "-"},
		{"5/30s", "5-30s"},
		{"buckets:4", "buckets-4"},
		{"..", "-."},
		{".hidden", "-hidden"},
		{"a_b c\x00é", "a-b-c---"},
		{"10.0.0.1", "10.0.0.1"},
	} {
		if got := FileName(c.in); got != c.want {
			t.Errorf("FileName(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
