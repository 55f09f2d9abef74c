// Package prefetch asks the processor to bring a memory line into its
// caches ahead of its use, without waiting for it: a replay that knows
// which keys' state it will read next lets their cache misses overlap the
// work on the requests before them.
package prefetch

import "unsafe"

// Line prefetches the cache line holding *p (a hint: it changes no memory
// and never faults). On architectures without an implementation it does
// nothing.
func Line(p unsafe.Pointer) { line(uintptr(p)) }
