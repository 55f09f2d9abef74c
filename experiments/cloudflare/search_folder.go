package cloudflare

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"ratebench/compare"
	"ratebench/compare/resultsdir"
	"ratebench/internal/escape"
	"ratebench/report"
	"ratebench/summary"
)

// The search's folder: SearchDir is its name inside the experiment's
// folder, whose page gives its answer; inside it, checkDir holds the
// closest point rerun with more sources, if it was (a search of one point,
// shown beside the point), and fullDir a folder for each of the closest
// points replayed at full scale (ratebench cloudflare -full: full/1/ the
// closest, full/2/ the next, ...), each a search of one point.
const (
	SearchDir = "search"
	checkDir  = "check"
	fullDir   = "full"
)

// PartialFile holds, in a search's folder, the points an interrupted
// search finished: a search of the same command resumes from them and
// replays only the others; the search that completes removes the file.
// The folder's summary.json and page are left as they were until then.
const PartialFile = "search-partial.json"

// ownsSearch tells the files a search owns in its folder: its summary,
// page, plots (the SVGs beside them) and the points of an interrupted
// run; never the check/ or full/ folders inside, other searches'.
func ownsSearch(rel string) bool {
	return rel == resultsdir.SummaryFile || rel == resultsdir.ReadmeFile || rel == PartialFile ||
		filepath.Dir(rel) == "." && filepath.Ext(rel) == ".svg"
}

// Search is one search of a grid into a results folder.
type Search struct {
	Dir     string
	Grid    Grid
	Pop     Population
	Workers int    // points replayed side by side
	Flags   []Flag // the flags given that change the figures (see searchCommand)
	Force   bool   // write over another kind of run's results
	// Stdout says where the search wrote, Stderr what it will cost and
	// how far it has got.
	Stdout, Stderr io.Writer
	// Replayed, if not nil, is called once the points are replayed, before
	// the folder is written (the command lets a signal end the process
	// again).
	Replayed func()
	// WriteFile writes each staged file (nil: summary.WriteFileAtomic);
	// tests fail it part way.
	WriteFile func(path string, data []byte) error
}

// Run locks the folder, refuses one that holds another kind of run's
// results (unless Force), says what the search will cost, replays its
// points with their progress, and writes the summary, the plot and the
// page as one set. When ctx is cancelled it keeps the points done in
// PartialFile and leaves the rest of the folder as it was.
func (j Search) Run(ctx context.Context) error {
	rd, err := resultsdir.Lock(j.Dir)
	if err != nil {
		return err
	}
	defer rd.Close()
	rd.WriteFile = j.WriteFile
	if err := resultsdir.CheckKind(j.Dir, resultsdir.KindSearch, j.Force); err != nil {
		return err
	}
	command := searchCommand(j.Flags)
	done, err := j.readPartial(command)
	if err != nil {
		return err
	}
	total := j.Grid.Size()
	fmt.Fprintf(j.Stderr, "searching %d points into %s, each %d requests from %d sources: %d requests in all, %d points at a time (interrupt to stop, keeping the points done)\n",
		total, escape.Visible(j.Dir), j.Pop.Requests, j.Pop.Sources, int64(total)*j.Pop.Requests, max(1, j.Workers))
	if len(done) > 0 {
		fmt.Fprintf(j.Stderr, "resuming from %s: its points of this grid are not replayed again\n", escape.Visible(filepath.Join(j.Dir, PartialFile)))
	}
	began, resumed := time.Now(), -1
	progress := func(n, total int) {
		if resumed < 0 {
			resumed = n - 1 // the points taken from done
		}
		elapsed := time.Since(began)
		left := time.Duration(float64(elapsed) / float64(n-resumed) * float64(total-n))
		fmt.Fprintf(j.Stderr, "search: %d of %d points done (%s, about %s left)\n", n, total, elapsed.Round(time.Second), left.Round(time.Second))
	}
	pts, err := ReplayGrid(ctx, j.Grid, j.Pop, Options{Workers: j.Workers, Done: done, Progress: progress})
	if j.Replayed != nil {
		j.Replayed()
	}
	s := &summary.CloudflareSearch{Command: command, Requests: j.Pop.Requests, Sources: j.Pop.Sources,
		Scale: float64(summary.CloudflareSources) / float64(j.Pop.Sources), Count: string(compare.CountAll), Points: pts}
	if err != nil {
		if !errors.Is(err, context.Canceled) {
			return err
		}
		return j.keepPartial(rd, s, total)
	}
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	if err := rd.Write(resultsdir.SummaryFile, append(data, '\n')); err != nil {
		return err
	}
	if err := stageSearchPages(rd, s); err != nil {
		return err
	}
	if err := rd.Commit(ownsSearch); err != nil {
		return err
	}
	fmt.Fprintf(j.Stdout, "wrote %s (%d points)\n", escape.Visible(filepath.Join(j.Dir, resultsdir.SummaryFile)), len(s.Points))
	return nil
}

// keepPartial writes the points done by an interrupted search into
// PartialFile, touching nothing else of the folder.
func (j Search) keepPartial(rd *resultsdir.Dir, s *summary.CloudflareSearch, total int) error {
	path := filepath.Join(j.Dir, PartialFile)
	if len(s.Points) > 0 {
		data, err := json.MarshalIndent(s, "", "  ")
		if err != nil {
			return err
		}
		if err := rd.Write(PartialFile, append(data, '\n')); err != nil {
			return err
		}
		if err := rd.Commit(func(rel string) bool { return rel == PartialFile }); err != nil {
			return err
		}
	}
	return fmt.Errorf("interrupted after %d of %d points: %s keeps the points done; run the same command again to replay only the others",
		len(s.Points), total, escape.Visible(path))
}

// readPartial returns the points of the folder's PartialFile if an
// interrupted run of the same command, on the same population, wrote it;
// else none.
func (j Search) readPartial(command string) ([]summary.SearchPoint, error) {
	path := filepath.Join(j.Dir, PartialFile)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var s summary.CloudflareSearch
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("%s: %v (remove it to search from the start)", escape.Visible(path), err)
	}
	if s.Command != command || s.Requests != j.Pop.Requests || s.Sources != j.Pop.Sources {
		return nil, nil // another search's: replaced once this one ends
	}
	return s.Points, nil
}

// stageSearchPages stages the search's plot and README.md in rd, from its
// summary alone.
func stageSearchPages(rd *resultsdir.Dir, s *summary.CloudflareSearch) error {
	files, err := report.CloudflareSearchPlots(s)
	if err != nil {
		return err
	}
	for _, f := range files {
		if err := rd.Write(f.Name, f.Data); err != nil {
			return err
		}
	}
	var buf bytes.Buffer
	if err := report.CloudflareSearchREADME(&buf, s, ""); err != nil {
		return err
	}
	return rd.Write(resultsdir.ReadmeFile, buf.Bytes())
}

// ReadSearch reads the search in dir, with the closest point's rerun in
// its check/ folder and the points replayed at full scale in the folders
// of its full/ folder (full/1/, full/2/, ..., in the order of their names),
// if they are there; nil if dir holds no summary.
func ReadSearch(dir string) (*summary.CloudflareSearch, error) {
	s, err := readSearchFile(dir)
	if s == nil || err != nil {
		return nil, err
	}
	if s.Check, err = readSearchFile(filepath.Join(dir, checkDir)); err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(filepath.Join(dir, fullDir))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	for _, e := range entries { // sorted by name
		if !e.IsDir() {
			continue
		}
		f, err := readSearchFile(filepath.Join(dir, fullDir, e.Name()))
		if err != nil {
			return nil, err
		}
		if f != nil {
			s.Full = append(s.Full, f)
		}
	}
	return s, nil
}

// readSearchFile reads the search summary in dir alone; nil if dir holds
// no summary.
func readSearchFile(dir string) (*summary.CloudflareSearch, error) {
	data, err := os.ReadFile(filepath.Join(dir, resultsdir.SummaryFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var s summary.CloudflareSearch
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("%s: %v", filepath.Join(dir, resultsdir.SummaryFile), err)
	}
	if kind, _ := resultsdir.KindOf(dir); kind != resultsdir.KindSearch {
		return nil, fmt.Errorf("%s is not the summary of a search: it holds no points", escape.Visible(filepath.Join(dir, resultsdir.SummaryFile)))
	}
	return &s, nil
}
