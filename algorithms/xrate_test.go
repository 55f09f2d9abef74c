package algorithms_test

import (
	"math/big"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/time/rate"

	"ratebench/algorithms"
)

func newXRate(t *testing.T, spec string, r algorithms.Rule) *algorithms.XRate {
	t.Helper()
	l, err := algorithms.New(spec, r)
	if err != nil {
		t.Fatal(err)
	}
	x, ok := l.(*algorithms.XRate)
	if !ok {
		t.Fatalf("New(%q) = %T, want *XRate", spec, l)
	}
	return x
}

// libLimiters returns one rate.Limiter per key as a deployment builds them:
// rate.NewLimiter(L/W-in-seconds, B).
func libLimiters(r algorithms.Rule, b int64, keys int) []*rate.Limiter {
	out := make([]*rate.Limiter, keys)
	for i := range out {
		out[i] = rate.NewLimiter(rate.Limit(float64(r.L)/time.Duration(r.W).Seconds()), int(b))
	}
	return out
}

func TestXRateSpec(t *testing.T) {
	r := algorithms.Rule{L: 10, W: int64(time.Minute)}
	for spec, want := range map[string]string{"xrate": "xrate", " xrate:B=20": "xrate:B=20", "xrate:B=10": "xrate:B=10"} {
		x := newXRate(t, spec, r)
		if x.Name() != want {
			t.Errorf("New(%q).Name() = %q, want %q", spec, x.Name(), want)
		}
	}
	if c := newXRate(t, "xrate", r).Capacity(); c != 10 {
		t.Errorf("xrate capacity = %d, want L = 10", c)
	}
	if c := newXRate(t, "xrate:B=3", r).Capacity(); c != 3 {
		t.Errorf("xrate:B=3 capacity = %d, want 3", c)
	}
	if got, want := newXRate(t, "xrate", r).Limit(), rate.Limit(10.0/60); got != want {
		t.Errorf("limit = %v, want %v", got, want)
	}
	for _, bad := range []string{"xrate:B=0", "xrate:B=-1", "xrate:4", "xrate:B=x"} {
		if _, err := algorithms.New(bad, r); err == nil {
			t.Errorf("New(%q) accepted", bad)
		}
	}
	if _, err := algorithms.New("nope", r); err == nil || !strings.Contains(err.Error(), "xrate[:B=N]") {
		t.Errorf("unknown-algorithm error does not list xrate: %v", err)
	}
	if slices.Contains(algorithms.DefaultSpecs, "xrate") {
		t.Error("xrate is in DefaultSpecs")
	}
	found := false
	for _, c := range algorithms.Catalogue() {
		found = found || strings.HasPrefix(c.Spec, "xrate")
	}
	if !found {
		t.Error("xrate is not in the Catalogue")
	}
	x := newXRate(t, "xrate", r)
	x.Grow(3)
	if unsafe.Sizeof(uintptr(0)) == 8 && x.Bytes(2) != int64(unsafe.Sizeof(rate.Limiter{})) {
		t.Errorf("Bytes = %d, but a rate.Limiter is %d bytes", x.Bytes(2), unsafe.Sizeof(rate.Limiter{}))
	}
	if !x.FixedSize() || x.CountsRejected() {
		t.Errorf("FixedSize = %v, CountsRejected = %v; want true, false", x.FixedSize(), x.CountsRejected())
	}
}

// xrateRules mix rates that float64 represents exactly with ones it does
// not (3/7s, a window of 1s+3ns), small and large bursts.
var xrateRules = []struct {
	r    algorithms.Rule
	spec string
}{
	{algorithms.Rule{L: 5, W: int64(time.Second)}, "xrate"},
	{algorithms.Rule{L: 10, W: int64(time.Minute)}, "xrate:B=25"},
	{algorithms.Rule{L: 3, W: int64(7 * time.Second)}, "xrate"},
	{algorithms.Rule{L: 7, W: int64(time.Second) + 3}, "xrate:B=2"},
	{algorithms.Rule{L: 1_000_000, W: int64(24 * time.Hour)}, "xrate:B=50000"},
	{algorithms.Rule{L: 1, W: int64(time.Second)}, "xrate:B=8589934592"},
}

// TestXRateMatchesLibraryAllowN checks that Decide then Record (on admits)
// makes exactly the decisions of a rate.Limiter from rate.NewLimiter driven
// with AllowN, on random traces and on traces that seek the refill boundary.
func TestXRateMatchesLibraryAllowN(t *testing.T) {
	rng := rand.New(rand.NewPCG(71, 72))
	for _, c := range xrateRules {
		for gen, trace := range map[string][]req{
			"poissonish": poissonish(rng, c.r, 8, 4000),
			"edge":       edgeTrace(rng, c.r, 8, 4000, 1_700_000_000_000_000_000),
		} {
			x := newXRate(t, c.spec, c.r)
			x.Grow(8)
			lib := libLimiters(c.r, x.Capacity(), 8)
			admitted := 0
			for i, q := range trace {
				got := x.Decide(int32(q.Key), q.T, q.Cost)
				want := lib[q.Key].AllowN(time.Unix(0, q.T), int(q.Cost))
				if got != want {
					t.Fatalf("%s %v %s: request %d %+v: Decide = %v, AllowN = %v", c.spec, c.r, gen, i, q, got, want)
				}
				if got {
					x.Record(int32(q.Key), q.T, q.Cost)
					admitted++
				}
			}
			// B = 2^33 is out of reach of these traces' costs; the
			// boundary-seeking test drains it.
			if x.Capacity() <= algorithms.MaxCost && (admitted == 0 || admitted == len(trace)) {
				t.Fatalf("%s %v %s: admitted %d of %d: the trace does not exercise the limit", c.spec, c.r, gen, admitted, len(trace))
			}
		}
	}
}

// msTrace is a trace at whole-millisecond timestamps, keys near their limit.
func msTrace(rng *rand.Rand, r algorithms.Rule, keys, n int) []req {
	tr := poissonish(rng, r, keys, n)
	last := make([]int64, keys)
	for i := range tr {
		q := &tr[i]
		q.T = max(q.T/int64(time.Millisecond)*int64(time.Millisecond), last[q.Key])
		last[q.Key] = q.T
	}
	return tr
}

// TestXRateAgreesWithTokenAtExactRates: when W/L is a whole number of
// nanoseconds and L/W-in-seconds a float64 that the arithmetic keeps exact
// enough, and timestamps are whole milliseconds, every deficit is at least a
// millisecond of refill, far above any float64 error: xrate and token must
// agree on every decision, in independent and in shadow mode, with no
// arithmetic flip.
func TestXRateAgreesWithTokenAtExactRates(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	debts := 0
	for _, c := range []struct {
		r    algorithms.Rule
		b    string
		keys int
	}{
		{algorithms.Rule{L: 5, W: int64(time.Second)}, "", 16},
		{algorithms.Rule{L: 5, W: int64(time.Second)}, ":B=2", 16},
		{algorithms.Rule{L: 10, W: int64(time.Minute)}, "", 16},
		{algorithms.Rule{L: 100, W: int64(time.Minute)}, ":B=150", 4},
		{algorithms.Rule{L: 8, W: int64(2 * time.Second)}, "", 16},
	} {
		trace := msTrace(rng, c.r, c.keys, 20_000)
		for _, mode := range []string{"independent", "shadow"} {
			x := newXRate(t, "xrate"+c.b, c.r)
			tk, err := algorithms.New("token"+c.b, c.r)
			if err != nil {
				t.Fatal(err)
			}
			ref := algorithms.NewLog(c.r)
			x.Grow(c.keys)
			tk.Grow(c.keys)
			ref.Grow(c.keys)
			admitted := 0
			for i, q := range trace {
				id := int32(q.Key)
				refAdmit := ref.Decide(id, q.T, q.Cost)
				got, want := x.Decide(id, q.T, q.Cost), tk.Decide(id, q.T, q.Cost)
				if got != want {
					t.Fatalf("%v xrate%s %s: request %d %+v: xrate %v, token %v", c.r, c.b, mode, i, q, got, want)
				}
				rec := got
				if mode == "shadow" {
					rec = refAdmit
					if refAdmit && !got {
						debts++
					}
				}
				if rec {
					x.Record(id, q.T, q.Cost)
					tk.Record(id, q.T, q.Cost)
				}
				if refAdmit {
					ref.Record(id, q.T, q.Cost)
				}
				if got {
					admitted++
				}
			}
			a := x.Arithmetic()
			if a.Checked != int64(len(trace)) || a.Flips != 0 || a.Over != 0 || a.Under != 0 {
				t.Errorf("%v xrate%s %s: arithmetic %+v, want %d checked and no flip", c.r, c.b, mode, a, len(trace))
			}
			if mode == "independent" && (admitted == 0 || admitted == len(trace)) {
				t.Fatalf("%v: admitted %d of %d: the trace does not exercise the limit", c.r, admitted, len(trace))
			}
		}
	}
	if debts == 0 {
		t.Error("shadow mode never recorded a request xrate refused: the debt path is not exercised")
	}
}

// TestXRateNanosecondFlip: under 3/7s a token takes 7/3 s = 2,333,333,333.3
// ns to refill. One nanosecond before it is complete the exact bucket holds
// 1 - 1/W tokens and refuses; the library computes a wait of a third of a
// nanosecond, truncates it to zero and admits. An over flip within one
// nanosecond of refill (margin 1/W <= L/W), and not within B/2^40: the
// margin 1/W is larger because B*W = 2.1e10 < 2^40.
func TestXRateNanosecondFlip(t *testing.T) {
	r := algorithms.Rule{L: 3, W: int64(7 * time.Second)}
	x := newXRate(t, "xrate", r)
	tk := algorithms.NewToken(r, 0)
	x.Grow(1)
	tk.Grow(1)
	lib := libLimiters(r, 3, 1)[0]
	t0 := int64(1_700_000_000_000_000_000)
	for range 3 {
		if !x.Decide(0, t0, 1) || !tk.Decide(0, t0, 1) || !lib.AllowN(time.Unix(0, t0), 1) {
			t.Fatal("a full bucket refused")
		}
		x.Record(0, t0, 1)
		tk.Record(0, t0, 1)
	}
	t1 := t0 + 2_333_333_333
	if tk.Decide(0, t1, 1) {
		t.Fatal("token admits one nanosecond before the refill completes")
	}
	if !x.Decide(0, t1, 1) {
		t.Fatal("xrate refuses one nanosecond before the refill: the truncation flip did not happen")
	}
	if !lib.AllowN(time.Unix(0, t1), 1) {
		t.Fatal("the library itself refuses: XRate does not answer as AllowN")
	}
	a := x.Arithmetic()
	want := algorithms.XRateArithmetic{Checked: 4, Flips: 1, Over: 1, Nanosecond: 1}
	if a != want {
		t.Errorf("arithmetic = %+v, want %+v", a, want)
	}
}

// driftToBoundary builds, under 1/1s with B = 2^33 (float64 tokens near
// 6.4e9 have an ulp of 2^-20 tokens, about a microsecond of refill), a key
// whose float64 tokens drift from the exact count by 1000 roundings, then
// drains it and asks for 5 tokens at the instant the exact bucket holds
// exactly 5 - deficit. step is the gap between the drifting requests.
func driftToBoundary(t *testing.T, step, deficitNs int64) (x *algorithms.XRate, tk *algorithms.Token, lib *rate.Limiter, at int64) {
	t.Helper()
	const b, c = 1 << 33, 1<<31 - 1
	r := algorithms.Rule{L: 1, W: int64(time.Second)}
	x = newXRate(t, "xrate:B=8589934592", r)
	tk = algorithms.NewToken(r, b)
	lib = libLimiters(r, b, 1)[0]
	x.Grow(1)
	tk.Grow(1)
	do := func(ts, cost int64) {
		t.Helper()
		got, want := x.Decide(0, ts, cost), tk.Decide(0, ts, cost)
		if !got || !want || !lib.AllowN(time.Unix(0, ts), int(cost)) {
			t.Fatalf("setup request at %d cost %d refused (xrate %v, token %v)", ts, cost, got, want)
		}
		x.Record(0, ts, cost)
		tk.Record(0, ts, cost)
	}
	ts := int64(1_700_000_000_000_000_000)
	do(ts, c)
	for range 1000 {
		ts += step
		do(ts, 1)
	}
	for range 3 {
		do(ts, c)
	}
	// Exact tokens now: 2^33 - 4c + 1000*(step-1s)/1s = 4 + 1000*(step-1e9)/1e9.
	// They reach 5 - deficit after 1e9 - 1000*(step-1e9) - deficitNs ns.
	at = ts + int64(time.Second) - 1000*(step-int64(time.Second)) - deficitNs
	return x, tk, lib, at
}

// TestXRateBoundaryFlip: float64 drift far below one part in 2^40 of B
// flips a decision at the exact boundary, in each direction.
func TestXRateBoundaryFlip(t *testing.T) {
	// Under: a gap of 1s+1ns adds 1.000000001 tokens to ~6.4e9, which rounds
	// the nanosecond away: after 1000 steps xrate is 1000 ns of refill
	// behind. At the instant the exact bucket holds exactly 5 tokens (margin
	// 0), xrate misses 1e-6 of a token, a 1000 ns wait, and refuses.
	x, tk, lib, at := driftToBoundary(t, int64(time.Second)+1, 0)
	if !tk.Decide(0, at, 5) {
		t.Fatal("token refuses at its exact boundary: the construction is wrong")
	}
	if x.Decide(0, at, 5) {
		t.Fatal("xrate admits: the float64 drift did not flip the decision")
	}
	if lib.AllowN(time.Unix(0, at), 5) {
		t.Fatal("the library admits: XRate does not answer as AllowN")
	}
	a := x.Arithmetic()
	if a.Flips != 1 || a.Under != 1 || a.Over != 0 || a.Boundary != 1 || a.Nanosecond != 0 {
		t.Errorf("under: arithmetic = %+v, want one under flip at a boundary", a)
	}

	// Over: a gap of 1s+600ns adds 6e-7 tokens, 0.63 ulp, rounded up to
	// one ulp (2^-20): after 1000 steps xrate is ~354 us of refill ahead.
	// 100 us before the exact bucket holds 5 tokens xrate admits.
	x, tk, lib, at = driftToBoundary(t, int64(time.Second)+600, 100_000)
	if tk.Decide(0, at, 5) {
		t.Fatal("token admits 100us before its boundary: the construction is wrong")
	}
	if !x.Decide(0, at, 5) {
		t.Fatal("xrate refuses: the float64 drift did not flip the decision")
	}
	if !lib.AllowN(time.Unix(0, at), 5) {
		t.Fatal("the library refuses: XRate does not answer as AllowN")
	}
	a = x.Arithmetic()
	if a.Flips != 1 || a.Over != 1 || a.Under != 0 || a.Boundary != 1 || a.Nanosecond != 0 {
		t.Errorf("over: arithmetic = %+v, want one over flip at a boundary", a)
	}
}

// TestXRateFlipClassification drives keys to their exact refill boundary
// (a request at, just before or just after the instant the exact bucket
// holds cost tokens), and checks Arithmetic against an independent
// big.Rat token bucket that records what xrate records: every flip counted
// and classified by the exact margin. It also checks Decide against the
// library's AllowN on these adversarial timestamps.
func TestXRateFlipClassification(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	var total algorithms.XRateArithmetic
	for _, c := range xrateRules {
		const keys = 4
		const maxWait = int64(1e4 * time.Second)
		x := newXRate(t, c.spec, c.r)
		x.Grow(keys)
		b := x.Capacity()
		lib := libLimiters(c.r, b, keys)
		mod := &modelToken{r: c.r, b: b, tokens: map[int]*big.Rat{}, last: map[int]int64{}}
		now := make([]int64, keys)
		for k := range now {
			now[k] = 1_700_000_000_000_000_000 + rng.Int64N(c.r.W)
		}
		var want algorithms.XRateArithmetic
		bound := new(big.Rat).SetFrac(bigInt(b), new(big.Int).Lsh(big.NewInt(1), 40)) // B/2^40
		ns := new(big.Rat).SetFrac(bigInt(c.r.L), bigInt(c.r.W))                      // L/W
		for i := range 6000 {
			k := rng.IntN(keys)
			cost := int64(1)
			if rng.IntN(3) == 0 {
				cost = 1 + rng.Int64N(min(b, 1<<31-1))
			}
			// When does the exact bucket hold cost tokens? Keep that
			// within maxWait, so that time stays far from int64 overflow:
			// ask for at most the whole tokens held plus maxWait's refill.
			tok := new(big.Rat).Set(mod.refill(k, now[k]))
			if lim := new(big.Int).Quo(tok.Num(), tok.Denom()).Int64() + maxWait/c.r.W*c.r.L; cost > lim {
				cost = max(1, lim-rng.Int64N(maxWait/c.r.W*c.r.L+1))
			}
			need := new(big.Rat).Sub(rat(cost), tok)
			var dt int64
			if need.Sign() > 0 {
				wait := new(big.Rat).Mul(need, new(big.Rat).SetFrac(bigInt(c.r.W), bigInt(c.r.L)))
				q := new(big.Int).Quo(wait.Num(), wait.Denom()) // floor (wait > 0)
				dt = q.Int64()
			}
			switch rng.IntN(6) {
			case 0:
				dt-- // one nanosecond early
			case 1:
				dt++
			case 2:
				dt -= rng.Int64N(3)
			}
			ts := now[k] + max(dt, 0)
			if ts < now[k] || ts > 1<<62 {
				t.Fatalf("%s %v: time out of range at request %d: %d", c.spec, c.r, i, ts)
			}
			now[k] = ts
			tok = mod.refill(k, ts)
			exact := tok.Cmp(rat(cost)) >= 0
			got := x.Decide(int32(k), ts, cost)
			if lg := lib[k].AllowN(time.Unix(0, ts), int(cost)); got != lg {
				t.Fatalf("%s %v: request %d (key %d, t=%d, cost %d): Decide = %v, AllowN = %v", c.spec, c.r, i, k, ts, cost, got, lg)
			}
			want.Checked++
			if got != exact {
				want.Flips++
				if got {
					want.Over++
				} else {
					want.Under++
				}
				m := new(big.Rat).Sub(tok, rat(cost))
				m.Abs(m)
				switch {
				case m.Cmp(bound) < 0:
					want.Boundary++
				case m.Cmp(ns) <= 0:
					want.Nanosecond++
				}
			}
			if got {
				x.Record(int32(k), ts, cost)
				mod.record(k, ts, cost)
			}
		}
		if a := x.Arithmetic(); a != want {
			t.Errorf("%s %v: arithmetic = %+v, exact model says %+v", c.spec, c.r, a, want)
		}
		t.Logf("%s %v: %+v", c.spec, c.r, want)
		total.Flips += want.Flips
		total.Boundary += want.Boundary
		total.Nanosecond += want.Nanosecond
	}
	if total.Boundary == 0 || total.Nanosecond == 0 {
		t.Errorf("the boundary-seeking traces produced %+v: no flip of some class, the test checks nothing", total)
	}
}

// TestXRateShadowDebt: in shadow mode XRate records what the reference
// admitted, even without tokens for it: the library's tokens go negative and
// it refuses until refills repay the debt, exactly when token does; Decide
// never consumes; a recorded cost above B leaves B unchanged.
func TestXRateShadowDebt(t *testing.T) {
	r := algorithms.Rule{L: 5, W: int64(time.Second)} // a token per 200ms
	x := newXRate(t, "xrate:B=2", r)
	tk := algorithms.NewToken(r, 2)
	ref := algorithms.NewLog(r)
	x.Grow(1)
	tk.Grow(1)
	ref.Grow(1)
	const ms = int64(time.Millisecond)
	t0 := int64(1_700_000_000_000_000_000)
	for range 10 { // Decide does not take tokens
		if !x.Decide(0, t0, 2) {
			t.Fatal("a full bucket refuses 2 tokens")
		}
	}
	// The log admits 5 at t0; xrate (B=2) has tokens for 2. Shadow mode
	// records all 5: tokens = 2 - 5 = -3.
	for i := range 5 {
		if !ref.Decide(0, t0, 1) {
			t.Fatal("log refused")
		}
		got, want := x.Decide(0, t0, 1), tk.Decide(0, t0, 1)
		if got != want || got != (i < 2) {
			t.Fatalf("request %d at t0: xrate %v, token %v, want %v", i, got, want, i < 2)
		}
		ref.Record(0, t0, 1)
		x.Record(0, t0, 1)
		tk.Record(0, t0, 1)
	}
	// In debt by 3: one token back needs 4 tokens of refill, 800ms.
	for d := int64(1); d < 800; d++ {
		if x.Decide(0, t0+d*ms, 1) || tk.Decide(0, t0+d*ms, 1) {
			t.Fatalf("admits %d ms after a debt of 3 (xrate %v, token %v), want refusal until 800 ms", d, x.Decide(0, t0+d*ms, 1), tk.Decide(0, t0+d*ms, 1))
		}
	}
	if !x.Decide(0, t0+800*ms, 1) || !tk.Decide(0, t0+800*ms, 1) {
		t.Fatal("still refusing when the debt is repaid at 800 ms")
	}
	// A recorded cost of 4 > B with 1 token: the library refuses it even in
	// ReserveN; XRate still takes it: tokens = 1 - 4 = -3.
	t1 := t0 + 800*ms
	x.Record(0, t1, 4)
	tk.Record(0, t1, 4)
	if x.Decide(0, t1+799*ms, 1) || !x.Decide(0, t1+800*ms, 1) {
		t.Fatal("a recorded cost above B did not leave a debt of 3 tokens")
	}
	// Long after, the bucket is full with B = 2 again, not 4.
	t2 := t1 + 10*int64(time.Second)
	for i := range 3 {
		got, want := x.Decide(0, t2, 1), tk.Decide(0, t2, 1)
		if got != want || got != (i < 2) {
			t.Fatalf("request %d at a full bucket: xrate %v, token %v, want %v (B = 2)", i, got, want, i < 2)
		}
		if got {
			x.Record(0, t2, 1)
			tk.Record(0, t2, 1)
		}
	}
	if a := x.Arithmetic(); a.Flips != 0 || a.Checked == 0 {
		t.Errorf("arithmetic = %+v, want checks and no flip", a)
	}
}
