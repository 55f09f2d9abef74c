package algorithms

// WindowPool holds WindowSums by a 32-bit handle, for per-key state that
// most keys never need (a log's keys that outgrow their inline ring, a
// run's disagreements with the reference): a key keeps the handle, 4 bytes
// beside its other state (0: none), rather than a pointer in a per-key
// slice of its own. The windows sit side by side in chunks of poolChunk,
// which never move: reaching a window from its handle reads the chunk's
// place in a short table and then the window, where a table of pointers
// to windows of their own cost a cache miss more. Handles freed are given
// to the next window. The zero WindowPool is empty.
type WindowPool struct {
	chunks [][]WindowSum // window h is chunks[(h-1)>>poolShift][(h-1)&poolMask]
	n      int           // handles made
	free   []uint32      // the handles freed
}

// poolShift sets the windows of a chunk: 1<<poolShift.
const (
	poolShift = 10
	poolMask  = 1<<poolShift - 1
)

// New returns the handle of a new, empty window, and the window.
func (p *WindowPool) New() (uint32, *WindowSum) {
	if k := len(p.free); k > 0 {
		h := p.free[k-1]
		p.free = p.free[:k-1]
		return h, p.At(h) // emptied by Free
	}
	if p.n == len(p.chunks)<<poolShift {
		p.chunks = append(p.chunks, make([]WindowSum, 1<<poolShift))
	}
	p.n++
	return uint32(p.n), p.At(uint32(p.n))
}

// At returns the window of handle h, which must be in use (not 0).
func (p *WindowPool) At(h uint32) *WindowSum {
	i := h - 1
	return &p.chunks[i>>poolShift][i&poolMask]
}

// Free drops the window of handle h (not 0), its rings with it, and the
// next New may return its handle.
func (p *WindowPool) Free(h uint32) {
	*p.At(h) = WindowSum{}
	p.free = append(p.free, h)
}

// Len returns the number of windows in use.
func (p *WindowPool) Len() int { return p.n - len(p.free) }
