package traces

// Reader streams the requests of a trace in file order. Every reader of
// this package is also a SkipCounter.
type Reader interface {
	// Scan advances to the next request. It returns false at the end of the
	// trace or on the first error; Err tells which.
	Scan() bool
	// Request returns the current request. Its Key is valid until the next
	// call to Scan.
	Request() Request
	// Pos returns where the current request was read, for error messages:
	// the line number (CSV, JSON lines, access logs), or the row number
	// (Parquet).
	Pos() Position
	// Err returns the first error met, nil at a clean end of the trace.
	// Parse errors are *ParseError.
	Err() error
	// Close releases the underlying file.
	Close() error
}

// Writer writes requests to a trace file.
type Writer interface {
	Write(Request) error
	// Close flushes and closes the output; the file is complete only after a
	// successful Close.
	Close() error
}
