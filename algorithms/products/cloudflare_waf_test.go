package products_test

import (
	"math/rand/v2"
	"strings"
	"testing"

	"ratebench/algorithms"
)

// The documentation's Example A: 1 request per 10 s, blocked for 10
// minutes. The second request, 5 s after the first (past the lag), finds
// the counter at 2, above the limit: it is blocked, and every request for
// the next 10 minutes with it, whatever the counter says; 15 s later the
// windows the counter reads hold nothing.
func TestCloudflareWAFDocumentationExample(t *testing.T) {
	l := mustNew(t, "cloudflare-waf:timeout=10m", "1/10s")
	p := l.(algorithms.Product)
	if p.Twin() != "counter:block=10m" || !algorithms.CountsEvery(l) || l.Bytes(0) != 32 || !l.FixedSize() || len(p.Deviations()) != 3 {
		t.Fatalf("%s: twin %q, counts every %v, %d bytes, deviations %v", l.Name(), p.Twin(), algorithms.CountsEvery(l), l.Bytes(0), p.Deviations())
	}
	playEvery(t, l, []step{
		{T: 0, Cost: 1, Admit: true},
		{T: 5 * sec, Cost: 1, Admit: false},
		{T: 300 * sec, Cost: 1, Admit: false},
		{T: 605*sec - 1, Cost: 1, Admit: false},
		{T: 620 * sec, Cost: 1, Admit: true},
	})
}

// The lag, 2 s by default: a decision sees the requests counted up to 2 s
// before it. At 1/10s the request 1 s after the first is let through; 2 s
// after it, the first counts and the request is blocked for the timeout,
// the period; every request counted, the previous window holds three at
// 12 s, still over the rate, which blocks the key again.
func TestCloudflareWAFLag(t *testing.T) {
	r := mustRule(t, "1/10s")
	if got := ownTimeline(t, "cloudflare-waf", r, [2]int64{0, 1}, [2]int64{sec, 1}, [2]int64{2 * sec, 1}, [2]int64{12*sec - 1, 1}, [2]int64{12 * sec, 1}); got != "AARRR" {
		t.Errorf("lag: %s, want AARRR", got)
	}
	if got := ownTimeline(t, "cloudflare-waf", r, [2]int64{0, 1}, [2]int64{2*sec - 1, 1}); got != "AA" {
		t.Errorf("1 ns inside the lag: %s, want AA", got)
	}
	if got := ownTimeline(t, "cloudflare-waf", r, [2]int64{0, 1}, [2]int64{2 * sec, 1}); got != "AR" {
		t.Errorf("at the lag: %s, want AR", got)
	}
	// Across a window's edge the lag hides requests of the previous
	// window: at 2/10s, two requests at 9.5 s weigh 2·0.9 at 11 s once
	// seen, not at 10.5 s.
	r2 := mustRule(t, "2/10s")
	if got := ownTimeline(t, "cloudflare-waf:without=counts-refused", r2, [2]int64{9500 * ms, 1}, [2]int64{9500 * ms, 1}, [2]int64{10500 * ms, 1}, [2]int64{12 * sec, 1}); got != "AAAR" {
		t.Errorf("across the edge: %s, want AAAR", got)
	}
}

// timeout=0 throttles: each request is decided by the counter, with no
// block; a timeout blocks the key past the counter's refusal.
func TestCloudflareWAFThrottle(t *testing.T) {
	r := mustRule(t, "2/10s")
	reqs := [][2]int64{{0, 1}, {sec, 1}, {2 * sec, 1}, {15 * sec, 1}}
	if got := ownTimeline(t, "cloudflare-waf:timeout=0:without=lag:without=counts-refused", r, reqs...); got != "AARA" {
		t.Errorf("throttle: %s, want AARA", got)
	}
	if got := ownTimeline(t, "cloudflare-waf:timeout=1m:without=lag:without=counts-refused", r, reqs...); got != "AARR" {
		t.Errorf("a minute's block: %s, want AARR", got)
	}
	if tw := mustNew(t, "cloudflare-waf:timeout=0", "2/10s").(algorithms.Product).Twin(); tw != "counter" {
		t.Errorf("throttle's twin %q, want counter", tw)
	}
}

// Data centres share nothing: at 1/10s over two, the key's requests
// alternate between them, each admitting one a period; the key is idle
// once both blocks are over and both counters read nothing.
func TestCloudflareWAFDataCentres(t *testing.T) {
	r := mustRule(t, "1/10s")
	got := ownTimeline(t, "cloudflare-waf:dcs=2:without=lag", r, [2]int64{0, 1}, [2]int64{3 * sec, 1}, [2]int64{6 * sec, 1}, [2]int64{7 * sec, 1}, [2]int64{8 * sec, 1})
	if got != "AARRR" { // 8 s: data centre 0, blocked since 6 s
		t.Errorf("two data centres: %s, want AARRR", got)
	}
	l := mustNew(t, "cloudflare-waf:dcs=2", "1/10s")
	if l.Bytes(0) != 64 || mustNew(t, "cloudflare-waf:dcs=2:without=data-centres", "1/10s").Bytes(0) != 32 {
		t.Errorf("bytes %d", l.Bytes(0))
	}
	l.Grow(1)
	for _, q := range [][2]int64{{0, 1}, {sec, 1}, {2 * sec, 1}} {
		l.Decide(0, q[0], q[1])
		l.Record(0, q[0], q[1])
	}
	rel := l.(algorithms.Releaser)
	// data centre 0 blocked from 2 s to 12 s, its counts in window 0 read
	// till 20 s
	for _, c := range []struct {
		at   int64
		idle bool
	}{{11 * sec, false}, {19 * sec, false}, {20 * sec, true}} {
		if got := rel.Idle(0, c.at); got != c.idle {
			t.Errorf("idle at %ds: %v, want %v", c.at/sec, got, c.idle)
		}
	}
}

// Each deviation alone changes a decision of counter:block=D.
func TestCloudflareWAFEachDeviationAloneChangesADecision(t *testing.T) {
	tl := func(rule string, reqs ...[2]int64) func(string) string {
		r := mustRule(t, rule)
		return func(spec string) string { return ownTimeline(t, spec, r, reqs...) }
	}
	// lag: 1/10s, requests at 0 and 1 s: the second does not see the first.
	checkDeviation(t, tl("1/10s", [2]int64{0, 1}, [2]int64{sec, 1}), "counter:block=10s", "cloudflare-waf:without=counts-refused:without=one-hit", "lag", "AR", "AA")
	// counts-refused: 2/10s, the third request refused and counted; at
	// 15 s half of the first window weighs 1 (admitted only) or 1.5.
	checkDeviation(t, tl("2/10s", [2]int64{0, 1}, [2]int64{sec, 1}, [2]int64{2 * sec, 1}, [2]int64{15 * sec, 1}), "counter:block=10s", "cloudflare-waf:without=lag:without=one-hit", "counts-refused", "AARA", "AARR")
	// one-hit: 2/10s, a request of cost 2 counts one.
	checkDeviation(t, tl("2/10s", [2]int64{0, 2}, [2]int64{sec, 1}), "counter:block=10s", "cloudflare-waf:without=lag:without=counts-refused", "one-hit", "AR", "AA")
	// data-centres: 1/10s over two, the second request at the other one.
	checkDeviation(t, tl("1/10s", [2]int64{0, 1}, [2]int64{sec, 1}), "counter:block=10s", "cloudflare-waf:dcs=2:without=lag:without=counts-refused:without=one-hit", "data-centres", "AR", "AA")
}

// With every deviation off, the rule decides as its twin, whatever its
// timeout, lag and data centres.
func TestCloudflareWAFWithoutDeviationsIsItsTwin(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 4))
	for _, rule := range []string{"10/1m", "60/1m", "5/10s", "100/1h"} {
		r := mustRule(t, rule)
		for _, spec := range []string{"cloudflare-waf", "cloudflare-waf:timeout=0", "cloudflare-waf:timeout=24h:lag=5s:dcs=4"} {
			p := mustNewRule(t, spec, r).(algorithms.Product)
			sameDecisions(t, p.Twin(), withoutAll(p), r, poissonish(rng, r, 20, 20000), false)
		}
	}
}

// The specs, and the periods and parameters Cloudflare does not take.
func TestCloudflareWAFSpecs(t *testing.T) {
	r := mustRule(t, "10/1m")
	checkSpecs(t, r, map[string]string{
		"cloudflare-waf":                            "cloudflare-waf",
		"cloudflare-waf:timeout=1m":                 "cloudflare-waf:timeout=1m",
		"cloudflare-waf:timeout=0":                  "cloudflare-waf:timeout=0",
		"cloudflare-waf:timeout=86400s":             "cloudflare-waf:timeout=24h",
		"cloudflare-waf:dcs=3:lag=1s":               "cloudflare-waf:lag=1s:dcs=3",
		"cloudflare-waf:dcs=3:without=lag":          "cloudflare-waf:dcs=3:without=lag",
		"cloudflare-waf:without=data-centres:dcs=2": "cloudflare-waf:dcs=2:without=data-centres",
	}, []string{"cloudflare-waf:timeout=1500ms", "cloudflare-waf:timeout=-1s", "cloudflare-waf:timeout=48h", "cloudflare-waf:lag=0s", "cloudflare-waf:lag=x", "cloudflare-waf:dcs=0", "cloudflare-waf:dcs=2000", "cloudflare-waf:window=3"}, "want timeout=D", "want lag=D", "want dcs=N", "want cloudflare-waf[")
	checkSpecs(t, r, nil, []string{"cloudflare-waf:lag=1m"}, "not below the period")
	checkSpecs(t, r, nil, []string{"cloudflare-waf:without=data-centres"}, "known: lag, counts-refused, one-hit")
	for _, rule := range []string{"5/30s", "3/1s", "10/24h", "10/90s"} {
		if _, err := algorithms.New("cloudflare-waf", mustRule(t, rule)); err == nil || !strings.Contains(err.Error(), "give a window of 10s, 1m, 2m, 5m, 10m or 1h, not") {
			t.Errorf("%s: %v", rule, err)
		}
	}
	for rule, twin := range map[string]string{"10/1m": "counter:block=1m", "10/10s": "counter:block=10s", "10/1h": "counter:block=1h"} {
		if got := mustNew(t, "cloudflare-waf", rule).(algorithms.Product).Twin(); got != twin {
			t.Errorf("%s: twin %s, want %s", rule, got, twin)
		}
	}
}

// cfBrute is the rule kept plainly: every counted request of each data
// centre in a list, the counter's windows read from it at each decision,
// those within the lag hidden.
type cfBrute struct {
	L, W, timeout, lag, spread int64
	oneHit, every              bool
	n                          int64
	dc                         int64
	counted                    [][]struct{ t, c int64 }
	until                      []int64
}

func (b *cfBrute) decide(t, cost int64) bool {
	b.dc = b.n % b.spread
	b.n++
	if t < b.until[b.dc] {
		return false
	}
	s := algorithms.FloorDiv(t, b.W) * b.W
	var prev, curr int64
	for _, q := range b.counted[b.dc] {
		switch {
		case q.t > t-b.lag: // in the lag: not seen yet
		case q.t >= s:
			curr += q.c
		case q.t >= s-b.W:
			prev += q.c
		}
	}
	hit := cost
	if b.oneHit {
		hit = 1
	}
	if algorithms.CounterLE(prev, curr, t-s, hit, b.L, b.W) {
		return true
	}
	if b.timeout > 0 {
		b.until[b.dc] = t + b.timeout
	}
	return false
}

func (b *cfBrute) record(t, cost int64) {
	if b.oneHit {
		cost = 1
	}
	b.counted[b.dc] = append(b.counted[b.dc], struct{ t, c int64 }{t, cost})
}

// The rule, its counters and the requests in its lag in a replay's block,
// decides as the rule kept plainly on random traces: bursts that overflow
// a key's ring of requests in the lag into the pool, costs, one and three
// data centres, throttling and blocks, and keys released once idle.
func TestCloudflareWAFAgreesWithItsRequestsKeptPlainly(t *testing.T) {
	rng := rand.New(rand.NewPCG(44, 3))
	for _, spec := range []string{"cloudflare-waf", "cloudflare-waf:timeout=0s", "cloudflare-waf:lag=5s:without=one-hit", "cloudflare-waf:dcs=3:timeout=0s:without=counts-refused", "cloudflare-waf:dcs=3:lag=500ms:without=one-hit"} {
		for _, rule := range []string{"5/10s", "30/1m"} {
			r := mustRule(t, rule)
			l := mustNew(t, spec, rule)
			dev := l.(algorithms.Product)
			b := &cfBrute{L: r.L, W: r.W, timeout: r.W, lag: 2 * sec, spread: 1, oneHit: !dev.Off("one-hit"), every: !dev.Off("counts-refused")}
			for _, f := range strings.Split(spec, ":")[1:] {
				k, v, _ := strings.Cut(f, "=")
				switch k {
				case "timeout": // 0s only
					b.timeout = 0
				case "lag":
					b.lag = mustRule(t, "1/"+v).W
				case "dcs":
					b.spread = 3
				}
			}
			b.counted, b.until = make([][]struct{ t, c int64 }, b.spread), make([]int64, b.spread)
			var blk algorithms.Block
			l.(algorithms.Placer).Place(&blk)
			l.Grow(1)
			blk.Grow(1)
			tt := int64(1_700_000_000) * sec
			var released, refused int
			for i := range 4000 {
				switch rng.IntN(30) {
				case 0:
					tt += 3 * r.W
					if rel := l.(algorithms.Releaser); rel.Idle(0, tt) { // released: it decides as a new key, the plain rule too
						rel.Release(0)
						released++
						b.n = 0
						clear(b.until)
						for dc := range b.counted {
							b.counted[dc] = nil
						}
					}
				case 1, 2, 3, 4, 5, 6, 7, 8:
				default:
					tt += rng.Int64N(r.W/r.L/(100*ms)+1) * 100 * ms // on a grid of 100 ms: requests the lag and the windows' edges apart
				}
				cost := 1 + rng.Int64N(3)
				want := b.decide(tt, cost)
				got := l.Decide(0, tt, cost)
				if got != want {
					t.Fatalf("%s %s: request %d at %d ns cost %d: admitted %v, kept plainly %v", spec, rule, i, tt, cost, got, want)
				}
				if !got {
					refused++
				}
				if got || b.every {
					l.Record(0, tt, cost)
					b.record(tt, cost)
				}
			}
			if released == 0 || refused == 0 {
				t.Errorf("%s %s: %d releases, %d refusals: the trace does not exercise them", spec, rule, released, refused)
			}
		}
	}
}
