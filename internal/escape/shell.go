package escape

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// ShellWord quotes s as one word of a command line that a user pastes into
// a POSIX shell (bash, zsh, dash): s itself when it holds only characters no
// shell reads as syntax; else s in single quotes, each ' written as '\” (no
// character is special inside single quotes, so nothing can break out);
// else, when s holds what does not print (a newline, a control or format
// character, a byte that is not UTF-8), s as an ANSI-C quoted word $'...'
// whose escapes (\n, \xNN, \uNNNN) are understood by bash, zsh and ksh. The
// result is printable text on one line: it is shown as it is, never passed
// through Visible again (whose doubled backslash would change the word).
func ShellWord(s string) string {
	if s == "" {
		return "''"
	}
	if shellSafe(s) {
		return s
	}
	if printableOneLine(s) {
		return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
	}
	var b strings.Builder
	b.WriteString("$'")
	writeEscaped(&b, s, `\'`)
	b.WriteByte('\'')
	return b.String()
}

// ShellCommand is the command line of args, each quoted by ShellWord and
// joined by spaces.
func ShellCommand(args ...string) string {
	words := make([]string, len(args))
	for i, a := range args {
		words[i] = ShellWord(a)
	}
	return strings.Join(words, " ")
}

// shellSafe reports whether s needs no quoting: letters, digits and
// characters that no shell reads as syntax.
func shellSafe(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("_./:=,+-%@", c) >= 0) {
			return false
		}
	}
	return true
}

// printableOneLine reports whether every rune of s is valid UTF-8 and
// prints (a space prints; a newline or tab does not).
func printableOneLine(s string) bool {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || !strconv.IsPrint(r) {
			return false
		}
		i += size
	}
	return true
}
