package products_test

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"ratebench/algorithms"
)

const luaResty = "lua-resty-limit-traffic"

// resty.limit.req's arithmetic under 2/1s (rate 2000 and burst 1000
// milli-requests): a new key stores excess 0; 1 ms later excess' = 0 -
// 2000*1/1000 + 1000 = 998 <= 1000; at the same instant 998 + 1000 = 1998
// > 1000 is refused and stores nothing; 250 ms after the second, 998 -
// 500 + 1000 = 1498 > 1000 is refused; 500 ms after it, 998 - 1000 + 1000
// = 998 admitted.
func TestLuaRestyReqTimeline(t *testing.T) {
	l := mustNew(t, luaResty, "2/1s")
	if l.(algorithms.Product).Twin() != "token" || l.CountsRejected() || l.Bytes(0) != 16 || l.Name() != luaResty {
		t.Fatalf("%s: twin %q, counts rejected %v, bytes %d", l.Name(), l.(algorithms.Product).Twin(), l.CountsRejected(), l.Bytes(0))
	}
	play(t, l, false, []step{
		{T: 0, Cost: 1, Admit: true},
		{T: ms, Cost: 1, Admit: true},
		{T: ms, Cost: 1, Admit: false},
		{T: 251 * ms, Cost: 1, Admit: false},
		{T: 501 * ms, Cost: 1, Admit: true},
	})
	if got := mustNew(t, luaResty+":module=req", "2/1s").Name(); got != luaResty {
		t.Errorf("module=req reads back as %s", got)
	}
}

// Each of resty.limit.req's deviations, alone, changes a decision of its
// twin, the token bucket of L; the expected values are worked out from
// req.lua's arithmetic (see LuaRestyReq).
func TestLuaRestyReqEachDeviationAloneChangesADecision(t *testing.T) {
	only := func(dev string) string {
		spec := luaResty
		for _, d := range []string{"clock", "float", "truncation", "one-hit"} {
			if d != dev {
				spec += ":without=" + d
			}
		}
		return spec
	}
	for _, c := range []struct {
		dev, rule     string
		times         []int64
		twin, product string
	}{
		// 1/1s (burst 0): 0.9 ms then 1000 ms: the exact bucket has
		// 0.9991 of a request back, ngx.now()'s milliseconds 1000 ms.
		{"clock", "1/1s", []int64{9 * ms / 10, 1000 * ms}, "AR", "AA"},
		// 2/9s: two at 0 fill the bucket (excess 1000 = burst); 4.5 s
		// later the exact drain is 1000, excess' = 1000, admitted; in
		// doubles rate*1000 is 222.22222222222223 and the drain
		// 999.99999999999989: excess' > 1000, refused.
		{"float", "2/9s", []int64{0, 0, 4500 * ms}, "AAA", "AAR"},
		// 10/1m: 10 requests 1 ms apart each add 1000 - 1/6 exactly,
		// 999 truncated (8998.5 against 8991 after the tenth); the 11th
		// is refused either way; 5950 ms after the tenth the exact
		// excess' is 8998.5 - 991.67 + 1000 > 9000, the truncated
		// 8991 - 991.67 + 1000 <= 9000.
		{"truncation", "10/1m", []int64{0, ms, 2 * ms, 3 * ms, 4 * ms, 5 * ms, 6 * ms, 7 * ms, 8 * ms, 9 * ms, 10 * ms, 5959 * ms}, "AAAAAAAAAARR", "AAAAAAAAAARA"},
	} {
		r := mustRule(t, c.rule)
		checkDeviation(t, func(spec string) string { return timeline(t, spec, r, c.times...) }, "token", only(c.dev), c.dev, c.twin, c.product)
	}
	// one-hit: under 2/1s a request of cost 2, then one of cost 1 a
	// millisecond later: the twin's bucket of 2 has 0.002 back and
	// refuses it; req counted the first as one (excess 0), and 0 - 2 +
	// 1000 = 998 <= 1000 admits the second.
	r := mustRule(t, "2/1s")
	reqs := [][2]int64{{0, 2}, {ms, 1}}
	checkDeviation(t, func(spec string) string { return costTimeline(t, spec, r, reqs...) }, "token", only("one-hit"), "one-hit", "AR", "AA")
}

// ngx.now()*1000, (sec + msec/1000.0)*1000 in doubles, is not always a
// whole number of milliseconds (the model's doc): near the epoch, at 1 s
// + 1 ms it is 1000.9999999999999, which the record's last truncates a
// millisecond early, and again past 2^31 s (2038); from 2^40/1000 s to
// 2^31 s (late 2004 to early 2038) it always is.
func TestLuaRestyReqNowIsADouble(t *testing.T) {
	early := func(sec int64) (n int) {
		for s := sec; s < sec+10; s++ {
			for msec := int64(0); msec < 1000; msec++ {
				if now := (float64(s) + float64(msec)/1000) * 1000; float64(int64(now)) != float64(s*1000+msec) {
					n++
				}
			}
		}
		return n
	}
	if n := early(0); n == 0 || (float64(1)+float64(1)/1000)*1000 != 1000.9999999999999 {
		t.Errorf("near the epoch %d milliseconds truncate early", n)
	}
	if n := early(1 << 31); n == 0 {
		t.Error("past 2^31 s no millisecond truncates early")
	}
	rng := rand.New(rand.NewPCG(37, 3))
	for range 200 {
		sec := (1<<40)/1000 + 1 + rng.Int64N(1<<31-(1<<40)/1000-11)
		if n := early(sec); n != 0 {
			t.Fatalf("at %d s, %d milliseconds truncate early", sec, n)
		}
	}
}

// resty.limit.count's window for 2/1s: from the key's first request, on
// whole milliseconds, its end millisecond included (without the dict's
// sweep); every request counted, refused when the count exceeds 2.
func TestLuaRestyCountTimeline(t *testing.T) {
	l := mustNew(t, luaResty+":module=count", "2/1s")
	p := l.(algorithms.Product)
	if p.Twin() != "fixed" || !l.CountsRejected() || !algorithms.CountsEvery(l) || algorithms.CouplesKeys(l) || l.Bytes(0) != 16 {
		t.Fatalf("%s: twin %q, counts every %v, couples %v", l.Name(), p.Twin(), algorithms.CountsEvery(l), algorithms.CouplesKeys(l))
	}
	play(t, l, true, []step{
		{T: 300*ms + 700*time.Microsecond.Nanoseconds(), Cost: 1, Admit: true}, // ms 300: a window to 1300 ms
		{T: 900 * ms, Cost: 1, Admit: true},
		{T: 1200 * ms, Cost: 1, Admit: false},
		{T: 1300*ms + 999*time.Microsecond.Nanoseconds(), Cost: 1, Admit: false}, // ms 1300: the end, still in
		{T: 1301 * ms, Cost: 1, Admit: true},                                     // a new window to 2301 ms
		{T: 1301 * ms, Cost: 1, Admit: true},
		{T: 1301 * ms, Cost: 5, Admit: false}, // one hit: 3 > 2
	})
}

// Each of resty.limit.count's deviations, alone, changes a decision of
// its twin, the fixed window; the expected values are worked out from
// count.lua and the shared dict's incr (see LuaRestyCount).
func TestLuaRestyCountEachDeviationAloneChangesADecision(t *testing.T) {
	only := func(devs ...string) string {
		spec := luaResty + ":module=count"
		for _, d := range []string{"anchor", "clock", "closed", "counts-refused", "one-hit"} {
			if !strings.Contains(strings.Join(devs, " "), d) {
				spec += ":without=" + d
			}
		}
		return spec
	}
	for _, c := range []struct {
		dev, rule     string
		spec          string
		times         []int64
		twin, product string
	}{
		// 2/1s: the window from 0.5 s holds 1.1 s; the epoch's does not.
		{"anchor", "2/1s", only("anchor"), []int64{500 * ms, 600 * ms, 1100 * ms}, "AAA", "AAR"},
		// 2/1.5005s: the ttl is 1500 ms; 1.5002 s is past it, within W.
		{"clock", "2/1.5005s", only("clock"), []int64{0, 100 * ms, 1500*ms + 200*time.Microsecond.Nanoseconds()}, "AAR", "AAA"},
		// 2/1s, the window anchored at 0 as the epoch's: closed, 1 s is
		// still in it, a third request; the twin's 1 s is a new window.
		{"closed", "2/1s", only("anchor", "closed"), []int64{0, 500 * ms, 1000 * ms}, "AAA", "AAR"},
	} {
		r := mustRule(t, c.rule)
		checkDeviation(t, func(spec string) string { return timeline(t, spec, r, c.times...) }, "fixed", c.spec, c.dev, c.twin, c.product)
	}
	// counts-refused: under 3/1s, costs 2, 2 (refused, yet counted: 4),
	// then 1: refused, where the twin, which counted 2, admits it.
	r := mustRule(t, "3/1s")
	reqs := [][2]int64{{0, 2}, {100 * ms, 2}, {200 * ms, 1}}
	checkDeviation(t, func(spec string) string { return ownTimeline(t, spec, r, reqs...) }, "fixed", only("counts-refused"), "counts-refused", "ARA", "ARR")
	// one-hit: under 2/1s a request of cost 2 counts one, and the next is
	// admitted, where the twin's count of 2 refuses it.
	r = mustRule(t, "2/1s")
	reqs = [][2]int64{{0, 2}, {100 * ms, 1}}
	checkDeviation(t, func(spec string) string { return ownTimeline(t, spec, r, reqs...) }, "fixed", only("one-hit"), "one-hit", "AR", "AA")
}

// The dict's sweep at each incr drops expired nodes from its least
// recently used end, now >= expires: at a window's very end millisecond a
// key at that end starts a new window, one touched more recently keeps
// its window through that millisecond. Under 1/1s, key a at 0 and key b
// at 200 ms; at 1000 ms (a's expiry) a's request:
//   - with a the least recently used, it is swept: a new window, admitted;
//   - after a refused request of a at 500 ms (which moves its node to the
//     head), the tail is b, not expired: the sweep stops there, and a's
//     window keeps 1000 ms: refused.
//
// Without the sweep a's window always keeps its end: refused both times.
func TestLuaRestyCountZoneSweepsTheLeastRecentlyUsed(t *testing.T) {
	r := mustRule(t, "1/1s")
	type at struct {
		key int32
		t   int64
	}
	last := func(spec string, reqs ...at) bool {
		l, err := algorithms.New(spec, r)
		if err != nil {
			t.Fatal(err)
		}
		l.Grow(2)
		var admit bool
		for _, q := range reqs {
			admit = l.Decide(q.key, q.t, 1)
			l.Record(q.key, q.t, 1)
		}
		return admit
	}
	tail := []at{{0, 0}, {1, 200 * ms}, {0, 1000 * ms}}
	touched := []at{{0, 0}, {1, 200 * ms}, {0, 500 * ms}, {0, 1000 * ms}}
	zone := luaResty + ":module=count:zone"
	for _, c := range []struct {
		spec          string
		tail, touched bool
	}{{zone, true, false}, {zone + ":without=zone-expiry", false, false}, {luaResty + ":module=count", false, false}, {zone + ":without=closed", true, true}} {
		if got := last(c.spec, tail...); got != c.tail {
			t.Errorf("%s, a at the tail: admitted %v, want %v", c.spec, got, c.tail)
		}
		if got := last(c.spec, touched...); got != c.touched {
			t.Errorf("%s, a touched at 500 ms: admitted %v, want %v", c.spec, got, c.touched)
		}
	}
	z := mustNew(t, zone, "1/1s")
	if !algorithms.CouplesKeys(z) || z.(algorithms.Releaser).Idle(0, 0) || z.Name() != zone {
		t.Errorf("%s: couples %v, name %s", zone, algorithms.CouplesKeys(z), z.Name())
	}
}

// With every deviation off, count (with the sweep or not) decides as the
// fixed window, request by request (req is the catalogue's default, and
// TestProductsWithoutDeviationsDecideAsTheirTwins checks it).
func TestLuaRestyCountWithoutDeviationsIsFixed(t *testing.T) {
	rng := rand.New(rand.NewPCG(37, 2))
	for _, r := range []algorithms.Rule{{L: 10, W: int64(time.Minute)}, {L: 3, W: int64(time.Second)}, {L: 100, W: int64(time.Second)}} {
		for _, spec := range []string{luaResty + ":module=count", luaResty + ":module=count:zone"} {
			p, err := algorithms.New(spec, r)
			if err != nil {
				t.Fatal(err)
			}
			sameDecisions(t, "fixed", withoutAll(p.(algorithms.Product)), r, poissonish(rng, r, 20, 20000), false)
		}
	}
}

// The spec's parameters: module=req|count and zone (count's), each once;
// a count window below 1 ms (no ttl) and a limit beyond the burst's range
// are refused, saying what to give.
func TestLuaRestySpecs(t *testing.T) {
	r := mustRule(t, "10/1m")
	for spec, want := range map[string]string{
		luaResty + ":module=conn":               "module=req|count",
		luaResty + ":zone":                      "module=count:zone",
		luaResty + ":module=count:module=req":   "given twice",
		luaResty + ":module=count:zone:zone":    "given twice",
		luaResty + ":burst=3":                   "module=req|count",
		luaResty + ":module=count:without=zone": "no deviation",
	} {
		if _, err := algorithms.New(spec, r); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error saying %q", spec, err, want)
		}
	}
	if _, err := algorithms.New(luaResty+":module=count", algorithms.Rule{L: 1, W: int64(999 * time.Microsecond)}); err == nil || !strings.Contains(err.Error(), "1 ms or more") {
		t.Errorf("a window below 1 ms: %v", err)
	}
	if _, err := algorithms.New(luaResty, algorithms.Rule{L: 1 << 50, W: int64(time.Second)}); err == nil || !strings.Contains(err.Error(), "too large") {
		t.Errorf("a limit of 2^50: %v", err)
	}
	for _, spec := range []string{luaResty + ":module=count:zone", luaResty + ":module=count", luaResty} {
		if l := mustNew(t, spec, "10/1m"); l.Name() != spec {
			t.Errorf("%s reads back as %s", spec, l.Name())
		}
	}
}

// Idle holds only when the next request decides and stores as on a key
// never seen: a replay that releases idle keys decides as one that never
// does, for both modules with each deviation on or off, at an instant of
// 2023 and near the epoch (where ngx.now()*1000 is not always whole).
func TestLuaRestyIdleIsFresh(t *testing.T) {
	rng := rand.New(rand.NewPCG(37, 4))
	specs := []string{luaResty + ":module=count"}
	for _, base := range []string{luaResty, luaResty + ":module=count"} {
		p, err := algorithms.New(base, mustRule(t, "10/1m"))
		if err != nil {
			t.Fatal(err)
		}
		specs = append(specs, base, withoutAll(p.(algorithms.Product)))
		for _, d := range p.(algorithms.Product).Deviations() {
			specs = append(specs, base+":without="+d.Name)
		}
	}
	for _, spec := range specs {
		for _, rule := range []string{"10/1m", "3/1s", "2/9s"} {
			r := mustRule(t, rule)
			for _, start := range []int64{0, 1_700_000_000_123 * ms} {
				idleIsFresh(t, rng, spec, r, start)
			}
		}
	}
}
