package clients

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"ratebench/algorithms"
	"ratebench/summary"
)

var policies = []string{"immediate", "backoff", "honor"}

// allSpecs is every algorithm the tests run: the default set, the shaper and
// the peer library.
var allSpecs = append(slices.Clone(algorithms.DefaultSpecs), "leaky", "xrate")

func TestNeverLimited(t *testing.T) {
	rule := algorithms.Rule{L: 1000, W: sec}
	trace := bursty(1, 40, 120*sec, 5*sec, 10*sec, 20, 3) // at most a few dozen per second per key
	for _, spec := range allSpecs {
		for _, p := range policies {
			r := run(t, spec, rule, p, 7, trace)
			what := spec + " " + p
			checkIdentities(t, what, r)
			if r.Requests != int64(len(trace)) || r.Requests == 0 {
				t.Fatalf("%s: %d requests, trace has %d", what, r.Requests, len(trace))
			}
			if r.Amplification != 1 || r.Retries != 0 || r.Rejections != 0 || r.GaveUp != 0 || r.ExtraRejections != 0 ||
				r.Admitted != r.Requests || r.AdmittedFirstTry != r.Requests || r.TimeToSuccess.MaxNS != 0 || r.Keys != 40 {
				t.Errorf("%s: a limit never reached changed something: %+v", what, r)
			}
		}
	}
}

// quietRejections builds, for each key, requests of total cost at most L
// spread over two windows (admitted by every algorithm) and then one last
// request that may not fit: the key's only possible refusal, after which
// the key sends nothing more. Every other key sends exactly L early in a
// fixed window, so that its last request is refused by every algorithm.
// The trace is grouped by key.
func quietRejections(seed uint64, keys int, rule algorithms.Rule) []req {
	rng := rand.New(rand.NewPCG(seed, 99))
	var out []req
	for k := range keys {
		name := "q" + strconv.Itoa(k)
		o := rng.Int64N(50 * rule.W)
		var ts []int64
		total := int64(0)
		if k%2 == 0 {
			// Exactly L in unit requests early in one fixed window: the last
			// request is refused by every algorithm, counter-lt included.
			o -= o % rule.W
			for range rule.L {
				ts = append(ts, o+rng.Int64N(rule.W/4))
			}
			slices.Sort(ts)
			for _, t := range ts {
				out = append(out, req{name, t, 1})
			}
			total = rule.L
		} else {
			for range rng.IntN(int(rule.L) + 1) {
				ts = append(ts, o+rng.Int64N(2*rule.W))
			}
			slices.Sort(ts)
			for _, t := range ts {
				if total == rule.L {
					break
				}
				c := 1 + rng.Int64N(min(rule.L-total, 3))
				total += c
				out = append(out, req{name, t, c})
			}
		}
		last := o + 2*rule.W + rng.Int64N(rule.W)
		if len(ts) > 0 {
			last = ts[len(ts)-1] + rng.Int64N(rule.W/2)
		}
		c := min(rule.L, rule.L-total+1+rng.Int64N(rule.L))
		out = append(out, req{name, last, c})
	}
	return out
}

// TestHonorFirstRetry checks that under honor a refused request of a key
// that sends nothing else before its retry is admitted at that retry, for
// every algorithm that can say when to retry, and that the retry is never
// sent before the exact earliest admission time, rounded up as HTTP's
// Retry-After delay-seconds is (or to the nanosecond with round=1ns).
func TestHonorFirstRetry(t *testing.T) {
	specs := append(slices.Clone(algorithms.DefaultSpecs), "leaky", "buckets:3", "buckets:7")
	for _, rule := range []algorithms.Rule{{L: 5, W: 10 * sec}, {L: 3, W: 700 * 1e6}, {L: 7, W: 61*sec + 1}} {
		trace := quietRejections(uint64(rule.W), 300, rule)
		for _, spec := range specs {
			for _, policy := range []string{"honor", "honor:round=1ns"} {
				what := fmt.Sprintf("%s %s %s", spec, rule, policy)
				s := newSim(t, spec, rule, policy, 1)
				round := s.policy.Round
				bad := 0
				s.onRetry = func(id int32, a retry, r, next int64) {
					if a.n != 0 || r <= a.at || next < r || (next-a.at)%round != 0 || next-round >= r {
						if bad++; bad < 5 {
							t.Errorf("%s: refused at %d (retry %d), exact Retry-After %d, retried at %d", what, a.at, a.n, r, next)
						}
					}
				}
				feed(t, s, trace)
				s.Finish()
				r := s.Result()
				checkIdentities(t, what, r)
				if r.RejectionsOriginal < 50 {
					t.Fatalf("%s: only %d refusals: the trace does not exercise Retry-After", what, r.RejectionsOriginal)
				}
				if r.Retried != r.RejectionsOriginal || r.FirstRetryAdmitted != r.Retried || r.Retries != r.Retried ||
					r.GaveUp != 0 || r.Admitted != r.Requests {
					t.Errorf("%s: %d refused, %d retried, %d retries, %d admitted at the first retry, %d gave up",
						what, r.RejectionsOriginal, r.Retried, r.Retries, r.FirstRetryAdmitted, r.GaveUp)
				}
			}
		}
	}
}

// TestHonorWithoutRetryAfter: the peer library's Retry-After (its own
// float arithmetic, found by search) lets honoring clients retry; a
// request no wait admits makes an honoring client give up at once.
func TestHonorWithoutRetryAfter(t *testing.T) {
	rule := algorithms.Rule{L: 5, W: 30 * sec}
	trace := bursty(3, 50, 600*sec, 10*sec, 30*sec, 2, 1)
	r := run(t, "xrate", rule, "honor", 1, trace)
	checkIdentities(t, "xrate honor", r)
	if r.RejectionsOriginal == 0 || r.Retries == 0 || r.GaveUpNoRetryAfter != 0 {
		t.Errorf("xrate honor: %d refused, %d retries, %d gave up (%d without Retry-After)", r.RejectionsOriginal, r.Retries, r.GaveUp, r.GaveUpNoRetryAfter)
	}
	// A cost above the limit can never be admitted: no Retry-After either.
	s := newSim(t, "log", rule, "honor", 1)
	if err := s.Add([]byte("big"), 0, 6); err != nil {
		t.Fatal(err)
	}
	s.Finish()
	if r := s.Result(); r.GaveUpNoRetryAfter != 1 || r.Retries != 0 {
		t.Errorf("cost above L under honor: %+v", r)
	}
}

// hammer is one key sending n requests every gap ns from 0.
func hammer(n int, gap int64) []req {
	var out []req
	for i := range n {
		out = append(out, req{"hammer", int64(i) * gap, 1})
	}
	return out
}

func TestImmediateHammer(t *testing.T) {
	// 20 requests in 2 s against 5/30s: the first 5 pass, the other 15 are
	// each sent 1+10 times 10 ms apart, all refused, and given up.
	r := run(t, "log", algorithms.Rule{L: 5, W: 30 * sec}, "immediate", 1, hammer(20, sec/10))
	checkIdentities(t, "log hammer", r)
	type counts struct{ req, sent, retries, rej, rejOrig, base, retried, gaveUp, adm, first int64 }
	want := counts{20, 170, 150, 165, 15, 15, 15, 15, 5, 5}
	got := counts{r.Requests, r.Sent, r.Retries, r.Rejections, r.RejectionsOriginal, r.BaselineRejections,
		r.Retried, r.GaveUp, r.Admitted, r.AdmittedFirstTry}
	if r.Amplification != 8.5 {
		t.Errorf("log hammer: amplification %v, want 8.5", r.Amplification)
	}
	if got != want {
		t.Errorf("log hammer:\n got %+v\nwant %+v", got, want)
	}

	// Against a token bucket that refills during the retry loop, the
	// retries take the tokens from later originals: more first attempts are
	// refused than in the open loop, and more retries amplify more.
	// (110 ms, not 100: at 100 ms every token comes back exactly when an
	// original arrives, and the retries never see it first.)
	rule := algorithms.Rule{L: 5, W: sec}
	trace := hammer(100, 110*sec/1000)
	var prev summary.ClientsResult
	for _, max := range []int{0, 2, 10} {
		r := run(t, "token", rule, "immediate:max="+strconv.Itoa(max), 1, trace)
		what := fmt.Sprintf("token hammer max=%d", max)
		checkIdentities(t, what, r)
		if max == 0 {
			if r.Amplification != 1 || r.ExtraRejections != 0 || r.GaveUp != r.BaselineRejections {
				t.Errorf("%s: the open loop differs from the baseline: %+v", what, r)
			}
		} else {
			if r.Amplification <= prev.Amplification || r.ExtraRejections <= 0 || r.GaveUp == 0 {
				t.Errorf("%s: amplification %v (%v with fewer retries), extra rejections %d, gave up %d",
					what, r.Amplification, prev.Amplification, r.ExtraRejections, r.GaveUp)
			}
		}
		// An original given up was sent exactly 1+max times.
		if r.Sent < r.Admitted+r.GaveUp*int64(1+max) {
			t.Errorf("%s: %d sent, fewer than %d admitted + %d gave up * %d", what, r.Sent, r.Admitted, r.GaveUp, 1+max)
		}
		prev = r
	}
}

func TestBackoffJitter(t *testing.T) {
	// 1/1h: after the first request every attempt is refused, so every
	// original runs its whole backoff schedule.
	rule := algorithms.Rule{L: 1, W: 3600 * sec}
	p := "backoff:base=100ms,cap=1s,max=6"
	s := newSim(t, "log", rule, p, 5)
	if got := s.Result().Policy; got != "backoff:base=100ms,cap=1s,max=6" {
		t.Errorf("policy %q", got)
	}
	spans := []int64{1e8, 2e8, 4e8, 8e8, 1e9, 1e9}
	sums := make([]float64, 6)
	maxs := make([]int64, 6)
	n := 0
	s.onRetry = func(_ int32, a retry, _, next int64) {
		w := next - a.at
		if w < 0 || w >= spans[a.n] {
			t.Errorf("retry %d waits %d, outside [0, %d)", a.n+1, w, spans[a.n])
		}
		sums[a.n] += float64(w)
		maxs[a.n] = max(maxs[a.n], w)
		n++
	}
	const originals = 3000
	feed(t, s, hammer(originals, sec))
	s.Finish()
	r := s.Result()
	checkIdentities(t, "backoff", r)
	if n != 6*(originals-1) || r.GaveUp != originals-1 || r.Sent != 1+7*(originals-1) {
		t.Errorf("%d retries scheduled, %+v", n, r)
	}
	for k, span := range spans {
		mean := sums[k] / (originals - 1)
		if d := mean/float64(span) - 0.5; d > 0.03 || d < -0.03 {
			t.Errorf("retry %d: mean wait %.0f, want about %d", k+1, mean, span/2)
		}
		if maxs[k] < span*9/10 {
			t.Errorf("retry %d: longest wait %d of [0, %d)", k+1, maxs[k], span)
		}
	}
}

// TestDeterminismAndMerge: the same inputs give the same Result; the order
// in which keys are interleaved does not matter; and merging the Results of
// any partition of the keys gives, byte for byte, one Sim's Result.
func TestDeterminismAndMerge(t *testing.T) {
	rule := algorithms.Rule{L: 5, W: 30 * sec}
	trace := bursty(11, 60, 400*sec, 10*sec, 40*sec, 1, 2)
	byKey := slices.Clone(trace)
	slices.SortStableFunc(byKey, func(a, b req) int { return strings.Compare(b.key, a.key) })
	for _, spec := range []string{"log", "counter", "fixed", "token", "leaky", "buckets:4"} {
		for _, p := range append(policies, "backoff:base=1s,max=4") {
			what := spec + " " + p
			whole := run(t, spec, rule, p, 42, trace)
			checkIdentities(t, what, whole)
			want := mustJSON(t, whole)
			if whole.Retries == 0 || whole.Keys != 60 {
				t.Fatalf("%s: %d retries over %d keys: the trace does not exercise retries", what, whole.Retries, whole.Keys)
			}
			if got := mustJSON(t, run(t, spec, rule, p, 42, trace)); got != want {
				t.Fatalf("%s: two runs differ:\n%s\n%s", what, got, want)
			}
			if got := mustJSON(t, run(t, spec, rule, p, 42, byKey)); got != want {
				t.Fatalf("%s: key by key differs from time order:\n%s\n%s", what, got, want)
			}
			for part := range 3 {
				rng := rand.New(rand.NewPCG(uint64(part), 0))
				n := part + 2
				of := map[string]int{}
				parts := make([][]req, n)
				for _, q := range trace {
					i, ok := of[q.key]
					if !ok {
						i = rng.IntN(n)
						of[q.key] = i
					}
					parts[i] = append(parts[i], q)
				}
				var rs []summary.ClientsResult
				for _, pt := range parts {
					rs = append(rs, run(t, spec, rule, p, 42, pt))
				}
				m, err := summary.MergeClientsResults(rs)
				if err != nil {
					t.Fatal(err)
				}
				if got := mustJSON(t, m); got != want {
					t.Fatalf("%s: merge of %d parts differs:\n%s\n%s", what, n, got, want)
				}
			}
		}
		other := run(t, spec, rule, "backoff", 43, trace)
		if mustJSON(t, other) == mustJSON(t, run(t, spec, rule, "backoff", 42, trace)) {
			t.Errorf("%s backoff: seeds 42 and 43 give the same result", spec)
		}
	}
	a := run(t, "log", rule, "immediate", 1, trace[:10])
	b := run(t, "log", rule, "honor", 1, trace[10:])
	if _, err := summary.MergeClientsResults([]summary.ClientsResult{a, b}); err == nil {
		t.Error("merged results of two policies")
	}
}

func TestAddErrors(t *testing.T) {
	s := newSim(t, "log", algorithms.Rule{L: 5, W: sec}, "immediate", 1)
	if err := s.Add([]byte("k"), 10, 1); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		t, cost int64
	}{{9, 1}, {-1, 1}, {20, 0}, {20, algorithms.MaxCost + 1}} {
		if err := s.Add([]byte("k"), c.t, c.cost); err == nil {
			t.Errorf("Add(k, %d, %d) accepted", c.t, c.cost)
		}
	}
	if _, err := New("nope", algorithms.Rule{L: 5, W: sec}, Policy{Kind: Honor}, 1); err == nil {
		t.Error("unknown algorithm accepted")
	}
	if _, err := New("log", algorithms.Rule{L: 5, W: sec}, Policy{Kind: "wait"}, 1); err == nil {
		t.Error("unknown policy accepted")
	}
}

// TestPendingBeforeFinish: retries not yet sent are pending, not given up.
func TestPendingBeforeFinish(t *testing.T) {
	s := newSim(t, "log", algorithms.Rule{L: 1, W: sec}, "honor", 1)
	feed(t, s, hammer(3, 1))
	r := s.Result()
	checkIdentities(t, "before Finish", r)
	if r.Pending != 2 || r.Retries != 0 {
		t.Errorf("before Finish: %+v", r)
	}
	s.Finish()
	r = s.Result()
	checkIdentities(t, "after Finish", r)
	// The request at 1 ns is told 1 s - 1 ns, rounded up to 1 s, and is
	// admitted at 1 s + 1 ns; the one at 2 ns retries at 1 s + 2 ns, is
	// refused (behind the first retry), told 1 s - 1 ns again and admitted
	// at 2 s + 2 ns, 2 s after it arrived.
	if r.Pending != 0 || r.Admitted != 3 || r.FirstRetryAdmitted != 1 || r.Retries != 3 || r.TimeToSuccess.MaxNS != 2*sec ||
		r.TimeToSuccessHist.SumNS != [2]uint64{0, 3 * uint64(sec)} {
		t.Errorf("after Finish: %+v", r)
	}
}

// TestFigures replays a bursty trace (5/30s, 200 keys, each on for 5 s on
// average at 1 req/s, then off for 60 s on average, for 30 min) for four
// algorithms and the three policies, checks the result identities and what
// the policies must show on it, and logs the figures (go test -v -run
// Figures).
func TestFigures(t *testing.T) {
	rule := algorithms.Rule{L: 5, W: 30 * sec}
	trace := bursty(2024, 200, 1800*sec, 5*sec, 60*sec, 1, 1)
	t.Logf("trace: %d requests, 200 keys, rule %s", len(trace), rule)
	t.Logf("%-8s %-32s %6s %6s %6s %7s %7s %7s %7s %8s %8s %8s", "algo", "policy", "ampl", "open", "extra",
		"retried", "1stRtry", "gaveUp", "noHint", "tts p50", "tts p99", "tts max")
	for _, spec := range []string{"counter", "fixed", "token", "log"} {
		rs := map[string]summary.ClientsResult{}
		for _, p := range policies {
			r := run(t, spec, rule, p, 1, trace)
			checkIdentities(t, spec+" "+p, r)
			rs[p] = r
			t.Logf("%-8s %-32s %6.3f %6d %6d %7d %7d %7d %7d %7.2fs %7.2fs %7.2fs", spec, r.Policy, r.Amplification,
				r.BaselineRejections, r.ExtraRejections, r.Retried, r.FirstRetryAdmitted, r.GaveUp, r.GaveUpNoRetryAfter,
				float64(r.TimeToSuccess.P50NS)/1e9, float64(r.TimeToSuccess.P99NS)/1e9, float64(r.TimeToSuccess.MaxNS)/1e9)
			if r.Pending != 0 || r.Retries == 0 || r.ExtraRejections < 0 || r.GaveUpNoRetryAfter != 0 {
				t.Errorf("%s %s: %d pending, %d retries, %d extra rejections, %d gave up without Retry-After",
					spec, p, r.Pending, r.Retries, r.ExtraRejections, r.GaveUpNoRetryAfter)
			}
		}
		im, bo, ho := rs["immediate"], rs["backoff"], rs["honor"]
		// A retry loop of 10 x 10 ms against a 30 s window: almost every
		// refused original gives up, within 100 ms if it gets through.
		if im.TimeToSuccess.MaxNS > 100e6 || im.GaveUp < im.RejectionsOriginal*9/10 {
			t.Errorf("%s immediate: time to success up to %d ns, %d of %d refused gave up", spec, im.TimeToSuccess.MaxNS, im.GaveUp, im.RejectionsOriginal)
		}
		// Waiting as told costs fewer attempts and fewer give-ups than
		// retrying blind.
		if !(ho.Amplification < bo.Amplification && ho.Amplification < im.Amplification && ho.GaveUp < bo.GaveUp && bo.GaveUp < im.GaveUp) {
			t.Errorf("%s: amplification immediate %v, backoff %v, honor %v; gave up %d, %d, %d",
				spec, im.Amplification, bo.Amplification, ho.Amplification, im.GaveUp, bo.GaveUp, ho.GaveUp)
		}
	}
}
