package report

import "strings"

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
