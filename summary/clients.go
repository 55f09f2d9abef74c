package summary

import (
	"fmt"

	"ratebench/algorithms"
)

// ClientsResult is what a closed-loop replay (clients.Sim) measured:
// counts of requests (not cost), over the originals (the trace's requests)
// and over every attempt sent. JSON field names are snake_case. The identities
//
//	sent = requests + retries
//	requests = admitted + gave_up + pending
//	rejections = sent - admitted
//
// always hold.
type ClientsResult struct {
	Algorithm string `json:"algorithm"` // canonical spec
	Rule      string `json:"rule"`      // L/W
	Policy    string `json:"policy"`    // canonical policy (clients.Policy.String)
	Seed      uint64 `json:"seed"`      // seeds the backoff jitter
	Keys      int64  `json:"keys"`

	// Requests is the number of originals (the trace's requests), Sent the
	// number of attempts the limiter saw (originals and retries), and
	// Amplification = Sent/Requests (0 when there is no request).
	Requests      int64   `json:"requests"`
	Sent          int64   `json:"sent"`
	Amplification float64 `json:"amplification"`
	Retries       int64   `json:"retries"`

	// Rejections counts every refused attempt; RejectionsOriginal the
	// originals refused at their first attempt. BaselineRejections is what
	// the same limiter refuses of the trace alone, without retries (the open
	// loop), and ExtraRejections = RejectionsOriginal - BaselineRejections:
	// the first attempts refused because retries took their capacity
	// (negative if retries, by shifting the limiter's state, let more
	// through).
	Rejections         int64 `json:"rejections"`
	RejectionsOriginal int64 `json:"rejections_original"`
	BaselineRejections int64 `json:"baseline_rejections"`
	ExtraRejections    int64 `json:"extra_rejections"`

	// Retried counts the originals retried at least once, and
	// FirstRetryAdmitted those admitted at their first retry: under honor,
	// all of those retried whose key sent nothing else in between.
	Retried            int64 `json:"retried"`
	FirstRetryAdmitted int64 `json:"first_retry_admitted"`

	// GaveUp counts the originals never admitted: refused at every attempt
	// the policy allows, or, under honor, refused without a usable
	// Retry-After (GaveUpNoRetryAfter of them: the limiter has none, or the
	// request can never be admitted). Pending counts those still awaiting a
	// retry: 0 after Finish.
	GaveUp             int64 `json:"gave_up"`
	GaveUpNoRetryAfter int64 `json:"gave_up_no_retry_after"`
	Pending            int64 `json:"pending"`

	// Admitted counts the originals eventually admitted, AdmittedFirstTry
	// those admitted at their first attempt.
	Admitted         int64 `json:"admitted"`
	AdmittedFirstTry int64 `json:"admitted_first_try"`

	// TimeToSuccess is the time from an original's arrival to the admission
	// of the attempt that got through (not to the end of a shaper's delay),
	// over the admitted originals (0 for those admitted at once), and
	// TimeToSuccessHist the histogram it is computed from.
	TimeToSuccess     DurationSummary `json:"time_to_success"`
	TimeToSuccessHist Durations       `json:"time_to_success_hist"`
}

// Derive fills the fields computed from the others.
func (r *ClientsResult) Derive() {
	r.Amplification = 0
	if r.Requests > 0 {
		r.Amplification = float64(r.Sent) / float64(r.Requests)
	}
	r.ExtraRejections = r.RejectionsOriginal - r.BaselineRejections
	r.TimeToSuccess = r.TimeToSuccessHist.Summary()
}

// MergeClientsResults combines the results of closed-loop replays over
// disjoint sets of keys of one trace, run with the same algorithm, rule,
// policy and seed, into exactly the result of one over all those keys:
// every field is a sum over keys, or derived from sums (amplification,
// extra rejections, the time-to-success summary from the merged
// histogram). A sum that would leave int64 is an error naming its field.
func MergeClientsResults(rs []ClientsResult) (ClientsResult, error) {
	if len(rs) == 0 {
		return ClientsResult{}, fmt.Errorf("clients: merge: no result")
	}
	f := rs[0]
	out := ClientsResult{Algorithm: f.Algorithm, Rule: f.Rule, Policy: f.Policy, Seed: f.Seed}
	for i, r := range rs {
		if r.Algorithm != f.Algorithm || r.Rule != f.Rule || r.Policy != f.Policy || r.Seed != f.Seed {
			return ClientsResult{}, fmt.Errorf("clients: merge: result %d is %s %s %s seed %d, result 0 %s %s %s seed %d",
				i, r.Algorithm, r.Rule, r.Policy, r.Seed, f.Algorithm, f.Rule, f.Policy, f.Seed)
		}
		if err := r.TimeToSuccessHist.Validate(); err != nil {
			return ClientsResult{}, fmt.Errorf("clients: merge: result %d: time to success: %w", i, err)
		}
		var add sums
		add.add("keys", &out.Keys, r.Keys)
		add.add("requests", &out.Requests, r.Requests)
		add.add("sent", &out.Sent, r.Sent)
		add.add("retries", &out.Retries, r.Retries)
		add.add("rejections", &out.Rejections, r.Rejections)
		add.add("rejections_original", &out.RejectionsOriginal, r.RejectionsOriginal)
		add.add("baseline_rejections", &out.BaselineRejections, r.BaselineRejections)
		add.add("retried", &out.Retried, r.Retried)
		add.add("first_retry_admitted", &out.FirstRetryAdmitted, r.FirstRetryAdmitted)
		add.add("gave_up", &out.GaveUp, r.GaveUp)
		add.add("gave_up_no_retry_after", &out.GaveUpNoRetryAfter, r.GaveUpNoRetryAfter)
		add.add("pending", &out.Pending, r.Pending)
		add.add("admitted", &out.Admitted, r.Admitted)
		add.add("admitted_first_try", &out.AdmittedFirstTry, r.AdmittedFirstTry)
		n := out.TimeToSuccessHist.Samples
		add.add("time_to_success_hist.samples", &n, r.TimeToSuccessHist.Samples)
		if add.err != nil {
			return ClientsResult{}, fmt.Errorf("clients: merge: %w", add.err)
		}
		out.TimeToSuccessHist.Merge(r.TimeToSuccessHist)
	}
	out.Derive()
	return out, nil
}

// validate checks one closed-loop replay's result: counts non-negative,
// the identities its type states (sent = requests + retries, requests =
// admitted + gave_up + pending, rejections = sent - admitted), parts within
// their totals, and its derived figures those of its counts.
func (r *ClientsResult) validate(v *validator, path string) {
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
