package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"ratebench/compare"
	"ratebench/compare/resultsdir"
	"ratebench/internal/escape"
	"ratebench/report"
	"ratebench/summary"
	"ratebench/traces"
)

// replayJob is one replay of a trace into a results folder.
type replayJob struct {
	stdout, stderr io.Writer
	eng            *compare.Engine
	r              traces.Reader
	info           summary.TraceInfo // path, format and fingerprint of the trace
	dir            string
	cpuProfile     string
	memProfile     string
	force          bool // overwrite another trace's results in dir
	report         bool // write the report beside the summary
	reportOpt      report.Options
	// readme, if not nil, gives the README.md of the results, written
	// beside the summary of a whole replay (that of a partial one has none).
	readme func(*summary.Summary, summary.Perf) ([]byte, error)
	// writeFile writes each file of the results (nil:
	// summary.WriteFileAtomic); tests fail it part way.
	writeFile func(path string, data []byte) error
	// ctx is cancelled by a signal caught before the replay began; nil for
	// none.
	ctx context.Context
	// stopSignals, if not nil, is called once the replay is over, so that
	// a signal then ends the process again.
	stopSignals func()
	// spread, if not nil, spreads the requests inside their timestamps'
	// unit before the engine (-spread).
	spread *spreading
	// place, if not nil, replays the trace again placed inside its
	// timestamps' unit when its clock is too coarse for a rule.
	place *compare.Placements
}

// run replays the trace and writes the results folder as one set:
// summary.json, perf.json and the report (or none: a report of earlier
// results is removed), printing the table and where it wrote. The folder
// is locked for the run, and everything that can be checked before the
// replay is: the folder can be written, holds no other trace's results,
// and the profiles can be created. If anything fails, the folder is left
// as it was.
func (j replayJob) run() error {
	rd, err := resultsdir.Lock(j.dir)
	if err != nil {
		return err
	}
	defer rd.Close()
	rd.WriteFile = j.writeFile
	if err := resultsdir.CheckTrace(j.dir, j.info, j.force); err != nil {
		return err
	}
	sum, perf, replayErr := j.replay()
	if j.stopSignals != nil {
		j.stopSignals()
	}
	if sum == nil {
		return replayErr
	}
	if err := rd.WriteSummary(sum, &perf); err != nil {
		return err
	}
	owns := resultsdir.OwnsCompare
	readme := j.readme != nil && replayErr == nil // not of a partial replay
	if j.readme != nil {
		owns = func(rel string) bool { return rel == resultsdir.ReadmeFile || resultsdir.OwnsCompare(rel) }
	}
	if readme {
		data, err := j.readme(sum, perf)
		if err == nil {
			err = rd.Write(resultsdir.ReadmeFile, data)
		}
		if err != nil {
			return err
		}
	}
	if j.report {
		if err := rd.WriteReport(sum, j.reportOpt); err != nil {
			return err
		}
	}
	if err := rd.Commit(owns); err != nil {
		return err
	}
	fmt.Fprintf(j.stdout, "wrote %s\n", escape.Visible(filepath.Join(j.dir, summaryFile)))
	if readme {
		fmt.Fprintf(j.stdout, "wrote %s\n", escape.Visible(filepath.Join(j.dir, resultsdir.ReadmeFile)))
	}
	if j.report {
		fmt.Fprintf(j.stdout, "wrote %s\n", escape.Visible(filepath.Join(j.dir, report.HTMLFile)))
	}
	return replayErr
}

// replay runs the engine over the trace, under the profiles, and prints
// the table. It returns the summary (nil if the replay failed), and an
// error also when it was interrupted: the summary is then partial.
func (j replayJob) replay() (*summary.Summary, summary.Perf, error) {
	stdout, eng, r, info, dir := j.stdout, j.eng, j.r, j.info, j.dir
	writeMemProfile, err := createMemProfile(j.memProfile)
	if err != nil {
		return nil, summary.Perf{}, err
	}
	stop, err := startCPUProfile(j.cpuProfile)
	if err != nil {
		writeMemProfile()
		return nil, summary.Perf{}, err
	}
	// SIGINT or SIGTERM stop the replay between two requests; what was
	// replayed is still written, marked partial.
	parent := j.ctx
	if parent == nil {
		parent = context.Background()
	}
	ctx, cancel := signal.NotifyContext(parent, os.Interrupt, syscall.SIGTERM)
	defer cancel()
	fmt.Fprintf(j.stderr, "replaying %s into %s (interrupt to stop with a partial summary)\n", escape.Visible(info.Path), escape.Visible(dir))
	var total int64
	if sized, ok := r.(interface{ NumRows() int64 }); ok {
		total = sized.NumRows()
	}
	bar := startProgress(j.stderr, total, eng.Progress)
	began := time.Now()
	err = eng.Replay(ctx, announceReading(j.spread.wrap(r), j.stderr))
	elapsed := time.Since(began)
	bar.Stop()
	stop()
	if perr := writeMemProfile(); perr != nil && err == nil {
		err = perr
	}
	interrupted := errors.Is(err, compare.ErrInterrupted)
	if err != nil && !interrupted {
		return nil, summary.Perf{}, err
	}
	info.Skipped, info.SkippedExamples = skipped(r)
	info.TSUnit, info.TSUnitFrom = timeUnit(r)
	if d := traces.DatasetOf(r); d != nil {
		info.Dataset = &summary.DatasetRead{Partitions: d.Manifest().Partitions, PartsRead: d.Parts()}
	}
	j.spread.record(&info)
	sum := eng.Summary(info)
	if err := checkNotEmpty(sum, interrupted); err != nil {
		return nil, summary.Perf{}, err
	}
	ks := statsOf(eng)
	if !interrupted && j.place != nil {
		// The recorded clock's engine goes before the placements replay,
		// so that no two engines' keys are held at once.
		eng.Release()
		eng, j.eng = nil, nil
		if sum, err = j.place.Place(ctx, sum); err != nil {
			return nil, summary.Perf{}, err
		}
		elapsed = time.Since(began)
	}
	perf := measurePerf(ks, sum, elapsed)
	if eng != nil {
		// Its heap measured, the engine's state goes before the summary
		// is written and the report drawn, so that the process's peak is
		// the larger of theirs and the replay's, not their sum.
		eng.Release()
	}
	printTable(stdout, sum, dir)
	fmt.Fprintf(stdout, "\n%d requests, %d keys in %.2fs (%.2fM requests/s)\n", sum.Trace.Requests, sum.Trace.Keys,
		elapsed.Seconds(), perf.RequestsPerSecond/1e6)
	if sum.Trace.Skipped > 0 {
		fmt.Fprintf(stdout, "skipped %d bad records (the first are listed in summary.json)\n", sum.Trace.Skipped)
	}
	printTraceNotes(j.stderr, sum.Trace, sum.Config.Rules)
	if interrupted {
		return sum, perf, fmt.Errorf("interrupted after %d requests: %s is partial", sum.Trace.Requests, escape.Visible(filepath.Join(dir, summaryFile)))
	}
	return sum, perf, nil
}

// checkNotEmpty refuses a whole replay of no request: no figure, and no
// verdict, stands on none. (A shard of a larger trace may hold none of its
// keys, and an interrupted replay may stop before the first request: their
// summaries say so, and are written.)
func checkNotEmpty(sum *summary.Summary, interrupted bool) error {
	if sum.Trace.Requests > 0 || sum.Shard != nil || interrupted {
		return nil
	}
	msg := fmt.Sprintf("%s holds no requests: nothing to compare, no summary or report written", escape.Visible(sum.Trace.Path))
	if sum.Trace.Skipped > 0 {
		msg += fmt.Sprintf(" (-skip-bad skipped its %d records, every one bad)", sum.Trace.Skipped)
	}
	return errors.New(msg)
}

// skipCounter is a reader that skips bad records (under -skip-bad) and
// counts them.
type skipCounter interface {
	Skipped() (int64, []*traces.ParseError)
}

// skipped returns the count and the first examples of what r skipped.
func skipped(r traces.Reader) (int64, []summary.SkipExample) {
	sc, ok := r.(skipCounter)
	if !ok {
		return 0, nil
	}
	n, first := sc.Skipped()
	var ex []summary.SkipExample
	for _, e := range first {
		ex = append(ex, summary.SkipExample{Line: e.Pos.Line, Row: e.Pos.Row, Reason: e.Msg})
	}
	return n, ex
}
