package products_test

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/limiter"
	"github.com/gofiber/fiber/v2/utils"
	"github.com/valyala/fasthttp"

	"ratebench/algorithms"
	"ratebench/algorithms/products"
)

// alone is spec with every deviation of the product but dev turned off.
func alone(t *testing.T, spec, dev string, r algorithms.Rule) string {
	t.Helper()
	l, err := algorithms.New(spec, r)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range l.(algorithms.Product).Deviations() {
		if d.Name != dev {
			spec += ":without=" + d.Name
		}
	}
	return spec
}

// Each of Fiber's deviations, alone, changes a decision of its twin on a
// timeline worked out from limiter_fixed.go and limiter_sliding.go;
// turned off too, the timeline is the twin's again.
func TestFiberEachDeviationAloneChangesADecision(t *testing.T) {
	s, ms := int64(time.Second), int64(time.Millisecond)
	unit := func(times ...int64) [][2]int64 {
		out := make([][2]int64, len(times))
		for i, at := range times {
			out[i] = [2]int64{at, 1}
		}
		return out
	}
	for _, c := range []struct {
		spec, dev, rule string
		reqs            [][2]int64
		twin, product   string
	}{
		// Windows of 1.5 s on the epoch: 1.7 s opens the second one; on
		// the whole-second clock it reads 1 s, still in the first, full.
		{"fiber", "clock", "2/1500ms", unit(100*ms, 200*ms, 1700*ms), "AAA", "AAR"},
		// The window rounded up to 2 s holds 1.7 s with the first two.
		{"fiber", "ceil", "2/1500ms", unit(100*ms, 200*ms, 1700*ms), "AAA", "AAR"},
		// Anchored at 5 s, the window [5 s, 15 s) holds 11 s; the epoch's
		// [10 s, 20 s) does not hold 5 s and 6 s.
		{"fiber", "anchor", "2/10s", unit(5*s, 6*s, 11*s), "AAA", "AAR"},
		// One hit per request: a cost of 3 passes under 2/10s and counts
		// 1, so the third request is the one refused.
		{"fiber", "cost", "2/10s", [][2]int64{{0, 3}, {s, 1}, {2 * s, 1}}, "RAA", "AAR"},
		// The refused cost 3 is counted: 3+3+1 > 5 refuses the last.
		{"fiber", "counts-refused", "5/10s", [][2]int64{{0, 3}, {s, 3}, {2 * s, 1}}, "ARA", "ARR"},

		// 3/10s: three requests in [0, 10 s); at 13.5 s the counter's
		// estimate is 3*6.5/10 + 1 = 2.95; on whole seconds 13 s gives
		// 3*7/10 + 1 = 3.1 > 3.
		{"fiber:strategy=sliding", "clock", "3/10s", unit(100*ms, 200*ms, 300*ms, 13500*ms), "AAAA", "AAAR"},
		// At 2.9 s, windows of 1.5 s weigh the first two by 0.1/1.5
		// (admitted); windows of 2 s by 1.1/2, 2.1 > 2.
		{"fiber:strategy=sliding", "ceil", "2/1500ms", unit(100*ms, 200*ms, 2900*ms), "AAA", "AAR"},
		// Anchored at 5 s, 19 s is 4 s into [15 s, 25 s): 2*6/10 + 1 > 2;
		// on the epoch it is 9 s into [10 s, 20 s): 2*1/10 + 1 <= 2.
		{"fiber:strategy=sliding", "anchor", "2/10s", unit(5*s, 6*s, 19*s), "AAA", "AAR"},
		{"fiber:strategy=sliding", "cost", "2/10s", [][2]int64{{0, 3}, {s, 1}, {2 * s, 1}}, "RAA", "AAR"},
		// The refused third request counts in the window before 15 s:
		// 3*5/10 + 1 > 2, where 2*5/10 + 1 <= 2.
		{"fiber:strategy=sliding", "counts-refused", "2/10s", unit(100*ms, 200*ms, 300*ms, 15*s), "AARA", "AARR"},
		// At 14 s: 2*6/10 = 1.2, truncated to 1, and 1 + 1 <= 2.
		{"fiber:strategy=sliding", "floor", "2/10s", unit(100*ms, 200*ms, 14*s), "AAR", "AAA"},
		// A cost of 3 in the window before, 1,999,998 in the next, then
		// one request when 3*(W-e)/W = 1 + 5e-11: exactly, 2,000,000 +
		// 5e-11 > L refuses it; in float64, 1 + 5e-11 + 1,999,998 rounds
		// to 1,999,999 and 2,000,000 <= L admits it.
		{"fiber:strategy=sliding", "float", "2000000/1m", [][2]int64{{0, 3}, {90 * s, 1999998}, {100*s - 1, 1}}, "AAR", "AAA"},
	} {
		r, err := algorithms.ParseRule(c.rule)
		if err != nil {
			t.Fatal(err)
		}
		l, _ := algorithms.New(c.spec, r)
		twin := l.(algorithms.Product).Twin()
		spec := alone(t, c.spec, c.dev, r)
		checkDeviation(t, func(spec string) string { return ownTimeline(t, spec, r, c.reqs...) }, twin, spec, c.dev, c.twin, c.product)
	}
}

// The full sliding model: 55 requests in the first window of 11 s, then,
// 3 s before the end of the second (at 19 s), weight 3/11: exactly 55*3/11
// = 15, but float64(55)*(3.0/11.0) = 14.999999999999998, truncated to 14,
// so the product admits 42 requests there where truncating the exact
// weight admits 41 (15 + 41 <= 56).
func TestFiberSlidingFloatTruncation(t *testing.T) {
	s, ms := int64(time.Second), int64(time.Millisecond)
	r, _ := algorithms.ParseRule("56/11s")
	var reqs [][2]int64
	for range 55 {
		reqs = append(reqs, [2]int64{100 * ms, 1})
	}
	for range 43 {
		reqs = append(reqs, [2]int64{19 * s, 1})
	}
	want := strings.Repeat("A", 55+42) + "R"
	if got := ownTimeline(t, "fiber:strategy=sliding", r, reqs...); got != want {
		t.Errorf("fiber:strategy=sliding decides %s, want %s", got, want)
	}
	want = strings.Repeat("A", 55+41) + "RR"
	if got := ownTimeline(t, "fiber:strategy=sliding:without=float", r, reqs...); got != want {
		t.Errorf("without float: %s, want %s", got, want)
	}
}

// The spec: strategy=fixed (the default, named fiber) or sliding; anything
// else is refused, naming what to give. The fixed window has no floor or
// float deviation.
func TestFiberSpecs(t *testing.T) {
	r, _ := algorithms.ParseRule("10/1m")
	checkSpecs(t, r, map[string]string{
		"fiber":                               "fiber",
		"fiber:strategy=fixed":                "fiber",
		"fiber:strategy=sliding":              "fiber:strategy=sliding",
		"fiber:strategy=sliding:without=ceil": "fiber:strategy=sliding:without=ceil",
		"fiber:without=anchor":                "fiber:without=anchor",
	}, []string{"fiber:", "fiber:strategy=", "fiber:strategy=token", "fiber:max=3", "fiber:without=floor"}, "fiber", "known:")
	f := products.NewFiber(r, false)
	if len(f.Deviations()) != 5 || f.Twin() != "fixed" || !f.CountsEvery() || f.Bytes(0) != 48 {
		t.Errorf("fiber: deviations %v, twin %s, counts every %v, %d bytes", f.Deviations(), f.Twin(), f.CountsEvery(), f.Bytes(0))
	}
	if f := products.NewFiber(r, true); len(f.Deviations()) != 7 || f.Twin() != "counter" {
		t.Errorf("fiber:strategy=sliding: deviations %v, twin %s", f.Deviations(), f.Twin())
	}
}

// A key is idle when its next request would start it over: for the fixed
// window at its end, for the sliding one a window later.
func TestFiberIdle(t *testing.T) {
	s := int64(time.Second)
	r, _ := algorithms.ParseRule("2/10s")
	for _, c := range []struct {
		spec       string
		busy, idle int64
	}{{"fiber", 14*s + s - 1, 15 * s}, {"fiber:strategy=sliding", 24*s + s - 1, 25 * s}} {
		l, _ := algorithms.New(c.spec, r)
		rel := l.(algorithms.Releaser)
		l.Grow(1)
		if !rel.Idle(0, 0) {
			t.Errorf("%s: a new key is not idle", c.spec)
		}
		l.Decide(0, 5*s, 1)
		l.Record(0, 5*s, 1)
		if rel.Idle(0, c.busy) || !rel.Idle(0, c.idle) {
			t.Errorf("%s: idle at %s %v, at %s %v", c.spec, time.Duration(c.busy), rel.Idle(0, c.busy), time.Duration(c.idle), rel.Idle(0, c.idle))
		}
	}
}

// fiberUpdaterSpent is set once utils.StartTimeStampUpdater has run in a
// bubble of this process: its sync.Once is spent, and its goroutine stays
// parked in that bubble, whose time no longer moves.
var fiberUpdaterSpent bool

// The model decides as the real github.com/gofiber/fiber/v2 v2.52.15
// limiter middleware (both strategies, default memory storage), request by
// request, driven by the trace's clock. The middleware reads
// utils.Timestamp, which a goroutine started on the first limiter.New
// stores every second from a ticker: in a testing/synctest bubble that
// goroutine and its ticker run on the bubble's fake clock, which starts on
// a whole second (2000-01-01T00:00:00Z); sleeping to each request's
// instant and waiting for the bubble's goroutines to block again lets the
// ticker store the second first. The updater (started once per process, by
// a sync.Once) and each memory storage's collector (a goroutine per
// limiter) never exit, so the bubble ends in synctest's deadlock panic,
// which the test expects and recovers from; a later run in the same
// process (go test -count=2) finds the updater parked in the ended bubble
// and stores each request's second itself, as the ticker would. Keys come from a header through KeyGenerator, and the
// handler is called directly (app.Handler()) on a fasthttp.RequestCtx.
func TestFiberMatchesModule(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 1))
	type run struct {
		strategy string
		rule     string
		trace    []req
	}
	var runs []run
	for _, rule := range []string{"5/1s", "10/10s", "3/2s", "20/1m", "7/1500ms"} {
		r, err := algorithms.ParseRule(rule)
		if err != nil {
			t.Fatal(err)
		}
		for _, strategy := range []string{"fixed", "sliding"} {
			trace := poissonish(rng, r, 5, 2000)
			slices.SortStableFunc(trace, func(a, b req) int { return cmp.Compare(a.T, b.T) })
			runs = append(runs, run{strategy, rule, trace})
		}
	}
	results := make([]string, len(runs))
	admitted := make([]int, len(runs))
	differ := make([]string, len(runs))
	handByTicks := fiberUpdaterSpent
	fiberUpdaterSpent = true
	panicked := func() (p any) {
		defer func() { p = recover() }()
		synctest.Test(t, func(*testing.T) {
			for i, ru := range runs {
				results[i], admitted[i] = fiberReplay(ru.strategy, ru.rule, ru.trace, handByTicks, &differ[i])
			}
		})
		return nil
	}()
	if err, ok := panicked.(error); !ok || !strings.Contains(err.Error(), "main bubble goroutine has exited but blocked goroutines remain") {
		t.Fatalf("the bubble ended with %v, want the deadlock of the goroutines left behind", panicked)
	}
	for i, res := range results {
		if res != "" {
			t.Errorf("%s %s: %s", runs[i].strategy, runs[i].rule, res)
			continue
		}
		t.Logf("%s %s: %d requests, the same decisions (%d admitted); decisions that differ with a deviation off: %s", runs[i].strategy, runs[i].rule, len(runs[i].trace), admitted[i], differ[i])
	}
}

// fiberReplay replays trace through Fiber's middleware and the model, in a
// bubble, and returns "" when they agree on every request, else what
// differs, and the number admitted; differ is set to how many decisions
// the model with each deviation off gets wrong. byHand: store the timestamp as the ticker would (its goroutine
// is parked in an earlier bubble).
func fiberReplay(strategy, rule string, trace []req, byHand bool, differ *string) (string, int) {
	r, err := algorithms.ParseRule(rule)
	if err != nil {
		return err.Error(), 0
	}
	// Start on a whole second, as the bubble (and so the ticker) did.
	start := time.Now()
	if start.Nanosecond() != 0 {
		start = start.Truncate(time.Second).Add(time.Second)
	}
	var mw limiter.LimiterHandler = limiter.FixedWindow{}
	spec := "fiber"
	if strategy == "sliding" {
		mw, spec = limiter.SlidingWindow{}, "fiber:strategy=sliding"
	}
	app := fiber.New(fiber.Config{DisableStartupMessage: true})
	app.Use(limiter.New(limiter.Config{
		Max:               int(r.L),
		Expiration:        time.Duration(r.W),
		KeyGenerator:      func(c *fiber.Ctx) string { return c.Get("X-Key") },
		LimiterMiddleware: mw,
	}))
	app.Get("/", func(c *fiber.Ctx) error { return c.SendStatus(fiber.StatusOK) })
	h := app.Handler()
	model, err := algorithms.New(spec, r)
	if err != nil {
		return err.Error(), 0
	}
	model.Grow(8)
	// Beside the model, the model with each deviation off, to tell how
	// many decisions each changes on the trace.
	var variants []algorithms.Limiter
	for _, d := range model.(algorithms.Product).Deviations() {
		v, err := algorithms.New(spec+":without="+d.Name, r)
		if err != nil {
			return err.Error(), 0
		}
		v.Grow(8)
		variants = append(variants, v)
	}
	wrong := make([]int, len(variants))
	admitted := 0
	for i, q := range trace {
		at := start.Add(time.Duration(q.T - trace[0].T))
		time.Sleep(time.Until(at))
		synctest.Wait() // the ticker's goroutine has stored this second
		if byHand {
			atomic.StoreUint32(&utils.Timestamp, uint32(at.Unix()))
		}
		if got, want := atomic.LoadUint32(&utils.Timestamp), uint32(at.Unix()); got != want {
			return fmt.Sprintf("request %d: utils.Timestamp is %d at %s, want %d", i, got, at, want), admitted
		}
		ctx := new(fasthttp.RequestCtx)
		ctx.Request.SetRequestURI("/")
		ctx.Request.Header.Set("X-Key", fmt.Sprint("k", q.Key))
		h(ctx)
		real := ctx.Response.StatusCode() == fiber.StatusOK
		if !real && ctx.Response.StatusCode() != fiber.StatusTooManyRequests {
			return fmt.Sprintf("request %d: status %d", i, ctx.Response.StatusCode()), admitted
		}
		tm := at.UnixNano()
		got := model.Decide(int32(q.Key), tm, q.Cost)
		if got || algorithms.CountsEvery(model) {
			model.Record(int32(q.Key), tm, q.Cost)
		}
		if got {
			admitted++
		}
		for j, v := range variants {
			ok := v.Decide(int32(q.Key), tm, q.Cost)
			if ok || algorithms.CountsEvery(v) {
				v.Record(int32(q.Key), tm, q.Cost)
			}
			if ok != real {
				wrong[j]++
			}
		}
		if got != real {
			return fmt.Sprintf("request %d (key %d, %s after the start): the model admits %v, Fiber %v", i, q.Key, time.Duration(q.T-trace[0].T), got, real), admitted
		}
	}
	if admitted == 0 || admitted == len(trace) {
		return fmt.Sprintf("%d of %d admitted: the trace does not exercise the limit", admitted, len(trace)), admitted
	}
	off := make([]string, len(variants))
	for j, v := range variants {
		off[j] = fmt.Sprintf("%s %d", v.Name()[strings.LastIndex(v.Name(), "=")+1:], wrong[j])
	}
	*differ = strings.Join(off, ", ")
	return "", admitted
}
