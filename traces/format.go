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

// Batch is a run of requests in columns, for a BatchWriter: request i is at
// T[i], of cost Cost[i], with key Keys[Ends[i-1]:Ends[i]] (from 0 for the
// first). IDs, when not nil, names each request's key by a dense id from
// 0: requests of the same id have the same key, so that a writer may know
// a key by its id without reading it. With IDs, Names may give the keys
// instead of Keys and Ends, which are then empty: request i has key
// Names.Key(IDs[i]).
type Batch struct {
	T, Cost []int64
	Keys    []byte
	Ends    []int
	IDs     []int32
	Names   KeyTable
}

// KeyTable gives the key of each id of a Batch.
type KeyTable interface {
	// Key returns the key of id; the caller does not modify it.
	Key(id int32) []byte
}

// Len returns the number of requests of b.
func (b *Batch) Len() int { return len(b.T) }

// Reset empties b, keeping its memory (and its Names).
func (b *Batch) Reset() {
	b.T, b.Cost, b.Keys, b.Ends, b.IDs = b.T[:0], b.Cost[:0], b.Keys[:0], b.Ends[:0], b.IDs[:0]
}

// Key returns the key of the i-th request of b; it is b's memory, or its
// Names'.
func (b *Batch) Key(i int) []byte {
	if len(b.Ends) == 0 {
		return b.Names.Key(b.IDs[i])
	}
	start := 0
	if i > 0 {
		start = b.Ends[i-1]
	}
	return b.Keys[start:b.Ends[i]:b.Ends[i]]
}

// Request returns the i-th request of b; its Key is b's memory, or its
// Names'.
func (b *Batch) Request(i int) Request {
	return Request{T: b.T[i], Key: b.Key(i), Cost: b.Cost[i]}
}

// BatchWriter is a Writer that also takes requests a Batch at a time,
// which is faster than one Write for each. WriteBatch writes b's requests
// in order, as Write would one by one, and stops at the first it refuses,
// returning how many it wrote and the error of Write; it does not keep b.
type BatchWriter interface {
	Writer
	WriteBatch(b *Batch) (int, error)
}

// WriteBatch writes the requests of b to w: at once if w is a
// BatchWriter, else one Write at a time, stopping at the first error.
// It returns how many requests it wrote.
func WriteBatch(w Writer, b *Batch) (int, error) {
	if bw, ok := w.(BatchWriter); ok {
		return bw.WriteBatch(b)
	}
	for i := range b.Len() {
		if err := w.Write(b.Request(i)); err != nil {
			return i, err
		}
	}
	return b.Len(), nil
}
