package compare

import (
	"ratebench/compare/clients"
	"ratebench/summary"
)

// closedLoop replays the trace, for every plain rule, algorithm (the log
// included) and retry policy of Config.Clients, with clients that re-send
// what they are refused (package clients): each its own limiter, fed the
// trace and its own retries. Keys never interact, so the simulations of
// workers and shards merge exactly.
type closedLoop struct {
	sims []*clients.Sim
}

func newClosedLoop(cfg Config) (closedLoop, error) {
	var cl closedLoop
	for _, r := range cfg.Rules {
		for _, spec := range cfg.Algorithms {
			for _, p := range cfg.Clients {
				s, err := clients.New(spec, r, p, cfg.ClientSeed)
				if err != nil {
					return cl, err
				}
				cl.sims = append(cl.sims, s)
			}
		}
	}
	return cl, nil
}

func (cl *closedLoop) add(id int32, key []byte, t, cost int64) error {
	for _, s := range cl.sims {
		if err := s.AddID(id, key, t, cost); err != nil {
			return err
		}
	}
	return nil
}

// results sends every pending retry and returns the simulations' results.
func (cl *closedLoop) results() []summary.ClientsResult {
	out := make([]summary.ClientsResult, 0, len(cl.sims))
	for _, s := range cl.sims {
		s.Finish()
		out = append(out, s.Result())
	}
	return out
}
