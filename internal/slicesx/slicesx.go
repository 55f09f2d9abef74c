// Package slicesx holds the slice helper that the engine and the summary
// format share.
package slicesx

import "slices"

// Grow extends s to n zero elements, keeping its contents: per-key and
// per-bin slices grow as new keys and bins come.
func Grow[T any](s []T, n int) []T {
	if n <= len(s) {
		return s
	}
	old := len(s)
	s = slices.Grow(s, n-old)[:n]
	clear(s[old:])
	return s
}
