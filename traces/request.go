// Package traces is ratebench's request model and its streaming trace
// readers and writers.
//
// A trace is a sequence of requests (t, key, cost): t is an int64 count of
// nanoseconds (Unix epoch unless the trace says otherwise), key is the client
// identity (valid UTF-8) and cost a positive integer (1 when the trace has
// no cost). Readers stream: they never hold more than one record, and the
// Key they return is only valid until the next call to Scan, so that
// reading a trace allocates nothing per request (but for the one
// allocation of a regular expression's match, in RegexReader).
//
// Three formats are read and written: CSV (CSVReader, CSVWriter), JSON lines
// (JSONLReader, JSONLWriter) and Parquet (ParquetReader, ParquetWriter);
// logs are read too: web server access logs in the Common and Combined Log
// Format (AccessLogReader), AWS ALB access logs (ALBReader), W3C extended
// logs as IIS and CloudFront write them (W3CReader), HAProxy's HTTP log
// (HAProxyReader), and any line-oriented text by a regular expression
// (RegexReader). The doc of each reader states its model exactly. Open
// and Create pick the format from the file extension unless told
// (ParseFormat reads a -format flag); Open also tells it from the content
// when the extension says nothing, reads gzip and zstd compressed text
// traces, and reads standard input for the path "-". What a writer writes,
// its reader reads back unchanged, and the writers refuse requests that no
// reader would accept: negative T, Cost below 1, an empty Key or one that is
// not valid UTF-8 or holds a NUL byte.
//
// Readers are modelled on bufio.Scanner:
//
//	r, err := traces.Open(path, traces.FormatAuto, traces.Options{})
//	if err != nil { ... }
//	defer r.Close()
//	for r.Scan() {
//		req := r.Request()
//		...
//	}
//	if err := r.Err(); err != nil { ... } // a *ParseError names file and line
//
// Every error about a record names it: "file:line: what is wrong" for the
// text formats, "file: row N: what is wrong" for Parquet. With
// Options.SkipBad, readers skip bad records instead of stopping, and count
// them (SkipCounter).
package traces

// Request is one request of a trace.
type Request struct {
	// T is the request time in nanoseconds.
	T int64
	// Key is the client identity. Readers reuse its bytes: copy it to keep it
	// past the next Scan.
	Key []byte
	// Cost is the request's weight, from 1 to MaxCost.
	Cost int64
}

// MaxCost is the largest cost of one request: the range of the Parquet
// trace's INT32 cost column (docs/definitions.md §1). Readers reject larger
// costs, which also keeps every per-window sum of costs far from int64
// overflow. algorithms.MaxCost is the same bound on the limiters' side (the
// two packages import nothing of each other); a test of package compare
// checks that they are equal.
const MaxCost = 1<<31 - 1
