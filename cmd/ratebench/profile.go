package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
)

// startCPUProfile starts a CPU profile into path ("" does nothing) and
// returns the function that stops it.
func startCPUProfile(path string) (stop func(), err error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("-cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("-cpuprofile: %w", err)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}

// createMemProfile creates the file of a heap profile at path ("" does
// nothing) before the work it profiles, so that a path that cannot be
// written fails before the work and not after it. It returns the function
// that writes the profile, after a collection so that it shows live
// memory, and closes the file; call it once.
func createMemProfile(path string) (write func() error, err error) {
	if path == "" {
		return func() error { return nil }, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("-memprofile: %w", err)
	}
	return func() error {
		runtime.GC()
		err := pprof.WriteHeapProfile(f)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("-memprofile: %s: %w", path, err)
		}
		return nil
	}, nil
}
