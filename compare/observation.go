package compare

import "ratebench/algorithms"

// observation is what a run's metrics see of one request of a key, once
// the run has decided it and recorded it or not: a metric that follows
// requests (requestObserver) reads it, and writes what it keeps of the key
// in the rows it points to. The engine fills one per group and request
// and hands it to each run in turn.
type observation struct {
	id         int32
	t, cost    int64
	admit, ref bool                // the run's decision, and the reference's
	recorded   bool                // the run recorded the request in its state
	exact      int64               // the cost the log held in (t-W, t] before the request
	est        algorithms.Rational // the run's estimate before it recorded the request, where its rate error is measured
	h          *keyRun             // the run's row of the key
	o          *ownRun             // and its own row, nil for a run without a history of its own
}

// requestObserver is a runMetric that follows the requests: it sees each
// one the run decides, after the run's counts.
type requestObserver interface {
	observe(req *observation)
}

// groupObserver is a runMetric that weighs the run's decision against
// another run's of the same group (a product against its twin, a peer
// library against the token run): settle sees each request once every run
// of the group has decided it (candidate.admit).
type groupObserver interface {
	settle()
}
