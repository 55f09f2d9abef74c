package summary

import (
	"fmt"

	"ratebench/algorithms"
)

// DistributedResult is what a simulated distributed deployment
// (distributed.Sim) measured: counts of requests (not cost). JSON field
// names are snake_case. The identities
//
//	admitted - reference_admitted = over - under
//	over <= admitted, under <= reference_admitted <= requests
//
// always hold.
type DistributedResult struct {
	Algorithm string `json:"algorithm"` // canonical spec
	Rule      string `json:"rule"`      // L/W
	// Count is the counting policy of the nodes and of the reference:
	// "accepted" (record what is admitted) or "all" (record every request).
	Count string `json:"count"`
	Nodes int    `json:"nodes"`
	Route string `json:"route"` // random, hash or roundrobin
	// SyncNS is the sync period D in ns (0: a central store).
	SyncNS int64 `json:"sync_ns"`
	// SkewNS is the skew bound S in ns; SkewRandom tells whether the
	// offsets are drawn (else evenly spread), and NodeSkewNS lists them.
	SkewNS     int64   `json:"skew_ns"`
	SkewRandom bool    `json:"skew_random"`
	NodeSkewNS []int64 `json:"node_skew_ns"`
	Seed       uint64  `json:"seed"`

	Keys     int64 `json:"keys"`
	Requests int64 `json:"requests"`
	// Admitted counts the requests the deployment admitted,
	// ReferenceAdmitted those the exact central log admitted.
	Admitted          int64 `json:"admitted"`
	ReferenceAdmitted int64 `json:"reference_admitted"`
	// Over counts the requests the deployment admits and the reference
	// refuses, Under the reverse; the rates are over Requests (0 when
	// there is none).
	Over      int64   `json:"over"`
	Under     int64   `json:"under"`
	OverRate  float64 `json:"over_rate"`
	UnderRate float64 `json:"under_rate"`
	// BurstMax is the largest cost the deployment admitted for one key in
	// any true-time span (t-W, t], and BurstRatio = BurstMax/L.
	BurstMax   int64   `json:"burst_max"`
	BurstRatio float64 `json:"burst_ratio"`
}

// Derive fills the fields computed from the others, L the rule's limit.
func (r *DistributedResult) Derive(L int64) {
	r.OverRate, r.UnderRate = 0, 0
	if r.Requests > 0 {
		r.OverRate = float64(r.Over) / float64(r.Requests)
		r.UnderRate = float64(r.Under) / float64(r.Requests)
	}
	r.BurstRatio = float64(r.BurstMax) / float64(L)
}

// sameConfig reports whether r and o describe the same deployment.
func (r *DistributedResult) sameConfig(o *DistributedResult) bool {
	if r.Algorithm != o.Algorithm || r.Rule != o.Rule || r.Count != o.Count || r.Nodes != o.Nodes ||
		r.Route != o.Route || r.SyncNS != o.SyncNS || r.SkewNS != o.SkewNS || r.SkewRandom != o.SkewRandom ||
		r.Seed != o.Seed || len(r.NodeSkewNS) != len(o.NodeSkewNS) {
		return false
	}
	for i := range r.NodeSkewNS {
		if r.NodeSkewNS[i] != o.NodeSkewNS[i] {
			return false
		}
	}
	return true
}

// MergeDistributedResults combines the results of simulated deployments
// over disjoint sets of keys of one trace, run with the same configuration,
// into exactly the result of one over all those keys: the counts are sums
// over keys, the burst a maximum over keys, and the rates and ratio are
// derived from them. A sum that would leave int64 is an error naming its
// field.
func MergeDistributedResults(rs []DistributedResult) (DistributedResult, error) {
	if len(rs) == 0 {
		return DistributedResult{}, fmt.Errorf("distributed: merge: no result")
	}
	f := rs[0]
	var L int64
	if _, err := fmt.Sscanf(f.Rule, "%d/", &L); err != nil || L < 1 {
		return DistributedResult{}, fmt.Errorf("distributed: merge: result 0: rule %q has no positive limit", f.Rule)
	}
	out := f
	out.NodeSkewNS = append([]int64(nil), f.NodeSkewNS...)
	out.Keys, out.Requests, out.Admitted, out.ReferenceAdmitted, out.Over, out.Under, out.BurstMax = 0, 0, 0, 0, 0, 0, 0
	for i := range rs {
		r := &rs[i]
		if !r.sameConfig(&f) {
			return DistributedResult{}, fmt.Errorf("distributed: merge: result %d (%s %s %s, %d nodes %s, sync %d ns, skew %d ns, seed %d) is not the deployment of result 0 (%s %s %s, %d nodes %s, sync %d ns, skew %d ns, seed %d)",
				i, r.Algorithm, r.Rule, r.Count, r.Nodes, r.Route, r.SyncNS, r.SkewNS, r.Seed,
				f.Algorithm, f.Rule, f.Count, f.Nodes, f.Route, f.SyncNS, f.SkewNS, f.Seed)
		}
		var add sums
		add.add("keys", &out.Keys, r.Keys)
		add.add("requests", &out.Requests, r.Requests)
		add.add("admitted", &out.Admitted, r.Admitted)
		add.add("reference_admitted", &out.ReferenceAdmitted, r.ReferenceAdmitted)
		add.add("over", &out.Over, r.Over)
		add.add("under", &out.Under, r.Under)
		if add.err != nil {
			return DistributedResult{}, fmt.Errorf("distributed: merge: %w", add.err)
		}
		out.BurstMax = max(out.BurstMax, r.BurstMax)
	}
	out.Derive(L)
	return out, nil
}

// validate checks one simulated deployment's result: counts
// non-negative, the identities its type states (admitted -
// reference_admitted = over - under, over <= admitted, under <=
// reference_admitted <= requests), one clock offset per node, and its
// rates those of its counts.
func (r *DistributedResult) validate(v *validator, path string) {
	if _, err := algorithms.ParseRules(r.Rule); err != nil {
		v.fail(path+".rule", "%v", err)
	}
	if r.Nodes < 1 {
		v.fail(path+".nodes", "%d is not a positive number of nodes", r.Nodes)
	}
	if len(r.NodeSkewNS) != r.Nodes {
		v.fail(path+".node_skew_ns", "%d offsets for %d nodes", len(r.NodeSkewNS), r.Nodes)
	}
	v.nonNegatives(path, []count{
		{"sync_ns", r.SyncNS}, {"skew_ns", r.SkewNS}, {"keys", r.Keys}, {"requests", r.Requests}, {"admitted", r.Admitted},
		{"reference_admitted", r.ReferenceAdmitted}, {"over", r.Over}, {"under", r.Under}, {"burst_max", r.BurstMax},
	})
	if v.err != nil {
		return
	}
	v.atMost(path+".keys", r.Keys, path+".requests", r.Requests)
	v.atMost(path+".admitted", r.Admitted, path+".requests", r.Requests)
	v.atMost(path+".reference_admitted", r.ReferenceAdmitted, path+".requests", r.Requests)
	v.atMost(path+".over", r.Over, path+".admitted", r.Admitted)
	v.atMost(path+".under", r.Under, path+".reference_admitted", r.ReferenceAdmitted)
	if v.err != nil {
		return
	}
	v.equal(path+".admitted - reference_admitted", r.Admitted-r.ReferenceAdmitted, "over - under", r.Over-r.Under)
	v.rate(path+".over_rate", r.OverRate, "over", r.Over, r.Requests)
	v.rate(path+".under_rate", r.UnderRate, "under", r.Under, r.Requests)
	v.finite(path+".burst_ratio", r.BurstRatio, true)
}
