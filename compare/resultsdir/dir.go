package resultsdir

import (
	"bytes"
	"encoding/json"
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

// The files of a results folder besides the report's (report.Owns), and
// the two that a writer keeps in it only while it writes.
const (
	SummaryFile = "summary.json"
	PerfFile    = "perf.json"
	ReadmeFile  = "README.md" // cloudflare's page
	LockFile    = ".ratebench.lock"
	StagePrefix = ".ratebench-new-"
)

// Dir is a results folder held by one writer: locked against every other
// ratebench that writes into it, with a staging folder inside where the
// writer writes its files. Commit moves them into place as one set; Close
// drops whatever was not committed.
type Dir struct {
	dir     string
	stage   string
	lock    *os.File
	created bool // the writer made dir: Close removes it if it stays empty
	// WriteFile writes one staged file (nil: summary.WriteFileAtomic);
	// tests fail it part way.
	WriteFile func(path string, data []byte) error
}

// Lock creates dir if need be, locks it (failing at once if another
// writer holds it) and makes its staging folder, removing those of
// writers that died before they could.
func Lock(dir string) (*Dir, error) {
	_, err := os.Stat(dir)
	created := errors.Is(err, fs.ErrNotExist)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("results folder: %w", err)
	}
	d := &Dir{dir: dir, created: created}
	if d.lock, err = lockFolder(dir); err != nil {
		d.Close()
		return nil, err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		d.Close()
		return nil, err
	}
	for _, e := range entries {
		if e.IsDir() && strings.HasPrefix(e.Name(), StagePrefix) {
			os.RemoveAll(filepath.Join(dir, e.Name())) // we hold the lock: its writer is gone
		}
	}
	if d.stage, err = os.MkdirTemp(dir, StagePrefix); err != nil {
		d.Close()
		return nil, fmt.Errorf("results folder: %w", err)
	}
	return d, nil
}

// lockFolder takes an exclusive flock on dir's lock file, creating it.
// Close removes the file while it still holds the lock, so a writer that
// opened the file before it was removed locks a file no longer in the
// folder: it sees so, and starts again on a new one.
func lockFolder(dir string) (*os.File, error) {
	path := filepath.Join(dir, LockFile)
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

// Close removes the staging folder and the lock file, unlocks, and
// removes the folder if the writer made it and nothing is left in it.
// It may be called more than once.
func (d *Dir) Close() {
	if d.stage != "" {
		os.RemoveAll(d.stage)
		d.stage = ""
	}
	if d.lock != nil {
		os.Remove(filepath.Join(d.dir, LockFile))
		d.lock.Close()
		d.lock = nil
	}
	if d.created {
		os.Remove(d.dir) // fails, as it should, unless empty
	}
}

// Name is the results folder's path.
func (d *Dir) Name() string { return d.dir }

// Path is where the writer writes name (a path relative to the folder): in
// the staging folder, until Commit.
func (d *Dir) Path(name string) string { return filepath.Join(d.stage, name) }

// Write stages the file name (a path relative to the folder).
func (d *Dir) Write(name string, data []byte) error {
	w := d.WriteFile
	if w == nil {
		w = summary.WriteFileAtomic
	}
	p := d.Path(name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return w(p, data)
}

// WriteSummary stages summary.json and, if perf is not nil, perf.json.
func (d *Dir) WriteSummary(s *summary.Summary, perf *summary.Perf) error {
	data, err := s.Marshal()
	if err != nil {
		return fmt.Errorf("%s: %w", filepath.Join(d.dir, SummaryFile), err)
	}
	if err := d.Write(SummaryFile, data); err != nil {
		return err
	}
	if perf == nil {
		return nil
	}
	if data, err = perf.Marshal(); err != nil {
		return fmt.Errorf("%s: %w", filepath.Join(d.dir, PerfFile), err)
	}
	return d.Write(PerfFile, data)
}

// WriteReport stages the report of s (see report.Write), with the live
// replay the folder holds, if any.
func (d *Dir) WriteReport(s *summary.Summary, opt report.Options) error {
	if opt.WriteFile == nil {
		opt.WriteFile = d.WriteFile
	}
	if opt.Live == nil {
		live, err := report.ReadLive(d.dir)
		if err != nil {
			return err
		}
		opt.Live = live
	}
	return report.Write(d.stage, s, opt)
}

// LiveMarkdownFile is a live replay's result as Markdown, beside
// report.LiveFile.
const LiveMarkdownFile = "live.md"

// WriteLive stages a live replay's result: live.json and live.md.
func (d *Dir) WriteLive(res *summary.Live) error {
	data, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return err
	}
	if err := d.Write(report.LiveFile, append(data, '\n')); err != nil {
		return err
	}
	var b bytes.Buffer
	if err := report.LiveMarkdown(&b, res); err != nil {
		return err
	}
	return d.Write(LiveMarkdownFile, b.Bytes())
}

// OwnsLive tells the files a live replay owns in a results folder.
func OwnsLive(rel string) bool { return rel == report.LiveFile || rel == LiveMarkdownFile }

// OwnsCompare tells the files a compare or a merge owns in a results
// folder: its summary, perf record and report.
func OwnsCompare(rel string) bool {
	return rel == SummaryFile || rel == PerfFile || report.Owns(rel)
}

// Commit moves every staged file into place and removes the files that
// owns claims and the writer did not write, so that the folder holds one
// run's set and nothing of an earlier one. A report is taken away first
// and put back last: whatever stops the commit part way, no report is
// left beside a summary that is not its own.
func (d *Dir) Commit(owns func(rel string) bool) error {
	var staged []string
	err := filepath.WalkDir(d.stage, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		rel, err := filepath.Rel(d.stage, p)
		staged = append(staged, rel)
		return err
	})
	if err != nil {
		return err
	}
	var docs []string // the report's documents, if the writer owns them
	for _, doc := range []string{report.MarkdownFile, report.HTMLFile} {
		if !owns(doc) {
			continue
		}
		docs = append(docs, doc)
		if err := removeIfThere(filepath.Join(d.dir, doc)); err != nil {
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
		if err := d.move(rel); err != nil {
			return err
		}
	}
	if err := d.removeStale(isStaged, owns); err != nil {
		return err
	}
	for _, rel := range docs {
		if isStaged[rel] {
			if err := d.move(rel); err != nil {
				return err
			}
		}
	}
	return nil
}

// move renames the staged rel into place.
func (d *Dir) move(rel string) error {
	dst := filepath.Join(d.dir, rel)
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	return os.Rename(filepath.Join(d.stage, rel), dst)
}

// removeStale removes the files owns claims in the folder and in plots/
// that are not among the staged ones, then plots/ itself if that leaves
// it empty.
func (d *Dir) removeStale(staged map[string]bool, owns func(rel string) bool) error {
	for _, sub := range []string{".", report.PlotsDir} {
		entries, err := os.ReadDir(filepath.Join(d.dir, sub))
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
			if err := os.Remove(filepath.Join(d.dir, rel)); err != nil {
				return err
			}
		}
	}
	os.Remove(filepath.Join(d.dir, report.PlotsDir)) // only if empty
	return nil
}

func removeIfThere(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}
