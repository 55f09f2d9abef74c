package traces

import (
	"fmt"
	"path/filepath"
)

// DatasetReader reads the parts of a dataset (see DatasetFile) as one
// trace: their requests merged by time, ties broken by part number, each
// part's in its file order. It checks what the manifest says as it reads:
// every record's key must hash to the part it is in, and every part must
// hold the records the manifest counts; either failing is an error naming
// the part's file (and the row). With Options.ShardCount it reads only the
// parts of that shard (Manifest.PartsOf).
type DatasetReader struct {
	dir     string
	m       *Manifest
	parts   []int            // the parts read, ascending
	readers []*ParquetReader // readers[i] reads part parts[i]
	read    []int64          // records read of each
	heap    []int            // the readers with a current request, by (T, part)
	cur     int              // the reader of the current request, -1 before the first
	err     error
	started bool
}

// FormatDataset is a folder of Parquet parts partitioned by key and its
// manifest (see DatasetFile), which CreateDataset writes.
const FormatDataset Format = "dataset"

func init() {
	register(&formatSpec{format: FormatDataset, rank: 100, note: "a folder convert -partitions wrote",
		openFolder: openDatasetFolder, folderOnly: true,
		refuseCreate: func(path string) error {
			return fmt.Errorf("%s: a dataset is written by CreateDataset (convert -partitions N), not Create", path)
		},
	})
}

func (*DatasetReader) traceFormat() Format { return FormatDataset }

// openDatasetFolder opens the dataset in dir, refusing a folder (or a
// file) that is none.
func openDatasetFolder(dir string, opt Options) (Reader, error) {
	if !IsDataset(dir) {
		return nil, fmt.Errorf("%s: not a dataset: it has no %s (convert -partitions N writes one)", dir, DatasetFile)
	}
	return asReader(OpenDataset(dir, opt))
}

// OpenDataset opens the dataset in dir for reading (see DatasetReader).
func OpenDataset(dir string, opt Options) (*DatasetReader, error) {
	if err := opt.check(); err != nil {
		return nil, err
	}
	m, err := ReadManifest(dir)
	if err != nil {
		return nil, err
	}
	d := &DatasetReader{dir: dir, m: m, parts: m.PartsOf(opt.ShardIndex, opt.ShardCount), cur: -1}
	for _, j := range d.parts {
		name := filepath.Join(dir, m.Parts[j].File)
		file, err := openFile(name, opt.Cancel)
		if err != nil {
			d.Close()
			return nil, err
		}
		r, err := openAt(source{r: file, name: name, file: file, closer: file}, specOf(FormatParquet), opt)
		if err != nil {
			file.Close()
			d.Close()
			return nil, err
		}
		p := r.(*ParquetReader)
		d.readers = append(d.readers, p)
		if n := p.NumRows(); n != m.Parts[j].Records {
			err := d.countError(len(d.readers)-1, n)
			d.Close()
			return nil, err
		}
	}
	d.read = make([]int64, len(d.readers))
	return d, nil
}

// countError says that reader i's part holds n records, not the
// manifest's count.
func (d *DatasetReader) countError(i int, n int64) error {
	j := d.parts[i]
	return &ParseError{Pos: Position{File: filepath.Join(d.dir, d.m.Parts[j].File)},
		Msg: fmt.Sprintf("holds %d records, %s says %d: the dataset is damaged; convert the trace again", n, DatasetFile, d.m.Parts[j].Records)}
}

// DatasetOf returns the dataset reader r is, or reorders (Reorder); nil
// when r reads no dataset.
func DatasetOf(r Reader) *DatasetReader {
	switch r := r.(type) {
	case *DatasetReader:
		return r
	case *reorderReader:
		return DatasetOf(r.in)
	}
	return nil
}

// Manifest returns the dataset's manifest.
func (d *DatasetReader) Manifest() *Manifest { return d.m }

// Parts returns the parts read, ascending.
func (d *DatasetReader) Parts() []int { return d.parts }

// NumRows returns the number of requests of the parts read.
func (d *DatasetReader) NumRows() int64 { return d.m.Records(d.parts) }

// Scan advances to the next request of the parts read.
func (d *DatasetReader) Scan() bool {
	if d.err != nil {
		return false
	}
	if !d.started {
		d.started = true
		for i := range d.readers {
			if d.advance(i) {
				d.push(i)
			}
		}
	} else if d.cur >= 0 {
		if d.advance(d.cur) {
			d.down(0)
		} else {
			d.pop()
		}
	}
	if d.err != nil || len(d.heap) == 0 {
		d.cur = -1
		return false
	}
	d.cur = d.heap[0]
	return true
}

// advance reads the next request of reader i, checking its part, and
// reports whether it has one; at its end it checks the part's count.
func (d *DatasetReader) advance(i int) bool {
	r := d.readers[i]
	if !r.Scan() {
		if d.err = r.Err(); d.err == nil {
			if n, _ := r.Skipped(); d.read[i]+n != d.m.Parts[d.parts[i]].Records {
				d.err = d.countError(i, d.read[i]+n)
			}
		}
		return false
	}
	d.read[i]++
	j := d.parts[i]
	if h := KeyHash(r.Request().Key) % uint64(d.m.Partitions); h != uint64(j) {
		d.err = &ParseError{Pos: r.Pos(), Msg: fmt.Sprintf("a key of part %d is in part %d: the dataset is damaged; convert the trace again", h, j)}
		return false
	}
	return true
}

// less orders readers a and b by their current request's time, then part.
func (d *DatasetReader) less(a, b int) bool {
	ta, tb := d.readers[a].req.T, d.readers[b].req.T
	return ta < tb || ta == tb && a < b
}

func (d *DatasetReader) push(i int) {
	d.heap = append(d.heap, i)
	for c := len(d.heap) - 1; c > 0; {
		p := (c - 1) / 2
		if !d.less(d.heap[c], d.heap[p]) {
			break
		}
		d.heap[c], d.heap[p] = d.heap[p], d.heap[c]
		c = p
	}
}

func (d *DatasetReader) pop() {
	n := len(d.heap) - 1
	d.heap[0] = d.heap[n]
	d.heap = d.heap[:n]
	d.down(0)
}

func (d *DatasetReader) down(p int) {
	for {
		c := 2*p + 1
		if c >= len(d.heap) {
			return
		}
		if c+1 < len(d.heap) && d.less(d.heap[c+1], d.heap[c]) {
			c++
		}
		if !d.less(d.heap[c], d.heap[p]) {
			return
		}
		d.heap[c], d.heap[p] = d.heap[p], d.heap[c]
		p = c
	}
}

// Request returns the current request; its Key is valid until the next
// Scan.
func (d *DatasetReader) Request() Request { return d.readers[d.cur].Request() }

// Pos returns the part's file and the row of the current request.
func (d *DatasetReader) Pos() Position {
	if d.cur < 0 {
		return Position{File: d.dir}
	}
	return d.readers[d.cur].Pos()
}

// Err returns the first error, nil at a clean end of the parts read.
func (d *DatasetReader) Err() error { return d.err }

// Skipped returns how many rows the parts' readers skipped as bad (with
// Options.SkipBad), and the first ones (at most MaxSkipExamples), part by
// part.
func (d *DatasetReader) Skipped() (n int64, first []*ParseError) {
	for _, r := range d.readers {
		k, f := r.Skipped()
		n += k
		for _, e := range f {
			if len(first) < MaxSkipExamples {
				first = append(first, e)
			}
		}
	}
	return n, first
}

// Close closes every part.
func (d *DatasetReader) Close() error {
	var err error
	for _, r := range d.readers {
		if cerr := r.Close(); err == nil {
			err = cerr
		}
	}
	d.readers = nil
	return err
}
