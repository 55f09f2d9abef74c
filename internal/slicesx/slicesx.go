// Package slicesx holds the slice helper that the engine and the summary
// format share.
package slicesx

import (
	"slices"
	"unsafe"
)

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

// chunkBits sets a Chunked's chunk: 1<<chunkBits elements.
const chunkBits = 12

// Chunked is a slice that grows a chunk of 4,096 elements at a time and
// never moves what it holds: growing copies nothing, so a table of
// millions of per-key values costs no doubling copies and no second
// touch of fresh memory, and an element's address stays valid. The zero
// Chunked is empty.
type Chunked[T any] struct {
	chunks [][]T
	n      int
}

// Len returns the number of elements.
func (c *Chunked[T]) Len() int { return c.n }

// At returns the address of element i, which must be below Len.
func (c *Chunked[T]) At(i int) *T { return &c.chunks[i>>chunkBits][i&(1<<chunkBits-1)] }

// Grow extends c to n zero elements, keeping its contents.
func (c *Chunked[T]) Grow(n int) {
	for len(c.chunks)<<chunkBits < n {
		c.chunks = append(c.chunks, Make[T](1<<chunkBits))
	}
	c.n = max(c.n, n)
}

// pageBytes is the size of a memory page, the unit the kernel maps.
const pageBytes = 4096

// Touch writes the zero value into one element of each memory page of s,
// whose elements must all be zero (memory just allocated). Fresh memory
// first read is mapped to the kernel's shared zero page, and the write
// that follows faults again to copy it, flushing the page from every
// processor's TLB; a replay's per-key tables are read (looked up, loaded
// ahead) before they are written, so they are touched when made.
func Touch[T any](s []T) {
	var zero T
	step := max(1, pageBytes/int(unsafe.Sizeof(zero)))
	for i := 0; i < len(s); i += step {
		s[i] = zero
	}
}

// Make returns n zero elements, touched (Touch).
func Make[T any](n int) []T {
	s := make([]T, n)
	Touch(s)
	return s
}
