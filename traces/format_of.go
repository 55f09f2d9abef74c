package traces

// FormatOf returns the format of the trace a reader returned by Open (or
// Reorder) reads, once Open has told it from the extension or the content.
func FormatOf(r Reader) Format {
	switch r := r.(type) {
	case *CSVReader:
		return FormatCSV
	case *JSONLReader:
		return FormatJSONL
	case *ParquetReader:
		return FormatParquet
	case *AccessLogReader:
		return FormatAccessLog
	case *ALBReader:
		return FormatALB
	case *W3CReader:
		return r.format
	case *HAProxyReader:
		return FormatHAProxy
	case *RegexReader:
		return FormatRegex
	case *DatasetReader:
		return FormatDataset
	case *reorderReader:
		return FormatOf(r.in)
	}
	return FormatAuto
}
