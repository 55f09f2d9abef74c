package traces

import (
	"fmt"
	"path/filepath"
	"strings"
)

// Format is a trace file format. The zero value, FormatAuto, means "tell from
// the file name's extension".
type Format int

// The trace formats.
const (
	// FormatAuto picks the format from the file extension (see FormatFromPath).
	FormatAuto Format = iota
	// FormatCSV is comma-separated text with a header naming the columns
	// ts, key and optionally cost, in any order.
	FormatCSV
	// FormatParquet is an Apache Parquet file with columns ts, key and
	// optionally cost.
	FormatParquet
	// FormatJSONL is JSON lines: one {"ts":..,"key":..,"cost":..} object a
	// line.
	FormatJSONL
)

// String returns the format's flag name: "auto", "csv", "parquet", "jsonl".
func (f Format) String() string {
	switch f {
	case FormatAuto:
		return "auto"
	case FormatCSV:
		return "csv"
	case FormatParquet:
		return "parquet"
	case FormatJSONL:
		return "jsonl"
	}
	return fmt.Sprintf("Format(%d)", int(f))
}

// ParseFormat parses the value of a -format flag: "csv", "parquet",
// "jsonl" (or its aliases "ndjson" and "json"), and "auto" or "" for
// FormatAuto. Case is ignored.
func ParseFormat(s string) (Format, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "auto":
		return FormatAuto, nil
	case "csv":
		return FormatCSV, nil
	case "parquet", "pq":
		return FormatParquet, nil
	case "jsonl", "ndjson", "json":
		return FormatJSONL, nil
	}
	return FormatAuto, fmt.Errorf("unknown trace format %q (want csv, parquet, jsonl or auto)", s)
}

// FormatFromPath tells a trace's format from its file extension, ignoring
// case: .csv; .parquet or .pq; .jsonl, .ndjson or .json. An unknown or
// missing extension is an error naming the path.
func FormatFromPath(path string) (Format, error) {
	ext := strings.ToLower(filepath.Ext(path))
	switch ext {
	case ".csv":
		return FormatCSV, nil
	case ".parquet", ".pq":
		return FormatParquet, nil
	case ".jsonl", ".ndjson", ".json":
		return FormatJSONL, nil
	case "":
		return FormatAuto, fmt.Errorf("%s: cannot tell the trace format: no file extension (want .csv, .parquet, .pq, .jsonl, .ndjson or .json, or give the format)", path)
	}
	return FormatAuto, fmt.Errorf("%s: cannot tell the trace format from the extension %q (want .csv, .parquet, .pq, .jsonl, .ndjson or .json, or give the format)", path, ext)
}
