package compare

import (
	"fmt"

	"ratebench/algorithms"
)

// ReferenceOf returns the reference of spec under rule r: the exact log,
// and the refusal cache in front of it for "log:block" or "log:block=D"
// (nil for "log"). The engine asks the log at every request, blocked or
// not, for the exact count the candidates estimate, and puts the cache in
// front of its decision (algorithms.Blocked.Gate).
func ReferenceOf(spec string, r algorithms.Rule) (*algorithms.Log, *algorithms.Blocked, error) {
	l, err := algorithms.New(spec, r)
	if err != nil {
		return nil, nil, fmt.Errorf("reference: %w", err)
	}
	switch l := l.(type) {
	case *algorithms.Log:
		return l, nil, nil
	case *algorithms.Blocked:
		if log, ok := l.Inner().(*algorithms.Log); ok {
			return log, l, nil
		}
	}
	return nil, nil, fmt.Errorf("reference %q: the reference is the exact log, alone (log) or behind a refusal cache (log:block, log:block=D)", spec)
}

// referenceState is what holds a reference's per-key state: the cache,
// which holds the log behind it, or the log alone.
type referenceState interface {
	Grow(n int)
	Release(id int32)
}

// stateOf returns the holder of the state of the reference log behind
// block (nil: none).
func stateOf(log *algorithms.Log, block *algorithms.Blocked) referenceState {
	if block != nil {
		return block
	}
	return log
}

// decideReference is the reference's step for a request of key id at t,
// the engine's and KeyReplay's: every layer's log decides (all must
// admit), the cache, if any, refuses a blocked key and blocks a refused
// one, and the request is recorded in the logs if admitted, or under count
// all (all) whatever the decision. It returns the decision and the exact
// cost the primary log held in (t-W, t] before the request, which the
// candidates' estimates are measured against: the log is asked even while
// the cache blocks the key, so that it is always read at t.
func decideReference(log *algorithms.Log, guards []*algorithms.Log, block *algorithms.Blocked, all bool, id int32, t, cost int64) (admit bool, exact int64) {
	admit = log.Decide(id, t, cost)
	for _, l := range guards { // a layered reference admits iff every layer's log does
		admit = l.Decide(id, t, cost) && admit
	}
	if block != nil {
		admit = block.Gate(id, t, admit)
	}
	exact = log.Sum(id)
	if admit || all {
		log.Record(id, t, cost)
		for _, l := range guards {
			l.Record(id, t, cost)
		}
	}
	return admit, exact
}
