package escape

import "strings"

// FileName turns s into a fragment of a file name: letters, digits, '-'
// and '.' (except first, so that no fragment is hidden or "..") are kept,
// every other byte becomes '-'; an empty s gives "-". Each byte of s gives
// one byte of the result, so FileName(s[:n]) is the result's first n bytes.
func FileName(s string) string {
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
