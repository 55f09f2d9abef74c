package products_test

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"ratebench/algorithms"
)

// ThrottlerStorageService's arithmetic for limit 2, ttl 60000,
// blockDuration its default, ttl (increment, throttler.service.js): each
// hit expires 60000 ms after it; the request that finds 2 live hits is
// blocked till 60000 ms after it, the requests in the block refused and
// not counted; the first at or after the block's end is admitted, the
// key's hits forgotten.
func TestNestThrottlerTimeline(t *testing.T) {
	l := mustNew(t, "nestjs-throttler", "2/1m")
	if p := l.(algorithms.Product); p.Twin() != "log:block=1m" || algorithms.CountsEvery(l) || len(p.Deviations()) != 2 {
		t.Fatalf("twin %q, counts every %v, deviations %v", p.Twin(), algorithms.CountsEvery(l), p.Deviations())
	}
	play(t, l, false, []step{
		{T: 10*sec + 600*us, Cost: 1, Admit: true}, // expires at 70000 ms
		{T: 40 * sec, Cost: 1, Admit: true},        // expires at 100000 ms
		{T: 50 * sec, Cost: 1, Admit: false},       // 2 live: blocked till 110000 ms
		{T: 71 * sec, Cost: 1, Admit: false},       // one hit live, but blocked
		{T: 110*sec - 100*us, Cost: 1, Admit: false},
		{T: 110*sec + 400*us, Cost: 3, Admit: true}, // 110000 ms: the block is over, one hit whatever the cost
		{T: 111 * sec, Cost: 1, Admit: true},
		{T: 112 * sec, Cost: 1, Admit: false}, // blocked again till 172000 ms
		{T: 171 * sec, Cost: 1, Admit: false}, // the hits expired at 170000 and 171000 ms, the block has not
		{T: 172 * sec, Cost: 1, Admit: true},
	})
	// blockDuration 0: the sliding log, refused requests not counted.
	l = mustNew(t, "nestjs-throttler:blockDuration=0s", "2/1m")
	if p := l.(algorithms.Product); p.Twin() != "log" || l.Name() != "nestjs-throttler:blockDuration=0s" {
		t.Fatalf("twin %q, name %s", p.Twin(), l.Name())
	}
	play(t, l, false, []step{
		{T: 10 * sec, Cost: 1, Admit: true},
		{T: 40 * sec, Cost: 1, Admit: true},
		{T: 50 * sec, Cost: 1, Admit: false},
		{T: 70*sec - ms, Cost: 1, Admit: false},
		{T: 70 * sec, Cost: 1, Admit: true}, // the first hit expired at 70000 ms
		{T: 71 * sec, Cost: 1, Admit: false},
	})
}

// Each deviation, alone, changes a decision of the twin; turned off too,
// the timeline is the twin's again.
func TestNestThrottlerEachDeviationAloneChangesADecision(t *testing.T) {
	for _, c := range []struct {
		name, rule, spec, twinSpec string
		reqs                       [][2]int64
		twin, product              string
	}{
		// clock: the hit at 0.9 ms is 0 ms and expires at 1000 ms, before
		// the request at 1000.5 ms; in ns it expires at 1000.9 ms.
		{"clock", "1/1s", "nestjs-throttler:without=one-hit", "log:block=1s",
			[][2]int64{{900 * us, 1}, {1000*ms + 500*us, 1}}, "AR", "AA"},
		// one-hit: a request of cost 2, then one of cost 1: two hits of
		// two; the twin counts 3 > 2.
		{"one-hit", "2/1m", "nestjs-throttler:without=clock", "log:block=1m",
			[][2]int64{{sec, 2}, {2 * sec, 1}}, "AR", "AA"},
		// block-clears: blocked at 3 s till 13 s; the twin's log still
		// holds the hits of 1 and 2 s at 14 s.
		{"block-clears", "2/1m", "nestjs-throttler:blockDuration=10s:without=clock:without=one-hit", "log:block=10s",
			[][2]int64{{sec, 1}, {2 * sec, 1}, {3 * sec, 1}, {14 * sec, 1}}, "AARR", "AARA"},
	} {
		r := mustRule(t, c.rule)
		checkDeviation(t, func(spec string) string { return ownTimeline(t, spec, r, c.reqs...) }, c.twinSpec, c.spec, c.name, c.twin, c.product)
	}
}

// The spec: blockDuration from 0; block-clears only with a block shorter
// than the window; anything else refused naming nestjs-throttler.
func TestNestThrottlerSpecs(t *testing.T) {
	for _, c := range []struct {
		spec, rule, name string
		devs             int
	}{
		{"nestjs-throttler", "5/1s", "nestjs-throttler", 2},
		{"nestjs-throttler:blockDuration=1s", "5/1s", "nestjs-throttler:blockDuration=1s", 2},
		{"nestjs-throttler:blockDuration=10s", "5/1s", "nestjs-throttler:blockDuration=10s", 2},
		{"nestjs-throttler:blockDuration=500ms", "5/1s", "nestjs-throttler:blockDuration=500ms", 3},
		{"nestjs-throttler:blockDuration=0s", "5/1500us", "nestjs-throttler:blockDuration=0s", 2},
	} {
		l := mustNew(t, c.spec, c.rule)
		if l.Name() != c.name || len(l.(algorithms.Product).Deviations()) != c.devs {
			t.Errorf("%s is named %s with %d deviations, want %s, %d", c.spec, l.Name(), len(l.(algorithms.Product).Deviations()), c.name, c.devs)
		}
	}
	for _, c := range []struct{ spec, rule string }{
		{"nestjs-throttler:", "5/1s"},
		{"nestjs-throttler:blockDuration=-1s", "5/1s"},
		{"nestjs-throttler:ttl=1s", "5/1s"},
		{"nestjs-throttler", "5/999us"},
		{"nestjs-throttler", "9007199254740993/1s"},
	} {
		r := mustRule(t, c.rule)
		if _, err := algorithms.New(c.spec, r); err == nil || !strings.Contains(err.Error(), "nestjs-throttler") {
			t.Errorf("%s under %s: %v, want an error naming nestjs-throttler", c.spec, c.rule, err)
		}
	}
}

// With every deviation off it decides as its twin, log:block=D or log
// (independent mode; without a block, counting every request too).
func TestNestThrottlerDecidesAsTwinWithoutDeviations(t *testing.T) {
	rng := rand.New(rand.NewPCG(28, 1))
	for _, r := range ululeRules {
		if r.W < ms {
			continue
		}
		trace := poissonish(rng, r, 8, 3000)
		for _, extra := range []string{"", ":blockDuration=0s", ":blockDuration=" + algorithms.FormatWindow(r.W/3+1), ":blockDuration=" + algorithms.FormatWindow(2*r.W)} {
			p := mustNewRule(t, "nestjs-throttler"+extra, r).(algorithms.Product)
			sameDecisions(t, withoutAll(p), p.Twin(), r, trace, false)
			if extra == ":blockDuration=0s" {
				sameDecisions(t, withoutAll(p), p.Twin(), r, trace, true)
			}
		}
	}
}

// Idle holds exactly when the next request would find the key fresh: a
// replay that releases idle keys decides as one that never does.
func TestNestThrottlerIdleIsFresh(t *testing.T) {
	rng := rand.New(rand.NewPCG(28, 2))
	for _, r := range []algorithms.Rule{{L: 3, W: int64(time.Second)}, {L: 2, W: 1500 * us}} {
		for _, spec := range []string{"nestjs-throttler", "nestjs-throttler:blockDuration=0s", "nestjs-throttler:blockDuration=300us", "nestjs-throttler:without=clock"} {
			idleIsFresh(t, rng, spec, r, 0)
		}
	}
}

// nestBrute is the storage as its source reads, kept plainly: a list of
// each hit's instant and weight on the model's clock, a hit over once its
// expiry is (with "clock": float64 instant + ttl in ms, at most the
// float64 now in whole ms), the block's start and whether it clears.
type nestBrute struct {
	L, w, block       int64
	ttlMs, blkMs      float64
	clock, oneHit, cl bool
	hits              []struct{ at, n int64 }
	from              int64
	blocked           bool
}

func (b *nestBrute) now(t int64) int64 {
	if b.clock {
		return algorithms.FloorDiv(t, ms)
	}
	return t
}

func (b *nestBrute) over(from, now, d int64, dMs float64) bool {
	if b.clock {
		return float64(from)+dMs <= float64(now)
	}
	return now-from >= d
}

func (b *nestBrute) step(t, cost int64, record bool) bool {
	now := b.now(t)
	live := b.hits[:0]
	for _, h := range b.hits {
		if !b.over(h.at, now, b.w, b.ttlMs) {
			live = append(live, h)
		}
	}
	b.hits = live
	if b.blocked && b.over(b.from, now, b.block, b.blkMs) {
		b.blocked = false
		if b.cl {
			b.hits = b.hits[:0]
		}
	}
	if b.blocked {
		return false
	}
	n := cost
	if b.oneHit {
		n = 1
	}
	var sum int64
	for _, h := range b.hits {
		sum += h.n
	}
	admit := n <= b.L-sum
	if !admit && b.block > 0 {
		b.blocked, b.from = true, now
	}
	if admit && record {
		b.hits = append(b.hits, struct{ at, n int64 }{now, n})
	}
	return admit
}

// The model, its hits in a replay's block, decides as the storage kept
// plainly on random traces: windows of fractional milliseconds (whose
// expiries' float64 sums round), costs, blocks shorter and longer than
// the window, every deviation on or off, bursts that overflow the ring
// into the pool and keys idle long enough to empty it.
func TestNestThrottlerAgreesWithItsHitsKeptPlainly(t *testing.T) {
	rng := rand.New(rand.NewPCG(43, 9))
	for _, r := range []algorithms.Rule{{L: 3, W: int64(time.Second)}, {L: 2, W: 1500 * us}, {L: 40, W: 1000*ms + 37}, {L: 5, W: 2*ms + 999*us}} {
		for _, block := range []int64{-1, 0, 300 * us, r.W / 3, 2 * r.W} {
			for mask := range 8 {
				spec := "nestjs-throttler"
				b := &nestBrute{L: r.L, w: r.W, block: r.W, clock: mask&1 == 0, oneHit: mask&2 == 0}
				if block >= 0 {
					spec += ":blockDuration=" + algorithms.FormatWindow(block)
					if block == 0 {
						spec = "nestjs-throttler:blockDuration=0s"
					}
					b.block = block
				}
				b.cl = b.block > 0 && b.block < r.W && mask&4 == 0
				for i, d := range []string{"clock", "one-hit"} {
					if mask&(1<<i) != 0 {
						spec += ":without=" + d
					}
				}
				if mask&4 != 0 && b.block > 0 && b.block < r.W {
					spec += ":without=block-clears"
				}
				b.ttlMs, b.blkMs = float64(r.W)/float64(ms), float64(b.block)/float64(ms)
				l, err := algorithms.New(spec, r)
				if err != nil {
					t.Fatal(err)
				}
				var blk algorithms.Block
				l.(algorithms.Placer).Place(&blk)
				l.Grow(1)
				blk.Grow(1)
				tt := int64(1_700_000_000)*sec + rng.Int64N(sec)
				for i := range 3000 {
					switch rng.IntN(40) {
					case 0:
						tt += 3 * r.W // idle: every hit over
					case 1, 2, 3, 4, 5, 6:
						// a burst at the same instant
					default:
						tt += rng.Int64N(r.W/(2*r.L) + 1)
					}
					cost := 1 + rng.Int64N(3)
					want := b.step(tt, cost, true)
					got := l.Decide(0, tt, cost)
					if got {
						l.Record(0, tt, cost)
					}
					if got != want {
						t.Fatalf("%s %v: request %d at %d ns cost %d: admitted %v, kept plainly %v", spec, r, i, tt, cost, got, want)
					}
				}
			}
		}
	}
}
