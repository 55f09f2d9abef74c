package traces

import (
	"fmt"
	"path/filepath"
	"strings"
)

// Format is a trace file format. The zero value, FormatAuto, means "tell from
// the file name's extension, or else from the content".
type Format int

// The trace formats.
const (
	// FormatAuto picks the format from the file extension (see
	// FormatFromPath) or, when the extension says nothing, from the content
	// (see Open).
	FormatAuto Format = iota
	// FormatCSV is delimited text (comma-separated, or tab-separated for
	// .tsv, or see Options.Sep) with a header naming the columns ts, key
	// and optionally cost, in any order (or see Options.Columns).
	FormatCSV
	// FormatParquet is an Apache Parquet file with columns ts, key and
	// optionally cost.
	FormatParquet
	// FormatJSONL is JSON lines: one {"ts":..,"key":..,"cost":..} object a
	// line.
	FormatJSONL
	// FormatAccessLog is a web server access log in the Common or Combined
	// Log Format (see AccessLogReader). It is read only.
	FormatAccessLog
	// FormatALB is an AWS Application Load Balancer access log (see
	// ALBReader). It is read only, like the other logs below.
	FormatALB
	// FormatCloudFront is an Amazon CloudFront standard log, the W3C
	// extended format with tabs (see W3CReader).
	FormatCloudFront
	// FormatW3C is a W3C extended log as IIS writes it (see W3CReader).
	FormatW3C
	// FormatHAProxy is HAProxy's HTTP log (see HAProxyReader).
	FormatHAProxy
	// FormatRegex is any line-oriented text, one request a line, read by
	// the regular expression of Options.Pattern (see RegexReader). It is
	// read only, and never told from the content.
	FormatRegex
	// FormatDataset is a folder of Parquet parts partitioned by key and
	// its manifest (see DatasetFile), which CreateDataset writes.
	FormatDataset
)

// String returns the format's flag name: "auto", "csv", "parquet", "jsonl",
// "accesslog", "alb", "cloudfront", "w3c", "haproxy", "regex", "dataset".
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
	case FormatAccessLog:
		return "accesslog"
	case FormatALB:
		return "alb"
	case FormatCloudFront:
		return "cloudfront"
	case FormatW3C:
		return "w3c"
	case FormatHAProxy:
		return "haproxy"
	case FormatRegex:
		return "regex"
	case FormatDataset:
		return "dataset"
	}
	return fmt.Sprintf("Format(%d)", int(f))
}

// ParseFormat parses the value of a -format flag: "csv", "parquet" (or
// "pq"), "jsonl" (or its aliases "ndjson" and "json"), "accesslog" (or
// "clf", "combined", "common"), "alb", "cloudfront", "w3c" (or "iis"),
// "haproxy", "regex", "dataset", and "auto" or "" for FormatAuto. Case is ignored. An unknown
// name is an error that lists the names.
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
	case "accesslog", "clf", "combined", "common":
		return FormatAccessLog, nil
	case "alb":
		return FormatALB, nil
	case "cloudfront":
		return FormatCloudFront, nil
	case "w3c", "iis":
		return FormatW3C, nil
	case "haproxy":
		return FormatHAProxy, nil
	case "regex":
		return FormatRegex, nil
	case "dataset":
		return FormatDataset, nil
	}
	return FormatAuto, fmt.Errorf("unknown trace format %q (want %s)", s, FormatNames)
}

// compressionExts are the extensions of compressed files, stripped before
// the format's extension is looked at.
var compressionExts = []string{".gz", ".zst", ".zstd"}

// stripCompressionExt removes a .gz, .zst or .zstd extension (any case).
func stripCompressionExt(path string) string {
	ext := strings.ToLower(filepath.Ext(path))
	for _, c := range compressionExts {
		if ext == c {
			return path[:len(path)-len(ext)]
		}
	}
	return path
}

// formatOfExt returns the format an extension names, or FormatAuto.
func formatOfExt(ext string) Format {
	switch strings.ToLower(ext) {
	case ".csv", ".tsv":
		return FormatCSV
	case ".parquet", ".pq":
		return FormatParquet
	case ".jsonl", ".ndjson", ".json":
		return FormatJSONL
	case ".log":
		return FormatAccessLog
	}
	return FormatAuto
}

// FormatFromPath tells a trace's format from its file extension, ignoring
// case and a compression extension (.gz, .zst, .zstd) after it: .csv or .tsv;
// .parquet or .pq; .jsonl, .ndjson or .json; .log (an access log, or
// another log: Open tells which from the content). An unknown or missing
// extension is an error naming the path (Open then looks at the content
// instead).
func FormatFromPath(path string) (Format, error) {
	ext := filepath.Ext(stripCompressionExt(path))
	if f := formatOfExt(ext); f != FormatAuto {
		return f, nil
	}
	const want = "want .csv, .tsv, .parquet, .pq, .jsonl, .ndjson, .json or .log, or give the format"
	if ext == "" {
		return FormatAuto, fmt.Errorf("%s: cannot tell the trace format: no file extension (%s)", path, want)
	}
	return FormatAuto, fmt.Errorf("%s: cannot tell the trace format from the extension %q (%s)", path, strings.ToLower(ext), want)
}
