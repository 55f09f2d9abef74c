package main

import (
	"path/filepath"
	"strings"

	"ratebench/summary"
)

// program is the name the commands ratebench suggests on the terminal
// call it by: as it was invoked (main sets it from os.Args[0],
// programName), so that a suggestion pasted into the same shell runs the
// same binary: bin/ratebench after make build, ratebench from the PATH.
// Tests that call run directly keep summary.Program. A report's commands
// call it summary.Program whatever binary wrote it, so that the report's
// bytes depend on its summary alone (summary/suggested.go).
var program = summary.Program

// programName is the name of the program invoked as arg0: arg0 as typed
// (a relative path stays relative, as the shell it was typed in resolves
// it), but summary.Program for none, and for a binary go run built in a
// temporary folder of the build cache, which is gone once it exits.
func programName(arg0 string) string {
	if arg0 == "" || strings.Contains(filepath.ToSlash(arg0), "/go-build") {
		return summary.Program
	}
	return arg0
}
