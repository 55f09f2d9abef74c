package prefetch

//go:noescape
func line(addr uintptr)
