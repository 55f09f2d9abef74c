package compare

import "ratebench/traces"

// Replay feeds every request of r to the engine. An error names the file
// and line (or row) of the request at fault.
func (e *Engine) Replay(r traces.Reader) error {
	for r.Scan() {
		q := r.Request()
		if err := e.Add(q.Key, q.T, q.Cost); err != nil {
			return &traces.ParseError{Pos: r.Pos(), Msg: err.Error()}
		}
	}
	return r.Err()
}
