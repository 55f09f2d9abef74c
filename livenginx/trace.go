package livenginx

import (
	"fmt"

	"ratebench/traces"
)

// MaxRequests bounds the trace a live replay holds in memory.
const MaxRequests = 10_000_000

// Trace is a trace as the live replay sends it: times in ns and dense key
// ids in order of first appearance.
type Trace struct {
	T    []int64
	Key  []int32
	Keys int
}

// Load reads r whole (at most MaxRequests requests). nginx has no request
// cost: a request of cost other than 1 is refused, naming it.
func Load(r traces.Reader, name string) (*Trace, error) {
	tr := &Trace{}
	ids := map[string]int32{}
	for r.Scan() {
		q := r.Request()
		if q.Cost != 1 {
			return nil, fmt.Errorf("%s: cost %d: nginx counts requests, not costs; a live replay takes only requests of cost 1", r.Pos(), q.Cost)
		}
		if len(tr.T) >= MaxRequests {
			return nil, fmt.Errorf("%s: more than %d requests: a live replay sends every request in real time; cut the trace", name, MaxRequests)
		}
		if n := len(tr.T); n > 0 && q.T < tr.T[n-1] {
			return nil, fmt.Errorf("%s: time goes back: a live replay sends requests in time order (read it with -reorder)", r.Pos())
		}
		id, ok := ids[string(q.Key)]
		if !ok {
			id = int32(len(ids))
			ids[string(q.Key)] = id
		}
		tr.T = append(tr.T, q.T)
		tr.Key = append(tr.Key, id)
	}
	if err := r.Err(); err != nil {
		return nil, err
	}
	if len(tr.T) == 0 {
		return nil, fmt.Errorf("%s: no requests", name)
	}
	tr.Keys = len(ids)
	return tr, nil
}
