package traces

// FormatOf returns the format of the trace a reader returned by Open (or
// Reorder) reads, once Open has told it from the extension or the content;
// FormatAuto for a reader of another package.
func FormatOf(r Reader) Format {
	if r, ok := r.(interface{ traceFormat() Format }); ok {
		return r.traceFormat()
	}
	return FormatAuto
}
