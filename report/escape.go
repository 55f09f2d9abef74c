package report

import (
	"fmt"
	"html"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Text in a summary is untrusted: keys come from traces, and the path,
// rules and algorithm names from whoever wrote the file. Every string the
// report shows goes through visible first (visibleQuoted for the reasons
// records were skipped, which their reader quoted already), then through
// the escaper of the target format (mdEscape or htmlEscape).

// visible makes s printable on one line, unambiguously: a backslash is
// doubled, newline, carriage return and tab become \n, \r, \t, other bytes
// and runes that do not print (control and format characters, such as
// bidirectional overrides) become \xNN, \uNNNN or \UNNNNNNNN, and bytes that
// are not valid UTF-8 become \xNN, as strconv.Quote writes them.
func visible(s string) string { return escapeInvisible(s, true) }

// visibleQuoted is visible for text whose writer quoted what it cites of
// the input (a trace reader's reason for skipping a record: `ts "a\nb" is
// not a valid time`): its backslashes are escapes already and are kept as
// they are, so that the text is escaped once; whatever does not print is
// still escaped.
func visibleQuoted(s string) string { return escapeInvisible(s, false) }

// escapeInvisible is visible, doubling backslashes or not.
func escapeInvisible(s string, doubleBackslash bool) string {
	clean := true
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == '\\' && doubleBackslash) || (r == utf8.RuneError && size == 1) || !strconv.IsPrint(r) {
			clean = false
			break
		}
		i += size
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\\' && doubleBackslash:
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case strconv.IsPrint(r):
			b.WriteRune(r)
		case r < 0x80:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r < 0x10000:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			fmt.Fprintf(&b, `\U%08x`, r)
		}
		i += size
	}
	return b.String()
}

// mdSpecial are the characters that Markdown (CommonMark and GitHub's
// tables, strikethrough and entities) may read as markup.
const mdSpecial = "\\`*_[]<>#|~&!$"

// mdEscape makes visible(s) literal text in Markdown, also inside a table
// cell (see mdLiteral).
func mdEscape(s string) string { return mdLiteral(visible(s)) }

// mdLiteral makes printable text literal in Markdown: every special
// character gets a backslash, and a leading character that could open a
// list, a quote or a heading is escaped too.
func mdLiteral(s string) string {
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

// htmlEscape makes visible(s) literal text in HTML, in an element or a
// quoted attribute.
func htmlEscape(s string) string { return html.EscapeString(visible(s)) }

// mdCodeSafe reports whether s can go in a Markdown code span as is.
func mdCodeSafe(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.IndexByte(" :=/._,+%()-", c) >= 0:
		default:
			return false
		}
	}
	return s[0] != ' ' && s[len(s)-1] != ' '
}

// fileSafe turns s into a fragment of a file name: letters, digits, '.'
// and '-' are kept, anything else becomes '-'.
func fileSafe(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '.' && i > 0, c == '-':
			b.WriteByte(c)
		default:
			b.WriteByte('-')
		}
	}
	if b.Len() == 0 {
		return "-"
	}
	return b.String()
}
