package main

import (
	"fmt"
	"io"
	"strings"

	"ratebench/traces"
)

// The help texts that name trace formats (-trace, -format, convert -to,
// gen, ratebench help) take them from the traces package's table
// (traces.Formats), in its order: a format added there is offered
// everywhere by itself.

// formatsWhere returns the formats of which keep says true.
func formatsWhere(keep func(traces.FormatInfo) bool) []traces.FormatInfo {
	var fs []traces.FormatInfo
	for _, f := range traces.Formats() {
		if keep(f) {
			fs = append(fs, f)
		}
	}
	return fs
}

// written is true of the formats ratebench writes.
func written(f traces.FormatInfo) bool { return f.Writes }

// formatWords returns word(f) for each of fs.
func formatWords(fs []traces.FormatInfo, word func(traces.FormatInfo) string) []string {
	words := make([]string, len(fs))
	for i, f := range fs {
		words[i] = word(f)
	}
	return words
}

func formatName(f traces.FormatInfo) string { return f.Format.String() }
func formatKind(f traces.FormatInfo) string { return f.Kind }
func formatExt(f traces.FormatInfo) string  { return f.Exts[0] }

// orList joins words as a list: "a, b or c".
func orList(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// traceFileHelp is the help of -trace: what a trace may be.
func traceFileHelp() string {
	files := formatsWhere(func(f traces.FormatInfo) bool { return f.Kind != "" && !f.Log })
	logs := formatsWhere(func(f traces.FormatInfo) bool { return f.Kind != "" && f.Log })
	return "trace `file`: " + strings.Join(formatWords(files, formatKind), ", ") + " or a log (" + strings.Join(formatWords(logs, formatKind), ", ") +
		"), gzip or zstd compressed or not, or a dataset folder (convert -partitions); - reads standard input"
}

// readFormatHelp is the help of -format: every format's name, with its
// note.
func readFormatHelp() string {
	names := formatWords(traces.Formats(), func(f traces.FormatInfo) string {
		if f.Note != "" {
			return formatName(f) + " (" + f.Note + ")"
		}
		return formatName(f)
	})
	return "trace `format`: " + strings.Join(names, ", ") + ", or auto (from the extension, else the content)"
}

// writtenNames lists the names of the formats written: "csv, parquet,
// jsonl".
func writtenNames() string { return strings.Join(formatWords(formatsWhere(written), formatName), ", ") }

// writtenExts lists the extensions of the formats written: ".csv,
// .parquet, .jsonl".
func writtenExts() string { return strings.Join(formatWords(formatsWhere(written), formatExt), ", ") }

// writtenKinds names the formats written: "CSV, Parquet or JSON lines".
func writtenKinds() string { return orList(formatWords(formatsWhere(written), formatKind)) }

// writeFormats lists the trace formats for ratebench help: each one's
// name, extensions and what it is.
func writeFormats(w io.Writer) {
	fmt.Fprintln(w, "\nTrace formats (-format; auto, the default, tells them from the extension, else from the content):")
	for _, f := range traces.Formats() {
		what := f.Kind
		switch {
		case what != "" && f.Log:
			what += " log"
		case what == "":
			what = f.Note
		}
		if f.Log {
			what += ", read only"
		}
		if len(f.Aliases) > 0 {
			what += "; also " + strings.Join(f.Aliases, ", ")
		}
		fmt.Fprintf(w, "  %-11s %-22s %s\n", f.Format, strings.Join(f.Exts, " "), what)
	}
}
