package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"ratebench/compare"
	"ratebench/experiments/cloudflare"
	"ratebench/internal/escape"
	"ratebench/report"
	"ratebench/summary"
	"ratebench/summary/resultsdir"
)

// searchPartialFile holds, in a search's folder, the points an interrupted
// search finished: a search of the same command resumes from them and
// replays only the others; the search that completes removes the file.
// The folder's summary.json and page are left as they were until then.
const searchPartialFile = "search-partial.json"

// ownsSearch tells the files a search owns in its folder: its summary,
// page, plots (the SVGs beside them) and the points of an interrupted
// run; never the check/ folder inside, another search's.
func ownsSearch(rel string) bool {
	return rel == summaryFile || rel == resultsdir.ReadmeFile || rel == searchPartialFile ||
		filepath.Dir(rel) == "." && filepath.Ext(rel) == ".svg"
}

// searchJob is one search of a grid into a results folder.
type searchJob struct {
	stdout, stderr io.Writer
	dir            string
	grid           cloudflare.Grid
	pop            cloudflare.Population
	workers        int
	command        string // reproduces the search
	force          bool   // write over another kind of run's results
	// writeFile writes each staged file (nil: summary.WriteFileAtomic);
	// tests fail it part way.
	writeFile func(path string, data []byte) error
}

// run locks the folder, refuses one that holds another kind of run's
// results (unless force), says what the search will cost, replays its
// points with their progress on stderr, and writes the summary, the plot
// and the page as one set. Interrupted (SIGINT, SIGTERM), it keeps the
// points done in searchPartialFile and leaves the rest of the folder as
// it was.
func (j searchJob) run() error {
	rd, err := resultsdir.Lock(j.dir)
	if err != nil {
		return err
	}
	defer rd.Close()
	rd.WriteFile = j.writeFile
	if err := resultsdir.CheckKind(j.dir, resultsdir.KindSearch, j.force); err != nil {
		return err
	}
	done, err := j.readPartial()
	if err != nil {
		return err
	}
	total := j.grid.Size()
	fmt.Fprintf(j.stderr, "searching %d points into %s, each %d requests from %d sources: %d requests in all, %d points at a time (interrupt to stop, keeping the points done)\n",
		total, escape.Visible(j.dir), j.pop.Requests, j.pop.Sources, int64(total)*j.pop.Requests, max(1, j.workers))
	if len(done) > 0 {
		fmt.Fprintf(j.stderr, "resuming from %s: its points of this grid are not replayed again\n", escape.Visible(filepath.Join(j.dir, searchPartialFile)))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	began, resumed := time.Now(), -1
	progress := func(n, total int) {
		if resumed < 0 {
			resumed = n - 1 // the points taken from done
		}
		elapsed := time.Since(began)
		left := time.Duration(float64(elapsed) / float64(n-resumed) * float64(total-n))
		fmt.Fprintf(j.stderr, "search: %d of %d points done (%s, about %s left)\n", n, total, elapsed.Round(time.Second), left.Round(time.Second))
	}
	pts, err := cloudflare.Run(ctx, j.grid, j.pop, cloudflare.Options{Workers: j.workers, Done: done, Progress: progress})
	stop()
	s := &summary.CloudflareSearch{Command: j.command, Requests: j.pop.Requests, Sources: j.pop.Sources,
		Scale: float64(cfFullSources) / float64(j.pop.Sources), Count: string(compare.CountAll), Points: pts}
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
	if err := rd.Write(summaryFile, append(data, '\n')); err != nil {
		return err
	}
	if err := stageSearchPages(rd, s); err != nil {
		return err
	}
	if err := rd.Commit(ownsSearch); err != nil {
		return err
	}
	fmt.Fprintf(j.stdout, "wrote %s (%d points)\n", escape.Visible(filepath.Join(j.dir, summaryFile)), len(s.Points))
	return nil
}

// keepPartial writes the points done by an interrupted search into
// searchPartialFile, touching nothing else of the folder.
func (j searchJob) keepPartial(rd *resultsdir.Dir, s *summary.CloudflareSearch, total int) error {
	path := filepath.Join(j.dir, searchPartialFile)
	if len(s.Points) > 0 {
		data, err := json.MarshalIndent(s, "", "  ")
		if err != nil {
			return err
		}
		if err := rd.Write(searchPartialFile, append(data, '\n')); err != nil {
			return err
		}
		if err := rd.Commit(func(rel string) bool { return rel == searchPartialFile }); err != nil {
			return err
		}
	}
	return fmt.Errorf("interrupted after %d of %d points: %s keeps the points done; run the same command again to replay only the others",
		len(s.Points), total, escape.Visible(path))
}

// readPartial returns the points of the folder's searchPartialFile if an
// interrupted run of the same command, on the same population, wrote it;
// else none.
func (j searchJob) readPartial() ([]summary.SearchPoint, error) {
	path := filepath.Join(j.dir, searchPartialFile)
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
	if s.Command != j.command || s.Requests != j.pop.Requests || s.Sources != j.pop.Sources {
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

// quotedWord is v as one shell word in single quotes (escape.ShellWord's
// quoting, which a word needing none goes without, is added): the form
// the committed search summaries record their commands in.
func quotedWord(v string) string {
	w := escape.ShellWord(v)
	if strings.HasPrefix(w, "'") || strings.HasPrefix(w, "$'") {
		return w
	}
	return "'" + w + "'"
}
