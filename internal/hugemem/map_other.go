//go:build !linux

package hugemem

// mapRegion maps nothing on other systems: the arena uses the Go heap.
func mapRegion(int) []byte { return nil }

func unmapRegion([]byte) {}
