package markup

import (
	"strings"

	"ratebench/internal/escape"
)

// Text in a summary is untrusted: keys come from traces, and the path,
// rules and algorithm names from whoever wrote the file. Every string the
// report shows goes through escape.Visible first (escape.VisibleQuoted for
// the reasons records were skipped, which their reader quoted already),
// then through the escaper of the target format (escape.Markdown or
// escape.HTML).

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

// MarkdownCode is the Markdown code span of s, which must be printable
// text on one line (escape.Visible's, escape.ShellCommand's): in a code
// span nothing is markup, so s is shown literally. The fence is one
// backtick longer than the longest run of backticks in s, and s is padded
// with a space on each side when it begins or ends with a backtick, or
// with a space (CommonMark strips one space each side). In a table cell
// (inTable), a | is written \| (GitHub's tables split cells on a | before
// they read code spans, and read \| as |). An empty s gives "".
func MarkdownCode(s string, inTable bool) string {
	if s == "" {
		return ""
	}
	if inTable {
		s = strings.ReplaceAll(s, "|", `\|`)
	}
	fence := strings.Repeat("`", longestBackticks(s)+1)
	if s[0] == '`' || s[len(s)-1] == '`' || (s[0] == ' ' && s[len(s)-1] == ' ' && strings.Trim(s, " ") != "") {
		s = " " + s + " "
	}
	return fence + s + fence
}

// MarkdownCodeBlock is the fenced code block of s, lines of text shown
// literally: each line made printable (escape.VisibleQuoted: what does not
// print is escaped, backslashes kept, so that a shell command stays the
// same), fenced by at least three backticks and more than the longest run
// of backticks in s, so that no line of s can close the block. It ends
// with a newline.
func MarkdownCodeBlock(s string) string {
	lines := strings.Split(s, "\n")
	longest := 0
	for i, l := range lines {
		lines[i] = escape.VisibleQuoted(l)
		longest = max(longest, longestBackticks(lines[i]))
	}
	fence := strings.Repeat("`", max(3, longest+1))
	return fence + "\n" + strings.Join(lines, "\n") + "\n" + fence + "\n"
}

// longestBackticks is the length of the longest run of backticks in s.
func longestBackticks(s string) int {
	longest, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return longest
}
