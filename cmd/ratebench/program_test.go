package main

import "testing"

// The terminal names the program as it was invoked, as typed; a binary of
// go run, in the build cache's temporary folder, is called ratebench.
func TestProgramName(t *testing.T) {
	for arg0, want := range map[string]string{
		"bin/ratebench": "bin/ratebench", "./ratebench": "./ratebench", "ratebench": "ratebench", "/opt/rb/bin/ratebench": "/opt/rb/bin/ratebench",
		"": "ratebench", "/tmp/go-build123456/b001/exe/ratebench": "ratebench",
	} {
		if got := programName(arg0); got != want {
			t.Errorf("programName(%q) = %q, want %q", arg0, got, want)
		}
	}
}
