package traces

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// Format is a trace file format, by its name ("csv", "haproxy"; see
// Formats). The zero value, FormatAuto, means "tell from the file name's
// extension, or else from the content". Each format's constant is declared
// beside its reader.
type Format string

// FormatAuto picks the format from the file extension (see FormatFromPath)
// or, when the extension says nothing, from the content (see Open).
const FormatAuto Format = ""

// String returns the format's flag name: its name, "auto" for FormatAuto.
func (f Format) String() string {
	if f == FormatAuto {
		return "auto"
	}
	return string(f)
}

// ParseFormat parses the value of a -format flag: a format's name or one
// of its aliases (see Formats: "pq" for parquet, "ndjson" and "json" for
// jsonl, "clf", "combined" and "common" for accesslog, "iis" for w3c), and
// "auto" or "" for FormatAuto. Case is ignored. An unknown name is an
// error that lists the names.
func ParseFormat(s string) (Format, error) {
	name := strings.ToLower(strings.TrimSpace(s))
	if name == "" || name == "auto" {
		return FormatAuto, nil
	}
	for _, f := range formats {
		if name == string(f.format) || slices.Contains(f.aliases, name) {
			return f.format, nil
		}
	}
	return FormatAuto, fmt.Errorf("unknown trace format %q (want %s)", s, formatNames())
}

// formatNames lists the values of a -format flag, for messages: "csv,
// parquet, ... or auto".
func formatNames() string {
	var names []string
	for _, f := range formats {
		names = append(names, string(f.format))
	}
	return strings.Join(names, ", ") + " or auto"
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

// compressionExt returns the compression extension of path (.gz, .zst or
// .zstd, as written), or "".
func compressionExt(path string) string { return path[len(stripCompressionExt(path)):] }

// formatOfExt returns the format an extension names, or nil.
func formatOfExt(ext string) *formatSpec {
	ext = strings.ToLower(ext)
	for _, f := range formats {
		if slices.Contains(f.exts, ext) {
			return f
		}
	}
	return nil
}

// FormatFromPath tells a trace's format from its file extension, ignoring
// case and a compression extension (.gz, .zst, .zstd) after it: the
// extensions of Formats (.csv or .tsv; .parquet or .pq; .jsonl, .ndjson or
// .json; .log, an access log, or another log: Open tells which from the
// content). An unknown or missing extension is an error naming the path
// (Open then looks at the content instead).
func FormatFromPath(path string) (Format, error) {
	ext := filepath.Ext(stripCompressionExt(path))
	if f := formatOfExt(ext); f != nil {
		return f.format, nil
	}
	var exts []string
	for _, f := range formats {
		exts = append(exts, f.exts...)
	}
	want := "want " + joinOr(exts) + ", or give the format"
	if ext == "" {
		return FormatAuto, fmt.Errorf("%s: cannot tell the trace format: no file extension (%s)", path, want)
	}
	return FormatAuto, fmt.Errorf("%s: cannot tell the trace format from the extension %q (%s)", path, strings.ToLower(ext), want)
}
