package hugemem

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// mapRegion maps size bytes (a multiple of hugePage) of anonymous memory
// aligned to a huge page and advised for huge pages, nil if it cannot. It
// maps a huge page more and gives back the unaligned ends (unix.MmapPtr,
// whose mappings, unlike unix.Mmap's, can be unmapped in part).
func mapRegion(size int) []byte {
	p, err := unix.MmapPtr(-1, 0, nil, uintptr(size+hugePage), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE|unix.MAP_NORESERVE)
	if err != nil {
		return nil
	}
	m := unsafe.Slice((*byte)(p), size+hugePage)
	off := int(-uintptr(p) & (hugePage - 1))
	if off > 0 {
		unmap(m[:off])
	}
	if tail := m[off+size:]; len(tail) > 0 {
		unmap(tail)
	}
	r := m[off : off+size : off+size]
	_ = unix.Madvise(r, unix.MADV_HUGEPAGE) // a hint: without it the region is backed by 4 KiB pages, as the heap is
	return r
}

func unmap(b []byte) { _ = unix.MunmapPtr(unsafe.Pointer(unsafe.SliceData(b)), uintptr(len(b))) }

func unmapRegion(r []byte) { unmap(r) }
