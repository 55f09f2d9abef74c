package compare

import (
	"fmt"

	"ratebench/compare/distributed"
	"ratebench/summary"
)

// deployments are the simulations of one engine.
type deployments struct {
	sims []*distributed.Sim
}

func newDeployments(cfg Config) (deployments, error) {
	var d deployments
	dp := cfg.Deployment
	if dp == nil {
		return d, nil
	}
	route, err := distributed.ParseRoute(dp.Route)
	if err != nil {
		return d, err
	}
	for _, r := range cfg.Rules {
		for _, spec := range cfg.Algorithms {
			if !distributed.Supports(spec) {
				continue
			}
			for _, n := range dp.Nodes {
				for _, sync := range dp.Sync {
					for _, skew := range dp.Skew {
						s, err := distributed.New(distributed.Config{Spec: spec, Rule: r, Nodes: n, Route: route,
							Sync: sync, Skew: skew, SkewRandom: dp.SkewRandom, Seed: dp.Seed})
						if err != nil {
							return d, err
						}
						d.sims = append(d.sims, s)
					}
				}
			}
		}
	}
	if len(d.sims) == 0 {
		return d, fmt.Errorf("-nodes: none of the algorithms runs distributed (supported: %v)", distributed.Supported)
	}
	return d, nil
}

func (d *deployments) add(id int32, key []byte, t, cost int64) error {
	for _, s := range d.sims {
		if err := s.AddID(id, key, t, cost); err != nil {
			return err
		}
	}
	return nil
}

func (d *deployments) results() []summary.DistributedResult {
	var out []summary.DistributedResult
	for _, s := range d.sims {
		out = append(out, s.Result())
	}
	return out
}
