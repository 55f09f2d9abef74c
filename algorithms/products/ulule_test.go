package products_test

import (
	"context"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
	"testing/synctest"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"
	limiter "github.com/ulule/limiter/v3"
	"github.com/ulule/limiter/v3/drivers/store/memory"
	redisstore "github.com/ulule/limiter/v3/drivers/store/redis"

	"ratebench/algorithms"
	"ratebench/algorithms/products"
)

// The Redis store's arithmetic (drivers/store/redis/store.go:18-31,
// common/context.go:15-18) for limit 2 per minute: INCRBY for every
// request, reached iff the count exceeds 2; PEXPIRE 60000 when the key is
// created; Redis expires the key once its millisecond clock is past
// anchor + 60000.
func TestUluleTimeline(t *testing.T) {
	steps := []step{
		{T: 30*sec + 600*us, Cost: 1, Admit: true},  // key created at 30000 ms, expiry 90000 ms: count 1
		{T: 40 * sec, Cost: 1, Admit: true},         // 2
		{T: 50 * sec, Cost: 2, Admit: false},        // 4 > 2, counted
		{T: 61 * sec, Cost: 1, Admit: false},        // the epoch's minute changed, the key's window did not: 5
		{T: 90*sec + 900*us, Cost: 1, Admit: false}, // 90000 ms, not past 90000: 6
		{T: 90*sec + ms, Cost: 1, Admit: true},      // 90001 > 90000: expired; a new key at 90001 ms: 1
		{T: 150*sec + ms, Cost: 1, Admit: true},     // 150001 ms, not past: 2
		{T: 150*sec + 2*ms, Cost: 1, Admit: true},   // expired: 1
	}
	u := mustNew(t, "ulule", "2/1m")
	if !algorithms.CountsEvery(u) || u.(algorithms.Product).Twin() != "fixed" {
		t.Fatalf("ulule: counts every %v, twin %q", algorithms.CountsEvery(u), u.(algorithms.Product).Twin())
	}
	play(t, u, true, steps)
	// anchor off: windows of 60000 ms from the epoch.
	play(t, mustNew(t, "ulule:without=anchor", "2/1m"), true, []step{
		{T: 30*sec + 600*us, Cost: 1, Admit: true}, {T: 40 * sec, Cost: 1, Admit: true}, {T: 50 * sec, Cost: 2, Admit: false},
		{T: 61 * sec, Cost: 1, Admit: true}, // a new window at 60 s
		{T: 90*sec + 900*us, Cost: 1, Admit: true}, {T: 90*sec + ms, Cost: 1, Admit: false},
		{T: 150*sec + ms, Cost: 1, Admit: true}, {T: 150*sec + 2*ms, Cost: 1, Admit: true},
	})
	// clock off: anchored at 30.0006 s, expired once past 90.0006 s.
	play(t, mustNew(t, "ulule:without=clock", "2/1m"), true, []step{
		{T: 30*sec + 600*us, Cost: 1, Admit: true}, {T: 40 * sec, Cost: 1, Admit: true}, {T: 50 * sec, Cost: 2, Admit: false}, {T: 61 * sec, Cost: 1, Admit: false},
		{T: 90*sec + 900*us, Cost: 1, Admit: true}, // expired: anchored again at 90.0009 s
		{T: 90*sec + ms, Cost: 1, Admit: true},
		{T: 150*sec + ms, Cost: 1, Admit: true}, // past 150.0009 s: a new window
		{T: 150*sec + 2*ms, Cost: 1, Admit: true},
	})
	// counts-refused: a refused request of cost 2 uses up the window.
	refused := []step{{T: sec, Cost: 1, Admit: true}, {T: 2 * sec, Cost: 2, Admit: false}, {T: 3 * sec, Cost: 1, Admit: false}}
	play(t, mustNew(t, "ulule", "2/1m"), true, refused)
	refused[2].Admit = true
	off := mustNew(t, "ulule:without=counts-refused", "2/1m")
	if algorithms.CountsEvery(off) || off.Name() != "ulule:without=counts-refused" {
		t.Errorf("%s counts every request", off.Name())
	}
	play(t, off, false, refused)
}

// A request of cost 0 creates the key holding 0; the next request's INCRBY
// returns its own count, so the script sets the TTL again: the window is
// anchored there (store.go:23-27).
func TestUluleCostZeroReanchors(t *testing.T) {
	play(t, mustNew(t, "ulule", "1/1m"), true, []step{
		{T: sec, Cost: 0, Admit: true},         // key at 1000 ms, holding 0
		{T: 30 * sec, Cost: 1, Admit: true},    // INCRBY returns 1 = count: PEXPIRE again, expiry 90000 ms
		{T: 62 * sec, Cost: 1, Admit: false},   // 2 > 1 (anchored at 1 s it would have expired)
		{T: 90 * sec, Cost: 1, Admit: false},   // not past 90000
		{T: 90*sec + ms, Cost: 1, Admit: true}, // expired
	})
}

// rate.Period.Milliseconds() truncates: a period below 1 ms gives ttl 0,
// and the script sets no expiry, so the key never expires.
func TestUluleSubMillisecondPeriodNeverExpires(t *testing.T) {
	play(t, mustNew(t, "ulule", "1/500us"), true, []step{{T: 0, Cost: 1, Admit: true}, {T: sec, Cost: 1, Admit: false}, {T: 1000 * sec, Cost: 1, Admit: false}})
	play(t, mustNew(t, "ulule:without=clock", "1/500us"), true, []step{{T: 0, Cost: 1, Admit: true}, {T: sec, Cost: 1, Admit: true}, {T: sec + 100*us, Cost: 1, Admit: false}, {T: sec + 501*us, Cost: 1, Admit: true}})
	// 1.5 ms truncated to 1 ms: expired at 2 ms.
	play(t, mustNew(t, "ulule", "1/1500us"), true, []step{{T: 0, Cost: 1, Admit: true}, {T: ms, Cost: 1, Admit: false}, {T: 2 * ms, Cost: 1, Admit: true}})
}

func TestUluleDecidesAsFixedWithoutDeviations(t *testing.T) {
	rng := rand.New(rand.NewPCG(16, 1))
	for _, r := range ululeRules {
		trace := poissonish(rng, r, 8, 3000)
		sameDecisions(t, "ulule:without=anchor:without=clock:without=counts-refused", "fixed", r, trace, false)
		sameDecisions(t, "ulule:without=anchor:without=clock:without=counts-refused", "fixed", r, trace, true)
	}
}

const us = int64(time.Microsecond)

// byTime sorts a generated trace by time (each key's requests keep their
// order): a store's clock serves every key.
func byTime(tr []req) []req {
	slices.SortStableFunc(tr, func(a, b req) int {
		switch {
		case a.T < b.T:
			return -1
		case a.T > b.T:
			return 1
		}
		return 0
	})
	return tr
}

var ululeRules = []algorithms.Rule{
	{L: 5, W: int64(30 * time.Second)},
	{L: 100, W: int64(time.Minute)},
	{L: 7, W: int64(time.Second) + 3},
	{L: 4, W: int64(1500 * time.Microsecond)},
	{L: 3, W: int64(700 * time.Microsecond)},
}

// TestUluleMatchesRedisStore drives the module's Redis store on miniredis,
// its clock following the trace's in whole milliseconds (FastForward), and
// the model beside it, request by request. miniredis deletes a key when its
// TTL reaches 0, Redis only once the time is past the expiry (now > when):
// the module is given a period 1 ms longer (when the period is at least
// 1 ms), so that miniredis expires the key when Redis would.
func TestUluleMatchesRedisStore(t *testing.T) {
	mr := miniredis.RunT(t)
	client := redis.NewClient(&redis.Options{Addr: mr.Addr()})
	defer client.Close()
	store, err := redisstore.NewStoreWithOptions(client, limiter.StoreOptions{Prefix: "rb"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(16, 2))
	refused := 0
	for i, r := range ululeRules {
		period := time.Duration(r.W)
		if period >= time.Millisecond {
			period += time.Millisecond
		}
		lim := limiter.New(store, limiter.Rate{Period: period, Limit: r.L})
		model := products.NewUlule(r)
		model.Grow(8)
		trace := byTime(poissonish(rng, r, 8, 1500))
		prev := trace[0].T / ms
		for n, q := range trace {
			now := q.T / ms
			mr.FastForward(time.Duration(now-prev) * time.Millisecond)
			prev = now
			c, err := lim.Increment(ctx, strconv.Itoa(i)+":"+strconv.Itoa(q.Key), q.Cost)
			if err != nil {
				t.Fatal(err)
			}
			got := model.Decide(int32(q.Key), q.T, q.Cost)
			model.Record(int32(q.Key), q.T, q.Cost)
			if got != !c.Reached {
				t.Fatalf("%v request %d %+v: model admits %v, the module's count %d reached %v", r, n, q, got, c.Limit-c.Remaining, c.Reached)
			}
			if !got {
				refused++
			}
		}
	}
	if refused < 500 {
		t.Errorf("only %d refusals: the traces do not exercise the limit", refused)
	}
}

// TestUluleMatchesMemoryStore drives the module's memory store in a
// synctest bubble, whose fake time.Now() follows the trace's clock (shifted
// to the bubble's start): it decides as the model on a nanosecond clock.
func TestUluleMatchesMemoryStore(t *testing.T) {
	rng := rand.New(rand.NewPCG(16, 3))
	for _, r := range ululeRules {
		trace := byTime(poissonish(rng, r, 8, 1500))
		synctest.Test(t, func(t *testing.T) {
			store := memory.NewStoreWithOptions(limiter.StoreOptions{Prefix: "rb"}) // no cleaner goroutine
			lim := limiter.New(store, limiter.Rate{Period: time.Duration(r.W), Limit: r.L})
			model, err := algorithms.New("ulule:without=clock", r)
			if err != nil {
				t.Fatal(err)
			}
			model.Grow(8)
			start := time.Now()
			refused := 0
			for n, q := range trace {
				time.Sleep(time.Until(start.Add(time.Duration(q.T - trace[0].T))))
				c, err := lim.Increment(context.Background(), strconv.Itoa(q.Key), q.Cost)
				if err != nil {
					t.Fatal(err)
				}
				got := model.Decide(int32(q.Key), q.T, q.Cost)
				model.Record(int32(q.Key), q.T, q.Cost)
				if got != !c.Reached {
					t.Fatalf("%v request %d %+v: model admits %v, the memory store reached %v", r, n, q, got, c.Reached)
				}
				if !got {
					refused++
				}
			}
			if refused == 0 || refused == len(trace) {
				t.Errorf("%v: %d refused of %d", r, refused, len(trace))
			}
		})
	}
}
