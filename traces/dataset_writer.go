package traces

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// DatasetWriter writes a dataset (see DatasetFile): each request goes to
// the part of its key, in the order written. It writes into a temporary
// folder beside the dataset's and puts it in place only at Close, once
// every part is complete and the manifest written: an error, or Abort,
// leaves what was there before as it was. A dataset folder that exists is
// replaced; any other folder that is not empty is refused at
// CreateDataset.
//
// The parts' row groups are smaller than a single Parquet file's, so that
// the rows buffered for every part together stay about one file's
// (parquetRowGroupRows): memory does not grow with the trace.
type DatasetWriter struct {
	dir, tmp string
	parts    []*ParquetWriter
	files    []*os.File
	records  []int64
	err      error
	done     bool
}

// CreateDataset starts writing a dataset of the given number of parts
// (1 to MaxPartitions) in the folder dir.
func CreateDataset(dir string, partitions int) (*DatasetWriter, error) {
	if partitions < 1 || partitions > MaxPartitions {
		return nil, fmt.Errorf("%s: %d partitions, want 1 to %d", dir, partitions, MaxPartitions)
	}
	if err := replaceable(dir); err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(filepath.Clean(dir)), "."+filepath.Base(filepath.Clean(dir))+".tmp")
	if err != nil {
		return nil, err
	}
	w := &DatasetWriter{dir: dir, tmp: tmp, records: make([]int64, partitions)}
	rows := max(parquetRowGroupRows/partitions, 1<<14)
	dict := max(parquetDictMaxBytes/partitions, 1<<20)
	for j := range partitions {
		f, err := os.Create(filepath.Join(tmp, partFile(j)))
		if err != nil {
			w.Abort()
			return nil, err
		}
		p := newParquetWriter(f, f)
		p.enc.groupRows, p.enc.dictMax = rows, dict
		w.files, w.parts = append(w.files, f), append(w.parts, p)
	}
	return w, nil
}

// replaceable checks that dir can be written as a dataset: it does not
// exist, or is an empty folder, or a dataset.
func replaceable(dir string) error {
	fi, err := os.Stat(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s exists and is not a folder: a dataset is written as a folder", dir)
	}
	if IsDataset(dir) {
		return nil
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	if len(ents) > 0 {
		return fmt.Errorf("%s is a folder that is not a dataset (it has no %s) and not empty: refusing to replace it", dir, DatasetFile)
	}
	return nil
}

// Write appends r to the part of its key.
func (w *DatasetWriter) Write(r Request) error {
	if w.err != nil {
		return w.err
	}
	if w.done {
		return errWriterClosed
	}
	j := int(KeyHash(r.Key) % uint64(len(w.parts)))
	if err := w.parts[j].Write(r); err != nil {
		w.err = fmt.Errorf("%s: %w", partFile(j), err)
		return w.err
	}
	w.records[j]++
	return nil
}

// Close finishes every part, writes the manifest and puts the dataset in
// place of dir (a dataset there before is removed). On error nothing is
// put in place.
func (w *DatasetWriter) Close() error {
	if w.done {
		return w.err
	}
	if w.err != nil {
		w.Abort()
		return w.err
	}
	w.done = true
	m := Manifest{Schema: DatasetSchema, Hash: DatasetHash, Partitions: len(w.parts)}
	for j, p := range w.parts {
		if err := p.Close(); err != nil {
			return w.fail(fmt.Errorf("%s: %w", partFile(j), err))
		}
		m.Parts = append(m.Parts, DatasetPart{File: partFile(j), Records: w.records[j]})
	}
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return w.fail(err)
	}
	if err := os.WriteFile(filepath.Join(w.tmp, DatasetFile), append(data, '\n'), 0o644); err != nil {
		return w.fail(err)
	}
	if err := os.Chmod(w.tmp, 0o755); err != nil {
		return w.fail(err)
	}
	return w.fail(w.putInPlace())
}

// putInPlace renames the written folder to dir, moving a dataset there
// aside first and removing it after.
func (w *DatasetWriter) putInPlace() error {
	if err := replaceable(w.dir); err != nil { // it may have changed while writing
		return err
	}
	old := ""
	if _, err := os.Stat(w.dir); err == nil {
		old = w.tmp + ".old"
		if err := os.Rename(w.dir, old); err != nil {
			return err
		}
	}
	if err := os.Rename(w.tmp, w.dir); err != nil {
		if old != "" {
			os.Rename(old, w.dir)
		}
		return err
	}
	w.tmp = ""
	if old != "" {
		return os.RemoveAll(old)
	}
	return nil
}

// fail records err, if any, and drops what was written.
func (w *DatasetWriter) fail(err error) error {
	if err != nil {
		w.err = err
		w.Abort()
	}
	return err
}

// Abort drops what was written: dir is left as it was.
func (w *DatasetWriter) Abort() {
	w.done = true
	for j, p := range w.parts {
		p.Close()
		w.files[j].Close()
	}
	if w.tmp != "" {
		os.RemoveAll(w.tmp)
		w.tmp = ""
	}
}
