package compare

import "ratebench/traces"

// KeyIndexer is a trace reader whose keys come with dense ids of their
// own (a generator's source index); Replay then skips the key lookup.
type KeyIndexer interface {
	KeyIndex() int32
}

// Replay feeds every request of r to the engine. An error names the file
// and line (or row) of the request at fault.
func (e *Engine) Replay(r traces.Reader) error {
	ix, indexed := r.(KeyIndexer)
	for r.Scan() {
		q := r.Request()
		var err error
		if indexed {
			err = e.AddIndexed(ix.KeyIndex(), q.Key, q.T, q.Cost)
		} else {
			err = e.Add(q.Key, q.T, q.Cost)
		}
		if err != nil {
			return &traces.ParseError{Pos: r.Pos(), Msg: err.Error()}
		}
	}
	return r.Err()
}
