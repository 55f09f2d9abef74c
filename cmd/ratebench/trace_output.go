package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"

	"ratebench/traces"
)

// output is a trace being written that is put in place only once whole:
// commit puts it in OUT's place, abort leaves OUT as it was.
type output interface {
	traces.Writer
	commit() error
	abort()
}

// datasetOutput is a dataset being written (traces.DatasetWriter, which
// writes beside OUT and puts it in place at Close).
type datasetOutput struct{ *traces.DatasetWriter }

// createDatasetOutput starts writing the dataset folder out, of the given
// number of parts.
func createDatasetOutput(out string, partitions int) (*datasetOutput, error) {
	w, err := traces.CreateDataset(out, partitions)
	if err != nil {
		return nil, err
	}
	return &datasetOutput{w}, nil
}

func (o *datasetOutput) commit() error { return o.Close() }
func (o *datasetOutput) abort()        { o.Abort() }

// traceOutput is a trace file being written: under a temporary name in a
// folder of its own beside OUT, which keeps OUT's name (its extension says
// the format and the compression). commit puts it in OUT's place only once
// every record is written; abort leaves OUT as it was. A symbolic link as
// OUT is written through: its target is replaced, and keeps its
// permissions.
type traceOutput struct {
	traces.Writer
	out, target, tmpDir, tmp string
}

// createTraceOutput starts writing the trace file out in format f.
func createTraceOutput(out string, f traces.Format) (*traceOutput, error) {
	o := &traceOutput{out: out, target: out}
	if t, err := filepath.EvalSymlinks(out); err == nil {
		o.target = t
	}
	var err error
	if o.tmpDir, err = os.MkdirTemp(filepath.Dir(o.target), "."+filepath.Base(o.target)+".tmp"); err != nil {
		return nil, err
	}
	o.tmp = filepath.Join(o.tmpDir, filepath.Base(o.target))
	if o.Writer, err = traces.Create(o.tmp, f); err != nil {
		os.RemoveAll(o.tmpDir)
		return nil, errors.New(strings.ReplaceAll(err.Error(), o.tmp, out))
	}
	return o, nil
}

// commit finishes the file and puts it in OUT's place.
func (o *traceOutput) commit() error {
	defer os.RemoveAll(o.tmpDir)
	if err := o.Writer.Close(); err != nil {
		return errors.New(strings.ReplaceAll(err.Error(), o.tmp, o.out))
	}
	if fi, err := os.Stat(o.target); err == nil {
		os.Chmod(o.tmp, fi.Mode().Perm())
	}
	return os.Rename(o.tmp, o.target)
}

// abort drops what was written; OUT is left as it was.
func (o *traceOutput) abort() {
	o.Writer.Close()
	os.RemoveAll(o.tmpDir)
}

// errStopped is what a traceOutput's Write returns once its stop channel
// is closed (a signal).
var errStopped = errors.New("interrupted")

// stopOn makes Write fail with errStopped once stop is closed, checked
// every 4096 records (and WriteBatch, at every batch), so that a generator
// writing into o ends soon after a signal.
func (o *traceOutput) stopOn(stop <-chan struct{}) traces.Writer {
	return &stoppableWriter{Writer: o.Writer, stop: stop}
}

type stoppableWriter struct {
	traces.Writer
	stop <-chan struct{}
	n    int
}

func (w *stoppableWriter) Write(r traces.Request) error {
	if w.n++; w.n&4095 == 0 {
		select {
		case <-w.stop:
			return errStopped
		default:
		}
	}
	return w.Writer.Write(r)
}

func (w *stoppableWriter) WriteBatch(b *traces.Batch) (int, error) {
	select {
	case <-w.stop:
		return 0, errStopped
	default:
	}
	return traces.WriteBatch(w.Writer, b)
}
