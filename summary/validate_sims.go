package summary

import "ratebench/algorithms"

// clients checks one closed-loop replay's result: counts non-negative,
// the identities its type states (sent = requests + retries, requests =
// admitted + gave_up + pending, rejections = sent - admitted), parts within
// their totals, and its derived figures those of its counts.
func (v *validator) clients(path string, r *ClientsResult) {
	if _, err := algorithms.ParseRules(r.Rule); err != nil {
		v.fail(path+".rule", "%v", err)
	}
	v.nonNegatives(path, []count{
		{"keys", r.Keys}, {"requests", r.Requests}, {"sent", r.Sent}, {"retries", r.Retries},
		{"rejections", r.Rejections}, {"rejections_original", r.RejectionsOriginal}, {"baseline_rejections", r.BaselineRejections},
		{"retried", r.Retried}, {"first_retry_admitted", r.FirstRetryAdmitted}, {"gave_up", r.GaveUp},
		{"gave_up_no_retry_after", r.GaveUpNoRetryAfter}, {"pending", r.Pending}, {"admitted", r.Admitted}, {"admitted_first_try", r.AdmittedFirstTry},
	})
	if v.err != nil {
		return
	}
	if n, ok := v.sum(path+".requests + retries", r.Requests, r.Retries); ok {
		v.equal(path+".sent", r.Sent, "requests + retries", n)
	}
	if n, ok := v.sum(path+".admitted + gave_up + pending", r.Admitted, r.GaveUp, r.Pending); ok {
		v.equal(path+".requests", r.Requests, "admitted + gave_up + pending", n)
	}
	v.equal(path+".rejections", r.Rejections, "sent - admitted", r.Sent-r.Admitted)
	v.atMost(path+".keys", r.Keys, path+".requests", r.Requests)
	v.atMost(path+".rejections_original", r.RejectionsOriginal, path+".requests", r.Requests)
	v.atMost(path+".baseline_rejections", r.BaselineRejections, path+".requests", r.Requests)
	v.atMost(path+".retried", r.Retried, path+".requests", r.Requests)
	v.atMost(path+".first_retry_admitted", r.FirstRetryAdmitted, path+".retried", r.Retried)
	v.atMost(path+".gave_up_no_retry_after", r.GaveUpNoRetryAfter, path+".gave_up", r.GaveUp)
	v.atMost(path+".admitted_first_try", r.AdmittedFirstTry, path+".admitted", r.Admitted)
	if err := r.TimeToSuccessHist.Validate(); err != nil {
		v.fail(path+".time_to_success_hist", "%v", err)
	}
	if v.err != nil {
		return
	}
	derived := *r
	derived.Derive()
	if r.Amplification != derived.Amplification {
		v.fail(path+".amplification", "%v, but sent over requests is %v", r.Amplification, derived.Amplification)
	}
	v.equal(path+".extra_rejections", r.ExtraRejections, "rejections_original - baseline_rejections", derived.ExtraRejections)
	v.equal(path+".time_to_success.samples", r.TimeToSuccess.Samples, "time_to_success_hist.samples", r.TimeToSuccessHist.Samples)
}

// distributed checks one simulated deployment's result: counts
// non-negative, the identities its type states (admitted -
// reference_admitted = over - under, over <= admitted, under <=
// reference_admitted <= requests), one clock offset per node, and its
// rates those of its counts.
func (v *validator) distributed(path string, r *DistributedResult) {
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
