package clients

import (
	"cmp"
	"encoding/json"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"ratebench/algorithms"
	"ratebench/summary"
)

// req is one trace request.
type req struct {
	key     string
	t, cost int64
}

const sec = int64(1e9)

// bursty generates keys on/off clients over dur ns: each alternates
// exponential on periods (mean on ns), sending Poisson requests at rate per
// second, and off periods (mean off ns), starting at a random phase; costs
// are uniform in [1, maxCost]. The trace is in time order (ties by key).
func bursty(seed uint64, keys int, dur, on, off int64, rate float64, maxCost int64) []req {
	var out []req
	for k := range keys {
		rng := rand.New(rand.NewPCG(seed, uint64(k)))
		name := "client-" + strconv.Itoa(k)
		t := float64(rng.Int64N(on + off))
		for t < float64(dur) {
			end := t + rng.ExpFloat64()*float64(on)
			for {
				t += rng.ExpFloat64() * 1e9 / rate
				if t >= end || t >= float64(dur) {
					break
				}
				out = append(out, req{name, int64(t), 1 + rng.Int64N(maxCost)})
			}
			t = end + rng.ExpFloat64()*float64(off)
		}
	}
	slices.SortStableFunc(out, func(a, b req) int {
		if c := cmp.Compare(a.t, b.t); c != 0 {
			return c
		}
		return cmp.Compare(a.key, b.key)
	})
	return out
}

// run replays trace through a new Sim and returns its finished Result.
func run(tb testing.TB, spec string, rule algorithms.Rule, policy string, seed uint64, trace []req) summary.ClientsResult {
	tb.Helper()
	s := newSim(tb, spec, rule, policy, seed)
	feed(tb, s, trace)
	s.Finish()
	return s.Result()
}

func newSim(tb testing.TB, spec string, rule algorithms.Rule, policy string, seed uint64) *Sim {
	tb.Helper()
	p, err := ParsePolicy(policy)
	if err != nil {
		tb.Fatal(err)
	}
	s, err := New(spec, rule, p, seed)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

func feed(tb testing.TB, s *Sim, trace []req) {
	tb.Helper()
	for _, q := range trace {
		if err := s.Add([]byte(q.key), q.t, q.cost); err != nil {
			tb.Fatal(err)
		}
	}
}

func mustJSON(tb testing.TB, v any) string {
	tb.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

// checkIdentities fails unless r's counts are consistent.
func checkIdentities(t *testing.T, what string, r summary.ClientsResult) {
	t.Helper()
	if r.Sent != r.Requests+r.Retries {
		t.Errorf("%s: sent %d != requests %d + retries %d", what, r.Sent, r.Requests, r.Retries)
	}
	if r.Requests != r.Admitted+r.GaveUp+r.Pending {
		t.Errorf("%s: requests %d != admitted %d + gave up %d + pending %d", what, r.Requests, r.Admitted, r.GaveUp, r.Pending)
	}
	if r.Rejections != r.Sent-r.Admitted {
		t.Errorf("%s: rejections %d != sent %d - admitted %d", what, r.Rejections, r.Sent, r.Admitted)
	}
	if r.RejectionsOriginal != r.Requests-r.AdmittedFirstTry {
		t.Errorf("%s: original rejections %d != requests %d - admitted first try %d", what, r.RejectionsOriginal, r.Requests, r.AdmittedFirstTry)
	}
	if r.TimeToSuccess.Samples != r.Admitted {
		t.Errorf("%s: %d times to success for %d admitted", what, r.TimeToSuccess.Samples, r.Admitted)
	}
	if r.Retried > r.RejectionsOriginal || r.FirstRetryAdmitted > r.Retried || r.GaveUpNoRetryAfter > r.GaveUp {
		t.Errorf("%s: inconsistent retried %d, first retry admitted %d, gave up %d (%d without Retry-After), original rejections %d",
			what, r.Retried, r.FirstRetryAdmitted, r.GaveUp, r.GaveUpNoRetryAfter, r.RejectionsOriginal)
	}
	if r.Requests > 0 && r.Amplification != float64(r.Sent)/float64(r.Requests) {
		t.Errorf("%s: amplification %v", what, r.Amplification)
	}
	if math.IsNaN(r.TimeToSuccess.MeanNS) {
		t.Errorf("%s: NaN mean", what)
	}
}
