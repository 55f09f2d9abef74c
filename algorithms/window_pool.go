package algorithms

// WindowPool holds WindowSums by a 32-bit handle, for per-key state that
// most keys never need (a log's keys that outgrow their inline ring, a
// run's disagreements with the reference): a key keeps the handle, 4 bytes
// beside its other state (0: none), rather than a pointer in a per-key
// slice of its own, and the pool holds one pointer per window in use.
// Handles freed are given to the next window. The zero WindowPool is empty.
type WindowPool struct {
	sums []*WindowSum // by handle-1; nil where freed
	free []uint32     // the handles freed
}

// New returns the handle of a new, empty window, and the window.
func (p *WindowPool) New() (uint32, *WindowSum) {
	w := &WindowSum{}
	if n := len(p.free); n > 0 {
		h := p.free[n-1]
		p.free = p.free[:n-1]
		p.sums[h-1] = w
		return h, w
	}
	p.sums = append(p.sums, w)
	return uint32(len(p.sums)), w
}

// At returns the window of handle h, which must be in use (not 0).
func (p *WindowPool) At(h uint32) *WindowSum { return p.sums[h-1] }

// Free drops the window of handle h (not 0), whose handle the next New may
// return.
func (p *WindowPool) Free(h uint32) {
	p.sums[h-1] = nil
	p.free = append(p.free, h)
}

// Len returns the number of windows in use.
func (p *WindowPool) Len() int { return len(p.sums) - len(p.free) }
