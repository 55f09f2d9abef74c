package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// summaryPath is the summary a results path given to a command that only
// reads it (check, diff, merge's inputs) names: a results folder's
// summary.json, or the file itself, whatever its name. A folder without a
// summary.json is an error naming the folder.
func summaryPath(path string) (string, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	if !fi.IsDir() {
		return path, nil
	}
	p := filepath.Join(path, summaryFile)
	if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("%s holds no %s: give a results folder or a summary file", path, summaryFile)
	} else if err != nil {
		return "", err
	}
	return p, nil
}

// resultsFolder is the results folder a path given to a command that
// writes beside the summary (report) names: the folder itself, or the
// folder of a file named summary.json. Any other file is refused by name
// (a usage error): the command would read and write the folder's
// summary.json, not the file given.
func resultsFolder(cmd, path string) (string, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	if fi.IsDir() {
		return path, nil
	}
	if filepath.Base(path) != summaryFile {
		return "", usageError{fmt.Sprintf("%s: %s is not a results folder or its %s: %s reads the folder's %s and writes beside it; give the folder",
			cmd, path, summaryFile, cmd, summaryFile)}
	}
	return filepath.Dir(path), nil
}
