// Package escape makes untrusted text (keys from traces, paths, names
// from a summary, a server's version) safe to show: printable on one line,
// unambiguous, and literal in Markdown or HTML. The reports of package
// report and of the Redis replay escape by the same rules.
package escape

import (
	"fmt"
	"html"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Every string a report shows goes through Visible first (VisibleQuoted for
// text whose writer quoted what it cites), then through the escaper of the
// target format: MarkdownLiteral (Markdown is both) or html.EscapeString
// (HTML is both).

// Visible makes s printable on one line, unambiguously: a backslash is
// doubled, newline, carriage return and tab become \n, \r, \t, other bytes
// and runes that do not print (control and format characters, such as
// bidirectional overrides) become \xNN, \uNNNN or \UNNNNNNNN, and bytes that
// are not valid UTF-8 become \xNN, as strconv.Quote writes them.
func Visible(s string) string { return escapeInvisible(s, true) }

// VisibleQuoted is Visible for text whose writer quoted what it cites of
// the input (a trace reader's reason for skipping a record: `ts "a\nb" is
// not a valid time`): its backslashes are escapes already and are kept as
// they are, so that the text is escaped once; whatever does not print is
// still escaped.
func VisibleQuoted(s string) string { return escapeInvisible(s, false) }

// escapeInvisible is Visible, doubling backslashes or not.
func escapeInvisible(s string, doubleBackslash bool) string {
	quoted := ""
	if doubleBackslash {
		quoted = `\`
	}
	if printableOneLine(s) && !strings.ContainsAny(s, quoted) {
		return s
	}
	var b strings.Builder
	writeEscaped(&b, s, quoted)
	return b.String()
}

// writeEscaped writes s to b with what does not print escaped as Go and
// bash's ANSI-C quoting both read it: \n, \r, \t, \xNN for a byte that is
// not UTF-8 or an ASCII control, \uNNNN or \UNNNNNNNN for another rune
// that does not print; each character of quoted gets a backslash before it.
func writeEscaped(b *strings.Builder, s, quoted string) {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(b, `\x%02x`, s[i])
		case r < utf8.RuneSelf && strings.IndexByte(quoted, byte(r)) >= 0:
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case strconv.IsPrint(r):
			b.WriteRune(r)
		case r < 0x80:
			fmt.Fprintf(b, `\x%02x`, r)
		case r < 0x10000:
			fmt.Fprintf(b, `\u%04x`, r)
		default:
			fmt.Fprintf(b, `\U%08x`, r)
		}
		i += size
	}
}

// mdSpecial are the characters that Markdown (CommonMark and GitHub's
// tables, strikethrough and entities) may read as markup.
const mdSpecial = "\\`*_[]<>#|~&!$"

// Markdown makes Visible(s) literal text in Markdown, also inside a table
// cell (see MarkdownLiteral).
func Markdown(s string) string { return MarkdownLiteral(Visible(s)) }

// MarkdownLiteral makes printable text literal in Markdown: every special
// character gets a backslash, and a leading character that could open a
// list, a quote or a heading is escaped too.
func MarkdownLiteral(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		// What opens a block only does so followed by a space or the end.
		spaceNext := i+1 == len(s) || s[i+1] == ' '
		switch {
		case strings.IndexByte(mdSpecial, c) >= 0:
			b.WriteByte('\\')
		case i == 0 && (c == '=' || ((c == '-' || c == '+') && spaceNext)):
			b.WriteByte('\\')
		case (c == '.' || c == ')') && i > 0 && spaceNext && digitsOnly(s[:i]):
			// "1. " or "1) " at the start opens an ordered list.
			b.WriteByte('\\')
		}
		b.WriteByte(c)
	}
	return b.String()
}

func digitsOnly(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// HTML makes Visible(s) literal text in HTML, in an element or a quoted
// attribute.
func HTML(s string) string { return html.EscapeString(Visible(s)) }
