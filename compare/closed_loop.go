package compare

import (
	"fmt"
	"strings"

	"ratebench/clients"
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

func (cl *closedLoop) add(key []byte, t, cost int64) error {
	for _, s := range cl.sims {
		if err := s.Add(key, t, cost); err != nil {
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

// ParseClients reads the -clients flag: "retry:POLICY", POLICY as
// clients.ParsePolicy reads it (immediate, backoff, honor, with
// parameters: "backoff:base=100ms,max=8"), or "retry:all" for the three
// with their defaults.
func ParseClients(v string) ([]clients.Policy, error) {
	p, ok := strings.CutPrefix(strings.TrimSpace(v), "retry:")
	if !ok {
		return nil, fmt.Errorf("clients %q: want retry:immediate, retry:backoff, retry:honor (with parameters, e.g. retry:backoff:base=100ms,max=8) or retry:all", v)
	}
	if p == "all" {
		var out []clients.Policy
		for _, k := range []string{"immediate", "backoff", "honor"} {
			pol, err := clients.ParsePolicy(k)
			if err != nil {
				return nil, err
			}
			out = append(out, pol)
		}
		return out, nil
	}
	pol, err := clients.ParsePolicy(p)
	if err != nil {
		return nil, err
	}
	return []clients.Policy{pol}, nil
}
