package compare

import (
	"testing"
	"time"

	"ratebench/algorithms"
)

// Ten requests at 2262-04-11T23:00:00Z under 5/1h: five drain by 24:00,
// after the last int64 nanosecond (23:47:16.85), yet GCRA and the queue
// admit five, as the log and the token bucket, and tell the refused the
// same Retry-After: 12 minutes, when a token is back.
func TestEndOfTimeDecidesAsToken(t *testing.T) {
	t.Parallel()
	at := time.Date(2262, 4, 11, 23, 0, 0, 0, time.UTC).UnixNano()
	cfg := Config{Rules: []algorithms.Rule{mustRule(t, "5/1h")}, Algorithms: []string{"log", "token", "gcra", "leaky"}, Modes: []Mode{Independent}}
	s := replay(t, cfg, atRepeat("k", at, 10))
	want := 12 * int64(time.Minute)
	for _, alg := range []string{"log", "token", "gcra", "leaky"} {
		r := findRun(t, s, "independent", alg)
		if r.Admitted != 5 || r.Rejected != 5 || r.Disagree != 0 {
			t.Errorf("%s: %d admitted, %d rejected, %d disagreements; want 5, 5, 0", alg, r.Admitted, r.Rejected, r.Disagree)
		}
		if alg == "log" {
			continue
		}
		c := r.Client
		if c == nil || c.RetryAfter == nil || c.Never != 0 || c.RetryAfter.Samples != 5 || c.RetryAfter.MaxNS != want || c.RetryAfter.P50NS != want {
			t.Errorf("%s: Retry-After %+v, want five of %d ns", alg, c, want)
		}
	}
}
