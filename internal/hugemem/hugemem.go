// Package hugemem hands out pointer-free memory for large per-key tables
// in regions the operating system may back with huge pages.
//
// A replay's per-key state grows to hundreds of megabytes, touched a key
// at a time in no order. Backed by 4 KiB pages, every new page costs a
// fault (on the virtual machines measured here, about 9 µs each: a
// quarter of a second per 100 MB) and a TLB entry; in regions advised for
// transparent huge pages (Linux's MADV_HUGEPAGE) a fault brings 2 MiB.
// The Go heap is not advised, so an Arena maps regions of its own,
// outside the heap, and carves the tables from them.
//
// The memory holds no Go pointers (the garbage collector does not scan
// it) and lives until Free. Where regions cannot be mapped (another
// system, or a failing mmap), an Arena falls back to the Go heap, with
// the same results.
package hugemem

import (
	"ratebench/internal/slicesx"
	"unsafe"
)

// regionBytes is the size of the regions an Arena maps (more for a larger
// request): large enough that carving wastes at most the untouched tail
// of the last one, which holds no memory until it is touched.
const regionBytes = 64 << 20

// hugePage is the size of a huge page, to which regions are aligned.
const hugePage = 2 << 20

// Arena carves zeroed []uint64 from regions it maps. The zero Arena is
// ready to use; it is not safe for concurrent use.
type Arena struct {
	regions [][]byte // mapped, to unmap on Free
	free    []byte   // the rest of the last region, not yet handed out
}

// Words returns n zeroed words, aligned to 64 bytes (a cache line) when
// they come from a region.
func (a *Arena) Words(n int) []uint64 {
	if n <= 0 {
		return nil
	}
	size := (8*n + 63) &^ 63
	if size > len(a.free) {
		r := mapRegion(max(regionBytes, (size+hugePage-1)&^(hugePage-1)))
		if r == nil {
			return make([]uint64, n)
		}
		a.regions = append(a.regions, r)
		a.free = r
	}
	w := unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(a.free))), n)
	a.free = a.free[size:]
	slicesx.Touch(w) // mapped writable now: a read first would map the zero page, and the write after it fault again
	return w[:n:n]
}

// Mapped returns the bytes of the regions mapped (virtual: a region holds
// memory only where it was touched).
func (a *Arena) Mapped() int {
	n := 0
	for _, r := range a.regions {
		n += len(r)
	}
	return n
}

// Free unmaps every region: no slice Words returned may be used after it.
func (a *Arena) Free() {
	for _, r := range a.regions {
		unmapRegion(r)
	}
	a.regions, a.free = nil, nil
}
