package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"ratebench/report"
	"ratebench/summary"
)

// runsDir is where a run writes its results when no -o says where:
// results/runs/<name>/, a folder git ignores, so that a run never touches
// the committed reference results (results/<scenario>/,
// results/cloudflare/), which only make results and make cloudflare
// write, naming them with -o.
const runsDir = "results/runs"

// The files of a results folder besides the report's (report.Owns), and
// the two that a run keeps in it only while it runs.
const (
	summaryFile = "summary.json"
	perfFile    = "perf.json"
	readmeFile  = "README.md" // cloudflare's; never removed as stale
	lockFile    = ".ratebench.lock"
	stagePrefix = ".ratebench-new-"
)

// resultsDir is a results folder held by one run: locked against every
// other ratebench that writes into it, with a staging folder inside where
// the run writes its files. commit moves them into place as one set, only
// once all are written; close drops whatever was not committed, and leaves
// the folder as it was, lock file and all gone.
type resultsDir struct {
	dir     string
	stage   string
	lock    *os.File
	created bool // the run made dir: close removes it if it stays empty
	// writeFile writes one staged file (nil: summary.WriteFileAtomic).
	writeFile func(path string, data []byte) error
}

// lockResults creates dir if need be, locks it (failing at once if another
// run holds it) and makes its staging folder, removing those of runs that
// died before they could.
func lockResults(dir string) (*resultsDir, error) {
	_, err := os.Stat(dir)
	created := errors.Is(err, fs.ErrNotExist)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("results folder: %w", err)
	}
	rd := &resultsDir{dir: dir, created: created}
	if rd.lock, err = lockFolder(dir); err != nil {
		rd.close()
		return nil, err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		rd.close()
		return nil, err
	}
	for _, e := range entries {
		if e.IsDir() && strings.HasPrefix(e.Name(), stagePrefix) {
			os.RemoveAll(filepath.Join(dir, e.Name())) // we hold the lock: its run is gone
		}
	}
	if rd.stage, err = os.MkdirTemp(dir, stagePrefix); err != nil {
		rd.close()
		return nil, fmt.Errorf("results folder: %w", err)
	}
	return rd, nil
}

// lockFolder takes an exclusive flock on dir's lock file, creating it.
// close removes the file while it still holds the lock, so a run that
// opened the file before it was removed locks a file no longer in the
// folder: it sees so, and starts again on a new one.
func lockFolder(dir string) (*os.File, error) {
	path := filepath.Join(dir, lockFile)
	for {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			return nil, fmt.Errorf("cannot write into the results folder %s: %w", dir, err)
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			f.Close()
			if errors.Is(err, syscall.EWOULDBLOCK) {
				holder := "another ratebench"
				if b, _ := os.ReadFile(path); len(b) > 0 {
					if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
						holder = fmt.Sprintf("another ratebench (process %d)", pid)
					}
				}
				return nil, fmt.Errorf("%s is in use: %s is writing into it; wait for it to finish, or write elsewhere with -o", dir, holder)
			}
			return nil, fmt.Errorf("locking %s: %w", path, err)
		}
		fi, err1 := f.Stat()
		pi, err2 := os.Stat(path)
		if err1 == nil && err2 == nil && os.SameFile(fi, pi) {
			f.Truncate(0)
			f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
			return f, nil
		}
		f.Close() // removed (and perhaps made anew) since we opened it
	}
}

// close removes the staging folder and the lock file, unlocks, and
// removes the folder if the run made it and wrote nothing in it.
func (rd *resultsDir) close() {
	if rd.stage != "" {
		os.RemoveAll(rd.stage)
		rd.stage = ""
	}
	if rd.lock != nil {
		os.Remove(filepath.Join(rd.dir, lockFile))
		rd.lock.Close()
		rd.lock = nil
	}
	if rd.created {
		os.Remove(rd.dir) // fails, as it should, unless empty
	}
}

// path is where the run writes name (a path relative to the folder): in
// the staging folder, until commit.
func (rd *resultsDir) path(name string) string { return filepath.Join(rd.stage, name) }

// write stages the file name.
func (rd *resultsDir) write(name string, data []byte) error {
	w := rd.writeFile
	if w == nil {
		w = summary.WriteFileAtomic
	}
	return w(rd.path(name), data)
}

// writeSummary stages summary.json and, if perf is not nil, perf.json.
func (rd *resultsDir) writeSummary(s *summary.Summary, perf *summary.Perf) error {
	data, err := s.Marshal()
	if err != nil {
		return fmt.Errorf("%s: %w", filepath.Join(rd.dir, summaryFile), err)
	}
	if err := rd.write(summaryFile, data); err != nil {
		return err
	}
	if perf == nil {
		return nil
	}
	if data, err = perf.Marshal(); err != nil {
		return fmt.Errorf("%s: %w", filepath.Join(rd.dir, perfFile), err)
	}
	return rd.write(perfFile, data)
}

// writeReport stages the report of s (see report.Write), with the live
// replay the folder holds, if any.
func (rd *resultsDir) writeReport(s *summary.Summary, opt report.Options) error {
	if opt.WriteFile == nil {
		opt.WriteFile = rd.writeFile
	}
	if opt.Live == nil {
		live, err := report.ReadLive(rd.dir)
		if err != nil {
			return err
		}
		opt.Live = live
	}
	return report.Write(rd.stage, s, opt)
}

// ownsAll tells the files a run of compare or merge owns in a results
// folder: its summary, perf record and report. A file of these the run
// does not write is stale, and commit removes it.
func ownsAll(rel string) bool {
	return rel == summaryFile || rel == perfFile || report.Owns(rel)
}

// commit moves every staged file into place and removes the files that
// owns claims and the run did not write, so that the folder holds one
// run's set and nothing of an earlier one. A report is taken away first
// and put back last: whatever stops the commit part way, no report is
// left beside a summary that is not its own.
func (rd *resultsDir) commit(owns func(rel string) bool) error {
	var staged []string
	err := filepath.WalkDir(rd.stage, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(rd.stage, p)
		staged = append(staged, rel)
		return err
	})
	if err != nil {
		return err
	}
	docs := []string{report.MarkdownFile, report.HTMLFile}
	for _, d := range docs {
		if err := removeIfThere(filepath.Join(rd.dir, d)); err != nil {
			return err
		}
	}
	// Everything but the report's documents: the data first, then the
	// plots (deeper paths after).
	slices.SortFunc(staged, func(a, b string) int {
		sep := string(filepath.Separator)
		if da, db := strings.Count(a, sep), strings.Count(b, sep); da != db {
			return da - db
		}
		return strings.Compare(a, b)
	})
	isStaged := map[string]bool{}
	for _, rel := range staged {
		isStaged[rel] = true
		if slices.Contains(docs, rel) {
			continue
		}
		if err := rd.move(rel); err != nil {
			return err
		}
	}
	if err := rd.removeStale(isStaged, owns); err != nil {
		return err
	}
	for _, rel := range docs {
		if isStaged[rel] {
			if err := rd.move(rel); err != nil {
				return err
			}
		}
	}
	return nil
}

// move renames the staged rel into place.
func (rd *resultsDir) move(rel string) error {
	dst := filepath.Join(rd.dir, rel)
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	return os.Rename(filepath.Join(rd.stage, rel), dst)
}

// removeStale removes the files owns claims in the folder and in plots/
// that are not among the staged ones, then plots/ itself if that leaves
// it empty.
func (rd *resultsDir) removeStale(staged map[string]bool, owns func(rel string) bool) error {
	for _, sub := range []string{".", report.PlotsDir} {
		entries, err := os.ReadDir(filepath.Join(rd.dir, sub))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		for _, e := range entries {
			rel := filepath.Join(sub, e.Name())
			if e.IsDir() || !owns(rel) || staged[rel] {
				continue
			}
			if err := os.Remove(filepath.Join(rd.dir, rel)); err != nil {
				return err
			}
		}
	}
	os.Remove(filepath.Join(rd.dir, report.PlotsDir)) // only if empty
	return nil
}

func removeIfThere(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}
