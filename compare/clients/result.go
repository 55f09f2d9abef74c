package clients

import "ratebench/summary"

// Result returns what the Sim measured so far. Call Finish first, or the
// originals whose retries are still pending count as Pending.
func (s *Sim) Result() summary.ClientsResult {
	c := s.r
	r := summary.ClientsResult{
		Algorithm:          s.spec,
		Rule:               s.rule.String(),
		Policy:             s.policy.String(),
		Seed:               s.seed,
		Keys:               int64(len(s.keys)),
		Requests:           c.requests,
		Sent:               c.sent,
		Retries:            c.retries,
		Rejections:         c.rejections,
		RejectionsOriginal: c.rejectionsOriginal,
		BaselineRejections: c.baselineRejections,
		Retried:            c.retried,
		FirstRetryAdmitted: c.firstRetryAdmitted,
		GaveUp:             c.gaveUp,
		GaveUpNoRetryAfter: c.gaveUpNoRetryAfter,
		Pending:            c.pending,
		Admitted:           c.admitted,
		AdmittedFirstTry:   c.admittedFirstTry,
	}
	r.TimeToSuccessHist.Merge(s.tts) // a copy: later Adds do not change it
	r.Derive()
	return r
}
