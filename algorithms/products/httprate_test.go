package products_test

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/go-chi/httprate"

	"ratebench/algorithms"
	"ratebench/algorithms/products"
)

// Each of httprate's deviations, alone, changes a decision of its twin,
// the counter, on a timeline worked out from limiter.go; turned off, the
// timeline is the twin's again.
func TestHTTPRateEachDeviationAloneChangesADecision(t *testing.T) {
	s := int64(time.Second)
	for _, c := range []struct {
		name, rule, spec string
		reqs             [][2]int64
		twin, product    string
	}{
		// Four requests in the window before, then ten at 54 s into the
		// next: the counter's estimate is 4*6/60 = 0.4 plus those counted
		// so far, so it admits nine (9.4 + 1 > 10); rounded, 9.4 is 9 and
		// the tenth is admitted.
		{"round", "10/1m", "httprate:without=float",
			[][2]int64{{0, 1}, {s, 1}, {2 * s, 1}, {3 * s, 1}, {114 * s, 1}, {114 * s, 1}, {114 * s, 1}, {114 * s, 1}, {114 * s, 1},
				{114 * s, 1}, {114 * s, 1}, {114 * s, 1}, {114 * s, 1}, {114 * s, 1}},
			"AAAAAAAAAAAAAR", "AAAAAAAAAAAAAA"},
		// A cost of 3 in the window before, 1,999,998 in the next, then
		// one request when 3*(W-e)/W = 1 + 5e-11: exactly, 2,000,000 +
		// 5e-11 > L refuses it; in float64 the estimate 1,999,999 + 5e-11
		// rounds to 1,999,999 and 2,000,000 <= L admits it.
		{"float", "2000000/1m", "httprate:without=round",
			[][2]int64{{0, 3}, {90 * s, 1999998}, {60*s + 60*s - 20*s - 1, 1}},
			"AAR", "AAA"},
		// Windows from 30 s: requests at 10 s and 20 s fall in the window
		// before the one of 85 s, weighted 5/60; on the epoch's windows
		// they are in the window before 85 s's too, but weighted 35/60.
		{"offset", "2/1m", "httprate:offset=30s:without=round:without=float",
			[][2]int64{{10 * s, 1}, {20 * s, 1}, {85 * s, 1}},
			"AAR", "AAA"},
	} {
		r, err := algorithms.ParseRule(c.rule)
		if err != nil {
			t.Fatal(err)
		}
		checkDeviation(t, func(spec string) string { return costTimeline(t, spec, r, c.reqs...) }, "counter", c.spec, c.name, c.twin, c.product)
	}
}

// The full model on the rounding timelines: rounding and float64 together
// admit what each admits alone there; and a half rounds up, as
// math.Round: one request in the window before and two at 30 s into the
// next, under 2/1m, estimate 0.5 then 1.5, rounded 1 then 2: the third is
// refused (rounded down it would be admitted).
func TestHTTPRateFullModel(t *testing.T) {
	s := int64(time.Second)
	r, _ := algorithms.ParseRule("2000000/1m")
	if got := costTimeline(t, "httprate", r, [2]int64{0, 3}, [2]int64{90 * s, 1999998}, [2]int64{100*s - 1, 1}); got != "AAA" {
		t.Errorf("httprate decides %s, want AAA", got)
	}
	r, _ = algorithms.ParseRule("2/1m")
	for _, spec := range []string{"httprate", "httprate:without=float"} {
		if got := costTimeline(t, spec, r, [2]int64{0, 1}, [2]int64{90 * s, 1}, [2]int64{90 * s, 1}); got != "AAR" {
			t.Errorf("%s decides %s on a half, want AAR", spec, got)
		}
	}
}

// The spec: offset=D shifts the windows (0 <= D < W) and is part of the
// name; anything else is refused, naming what to give.
func TestHTTPRateSpecs(t *testing.T) {
	r, _ := algorithms.ParseRule("10/1m")
	checkSpecs(t, r, map[string]string{
		"httprate":                          "httprate",
		"httprate:offset=30s":               "httprate:offset=30s",
		"httprate:offset=0s":                "httprate",
		"httprate:offset=30s:without=round": "httprate:offset=30s:without=round",
	}, []string{"httprate:", "httprate:offset=1m", "httprate:offset=-1s", "httprate:burst=3", "httprate:offset=x"}, "httprate")
	h, _ := products.NewHTTPRate(r, "")
	if len(h.Deviations()) != 2 {
		t.Errorf("httprate without an offset has deviations %v, want round and float", h.Deviations())
	}
}

// The model decides as the real go-chi/httprate v0.16.1, request by
// request, driven by the trace's clock: in a testing/synctest bubble
// time.Now is the bubble's fake clock, which sleeping moves to each
// request's instant exactly. The limiter is made at the bubble's start,
// 2000-01-01T00:00:00Z, which starts its windows there (its windowOffset):
// the model is given that shift from the epoch's multiples of W (5 s for a
// window of 7 s). Costs go in as httprate.WithIncrement.
func TestHTTPRateMatchesModule(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 1))
	for _, rule := range []string{"5/30s", "10/1m", "7/7s", "100/1m"} {
		r, err := algorithms.ParseRule(rule)
		if err != nil {
			t.Fatal(err)
		}
		trace := poissonish(rng, r, 6, 3000)
		slices.SortStableFunc(trace, func(a, b req) int { return cmp.Compare(a.T, b.T) })
		synctest.Test(t, func(t *testing.T) {
			start := time.Now()
			rl := httprate.NewRateLimiter(int(r.L), time.Duration(r.W))
			offset := start.UnixNano() - algorithms.FloorDiv(start.UnixNano(), r.W)*r.W
			spec := "httprate"
			if offset != 0 {
				spec += ":offset=" + time.Duration(offset).String()
			}
			model, err := algorithms.New(spec, r)
			if err != nil {
				t.Fatal(err)
			}
			model.Grow(8)
			admitted := 0
			for i, q := range trace {
				at := start.Add(time.Duration(q.T - trace[0].T))
				time.Sleep(time.Until(at))
				req := httptest.NewRequest(http.MethodGet, "/", nil)
				req = req.WithContext(httprate.WithIncrement(req.Context(), int(q.Cost)))
				real := !rl.OnLimit(httptest.NewRecorder(), req, fmt.Sprint("k", q.Key))
				tm := start.UnixNano() + q.T - trace[0].T
				got := model.Decide(int32(q.Key), tm, q.Cost)
				if got {
					model.Record(int32(q.Key), tm, q.Cost)
					admitted++
				}
				if got != real {
					t.Fatalf("%s, request %d (key %d, %s after the start, cost %d): the model admits %v, httprate %v", rule, i, q.Key, time.Duration(q.T-trace[0].T), q.Cost, got, real)
				}
			}
			if admitted == 0 || admitted == len(trace) {
				t.Fatalf("%s: %d of %d admitted: the trace does not exercise the limit", rule, admitted, len(trace))
			}
		})
	}
}
