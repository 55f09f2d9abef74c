package traces

import (
	"bufio"
	"fmt"
	"io"
	"os"
)

// Open opens the trace file at path for reading. With FormatAuto the format
// comes from the extension (see FormatFromPath). The reader's Close closes
// the file.
func Open(path string, f Format, opt Options) (Reader, error) {
	if f == FormatAuto {
		var err error
		if f, err = FormatFromPath(path); err != nil {
			return nil, err
		}
	}
	if _, err := opt.tsUnit(); err != nil {
		return nil, err
	}
	file, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	var r Reader
	switch f {
	case FormatCSV:
		r, err = newCSVReader(bufio.NewReaderSize(file, readBufferSize), path, opt, file)
	case FormatJSONL:
		r, err = newJSONLReader(bufio.NewReaderSize(file, readBufferSize), path, opt, file)
	case FormatParquet:
		var st os.FileInfo
		if st, err = file.Stat(); err == nil {
			r, err = newParquetReader(file, st.Size(), path, opt, file)
		}
	default:
		err = fmt.Errorf("%s: unknown trace format %v", path, f)
	}
	if err != nil {
		file.Close()
		return nil, err
	}
	return r, nil
}

// Create creates (or truncates) the trace file at path for writing. With
// FormatAuto the format comes from the extension. The writer's Close
// flushes and closes the file; the trace is complete only if it succeeds.
func Create(path string, f Format) (Writer, error) {
	if f == FormatAuto {
		var err error
		if f, err = FormatFromPath(path); err != nil {
			return nil, err
		}
	}
	switch f {
	case FormatCSV, FormatJSONL, FormatParquet:
	default:
		return nil, fmt.Errorf("%s: unknown trace format %v", path, f)
	}
	file, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	switch f {
	case FormatCSV:
		return &CSVWriter{t: newTextWriter(file, file)}, nil
	case FormatJSONL:
		return &JSONLWriter{t: newTextWriter(file, file)}, nil
	}
	return newParquetWriter(file, file), nil
}

// NewWriter returns a writer of format f (not FormatAuto) to w, for
// output that is not a file of its own (standard output, a buffer). Close
// finishes the trace but does not close w.
func NewWriter(w io.Writer, f Format) (Writer, error) {
	switch f {
	case FormatCSV:
		return NewCSVWriter(w), nil
	case FormatJSONL:
		return NewJSONLWriter(w), nil
	case FormatParquet:
		return NewParquetWriter(w), nil
	}
	return nil, fmt.Errorf("traces: cannot write trace format %v", f)
}
