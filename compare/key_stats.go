package compare

// KeyStats tells how the replay held its keys: its workers, the most keys
// holding state at once (over all workers: idle keys are released) and
// the keys released.
func (e *Engine) KeyStats() (workers int, peakLive, released int64) {
	for _, w := range append([]*Engine{e}, e.parts...) {
		peakLive += int64(w.rel.peakLive)
		released += w.rel.released
	}
	return max(1, len(e.parts)), peakLive, released
}
