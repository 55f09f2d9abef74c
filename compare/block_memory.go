package compare

import (
	"runtime"

	"ratebench/internal/hugemem"
	"ratebench/internal/slicesx"
)

// heapBlockBytes is how much of a worker's block comes from the Go heap
// before its chunks come from an arena of huge pages: a small replay (a
// test, a sample, one point of a search) maps nothing.
const heapBlockBytes = 4 << 20

// blockMemory gives a worker's block its chunks: from the Go heap up to
// heapBlockBytes, then from an arena advised for huge pages, outside the
// heap, where a million keys' state costs a few hundred page faults rather
// than a quarter million (the block holds no pointers). The arena is
// unmapped when its worker is garbage: every reader of the block reaches
// it through the worker (the limiters' and metrics' PerKey point into it).
type blockMemory struct {
	heap, heapMax int // bytes taken from the Go heap, and the most it takes
	arena         *hugemem.Arena
}

// setBlockMemory makes w's block take its chunks from a blockMemory.
func setBlockMemory(w *worker) {
	m := &blockMemory{arena: &hugemem.Arena{}, heapMax: heapBlockBytes}
	if w.cfg.tuning.heapBlock != 0 {
		m.heapMax = w.cfg.tuning.heapBlock
	}
	w.blockMem = m
	w.block.SetAlloc(m.words)
	runtime.AddCleanup(w, func(a *hugemem.Arena) { a.Free() }, m.arena)
}

// words returns n zeroed words for a chunk of the block.
func (m *blockMemory) words(n int) []uint64 {
	if m.heap < m.heapMax {
		m.heap += 8 * n
		return slicesx.Make[uint64](n)
	}
	return m.arena.Words(n)
}

// Release gives back the memory of the engine's state at once, its
// workers' arenas unmapped, rather than when a collection finds it
// unreachable: a command calls it once it has the summary, so that what
// it does next (writing the summary, drawing the report) does not add
// its memory to the replay's. The engine must not be used after it.
func (e *Engine) Release() {
	for i, w := range e.workers {
		if w != nil && w.blockMem != nil {
			w.blockMem.arena.Free()
		}
		e.workers[i] = nil
	}
	e.workers = nil
}
