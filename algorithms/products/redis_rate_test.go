package products_test

import (
	"context"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/go-redis/redis_rate/v10"
	"github.com/redis/go-redis/v9"

	"ratebench/algorithms"
	"ratebench/algorithms/products"
)

// jan2017 is the script's jan_1_2017 in ns: now = 0.0 there.
const jan2017 = int64(1483228800) * sec

func TestRedisRateSpec(t *testing.T) {
	r := algorithms.Rule{L: 10, W: int64(time.Minute)}
	for spec, want := range map[string][2]string{
		"redis_rate":                             {"redis_rate", "gcra"},
		"redis_rate:burst=3":                     {"redis_rate:burst=3", "gcra:B=3"},
		"redis_rate:without=float":               {"redis_rate:without=float", "gcra"},
		"redis_rate:without=float:without=clock": {"redis_rate:without=clock:without=float", "gcra"},
	} {
		l, err := algorithms.New(spec, r)
		if err != nil {
			t.Fatal(err)
		}
		p := l.(algorithms.Product)
		if l.Name() != want[0] || p.Twin() != want[1] {
			t.Errorf("New(%q): name %q twin %q, want %q %q", spec, l.Name(), p.Twin(), want[0], want[1])
		}
		if again, err := algorithms.New(l.Name(), r); err != nil || again.Name() != l.Name() {
			t.Errorf("%q does not round-trip: %v", l.Name(), err)
		}
	}
	for _, bad := range []string{"redis_rate:burst=0", "redis_rate:3", "redis_rate:burst=x", "redis_rate:without=floor"} {
		if _, err := algorithms.New(bad, r); err == nil {
			t.Errorf("New(%q) accepted", bad)
		}
	}
	if _, err := algorithms.New("nope", r); err == nil || !strings.Contains(err.Error(), "redis_rate[:burst=N]") {
		t.Errorf("unknown-algorithm error does not list redis_rate: %v", err)
	}
	l := mustNew(t, "redis_rate", "10/1m")
	l.Grow(1)
	if l.Bytes(0) != 8 || !l.FixedSize() || l.CountsRejected() {
		t.Errorf("Bytes %d FixedSize %v CountsRejected %v, want 8 true false", l.Bytes(0), l.FixedSize(), l.CountsRejected())
	}
}

// With its deviations off, redis_rate decides as GCRA with burst B.
func TestRedisRateWithoutDeviationsIsTwin(t *testing.T) {
	rng := rand.New(rand.NewPCG(161, 162))
	for _, r := range propertyRules {
		trace := poissonish(rng, r, 20, 20000)
		for _, spec := range []string{"redis_rate", "redis_rate:burst=3"} {
			l, _ := algorithms.New(spec, r)
			sameDecisions(t, spec+":without=clock:without=float", l.(algorithms.Product).Twin(), r, trace, false)
		}
	}
}

// The allowN script's arithmetic (lua.go lines 17-19, 28-30, 40-48) where
// every value is a double exactly: at 2017-01-01 now = 0.0, rule 1/1s,
// burst 1: emission_interval 1.0, burst_offset 1.0. The first request
// stores new_tat 1.0; at now 0.999999 diff = 0.999999 - (1+1-1) < 0,
// refused; at now 1.0 diff = 0, remaining 0, admitted (the test is < 0).
func TestRedisRateTimeline(t *testing.T) {
	play(t, mustNew(t, "redis_rate", "1/1s"), false, []step{
		{T: jan2017, Cost: 1, Admit: true},
		{T: jan2017 + 999_999_000, Cost: 1, Admit: false},
		{T: jan2017 + sec, Cost: 1, Admit: true},
		{T: jan2017 + 2*sec - 1000, Cost: 1, Admit: false},
		{T: jan2017 + 3*sec, Cost: 2, Admit: false}, // cost 2 > burst 1: new_tat - now = 2 > 1
		{T: jan2017 + 3*sec, Cost: 1, Admit: true},
	})
}

// clock: TIME has microseconds. Rule 1/1s, burst 2, from 1000 s after
// 2017 (whole seconds, exact doubles). The first request, 800 ns in, has
// now 1000.0 and stores 1001.0; the second, at 1001 s + 500 ns (now
// 1001.0), stores 1002.0; the third, at the same time, has new_tat 1003,
// allow_at 1001 and diff 0: admitted. On the nanosecond clock now is
// 1001.0000005 there while the TAT is 1002.0000008 (the first request's
// 800 ns kept): diff is about -3e-7, refused.
func TestRedisRateClockDeviation(t *testing.T) {
	t0 := jan2017 + 1000*sec
	steps := []step{{T: t0 + 800, Cost: 1, Admit: true}, {T: t0 + sec + 500, Cost: 1, Admit: true}, {T: t0 + sec + 500, Cost: 1, Admit: true}}
	play(t, mustNew(t, "redis_rate:burst=2", "1/1s"), false, steps)
	steps[2].Admit = false
	play(t, mustNew(t, "redis_rate:burst=2:without=clock", "1/1s"), false, steps)
}

// float: PerSecond(5) at 3,000,016 s after 2017 (2017-02-04T17:20:16Z).
// emission_interval 0.2 and burst_offset 1.0; the TATs 3000016.2,
// 3000016.4000000004, 3000016.6000000006, 3000016.8000000007 each round up,
// so the fifth request's new_tat is 3000017.000000001, allow_at
// 3000016.000000001 and diff -9.3e-10 < 0: a burst of 4, not 5, while the
// exact arithmetic admits 5 (new_tat - now = 1.0 = burst_offset).
func TestRedisRateFloatDeviation(t *testing.T) {
	t0 := jan2017 + 3_000_016*sec
	steps := []step{{T: t0, Cost: 1, Admit: true}, {T: t0, Cost: 1, Admit: true}, {T: t0, Cost: 1, Admit: true}, {T: t0, Cost: 1, Admit: true}, {T: t0, Cost: 1, Admit: false}}
	play(t, mustNew(t, "redis_rate", "5/1s"), false, steps)
	steps[4].Admit = true
	play(t, mustNew(t, "redis_rate:without=float", "5/1s"), false, steps)
}

// float, the increment lost: rule 1000/10us, emission_interval 1e-8 s,
// below half the spacing of doubles near now = 281,361,600 s (2026-12-01:
// 2^-24 s), so new_tat = now, new_tat - now = 0 is not > 0 and SET is
// skipped (lines 59-62): the key never has a TAT and every request is
// admitted, where exact arithmetic admits the burst of 1000.
func TestRedisRateLostIncrement(t *testing.T) {
	r := algorithms.Rule{L: 1000, W: 10_000}
	t0 := int64(1764590400) * sec
	for spec, want := range map[string]int{"redis_rate": 3000, "redis_rate:without=float": 1000} {
		l, _ := algorithms.New(spec, r)
		l.Grow(1)
		n := 0
		for range 3000 {
			if l.Decide(0, t0, 1) {
				l.Record(0, t0, 1)
				n++
			}
		}
		if n != want {
			t.Errorf("%s: %d admitted at one instant, want %d", spec, n, want)
		}
	}
}

// msRedis returns a miniredis server and a go-redis client to it.
func msRedis(t *testing.T) (*miniredis.Miniredis, *redis.Client) {
	t.Helper()
	mr := miniredis.RunT(t)
	rdb := redis.NewClient(&redis.Options{Addr: mr.Addr(), Protocol: 2})
	t.Cleanup(func() { rdb.Close() })
	return mr, rdb
}

// TestMiniredisTimeFollowsSetTime: the TIME the script reads is the
// clock SetTime gives, in seconds and microseconds (truncated).
func TestMiniredisTimeFollowsSetTime(t *testing.T) {
	mr, rdb := msRedis(t)
	at := int64(1_700_000_123_456_789_999)
	mr.SetTime(time.Unix(0, at))
	got, err := rdb.Time(context.Background()).Result()
	if err != nil {
		t.Fatal(err)
	}
	if got.UnixNano() != at/1000*1000 {
		t.Errorf("TIME = %d ns, want %d", got.UnixNano(), at/1000*1000)
	}
}

// TestRedisRateMatchesModule runs the real redis_rate module (its Go code
// and its Lua script, in miniredis's gopher-lua, float64 as Redis's Lua)
// beside the model, request by request, with TIME set to each request's
// time: the decisions are identical. Beside them runs the exact
// arithmetic on the same microsecond clock (redis_rate:without=float),
// recording what the module admits: where it decides otherwise on that
// same history is a float flip, over (the module admits) or under. Every
// flip lies within a microsecond of the exact boundary (the exact answer
// changes between now and one microsecond away), as rounding of TATs to
// 2^-24 s or less can only move it by that much, and they are few.
func TestRedisRateMatchesModule(t *testing.T) {
	mr, rdb := msRedis(t)
	lim := redis_rate.NewLimiter(rdb)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(163, 164))
	var over, under [4]int
	for ci, c := range []struct {
		rule, spec string
		start      int64
	}{
		{"5/1s", "redis_rate", jan2017 + 3_000_016*sec},
		{"10/1m", "redis_rate", 1_700_000_000 * sec},
		{"7/1s", "redis_rate:burst=3", 1_764_590_400 * sec},
		{"100/1m", "redis_rate:burst=150", 1_600_000_000 * sec},
	} {
		r, _ := algorithms.ParseRule(c.rule)
		model := mustNew(t, c.spec, c.rule)
		exact := mustNew(t, c.spec+":without=float", c.rule)
		model.Grow(8)
		exact.Grow(8)
		burst := model.(*products.RedisRate).Burst()
		limit := redis_rate.Limit{Rate: int(r.L), Burst: int(burst), Period: time.Duration(r.W)}
		// Whole microseconds or not, some bursts at one instant, keys near
		// their limit.
		trace := edgeTrace(rng, r, 8, 1500, c.start)
		admitted := 0
		for i, q := range trace {
			mr.SetTime(time.Unix(0, q.T))
			res, err := lim.AllowN(ctx, strconv.Itoa(ci)+":"+strconv.Itoa(q.Key), limit, int(q.Cost))
			if err != nil {
				t.Fatal(err)
			}
			want := res.Allowed > 0
			id := int32(q.Key)
			got := model.Decide(id, q.T, q.Cost)
			if got != want {
				t.Fatalf("%s %s: request %d %+v: model %v, module %v", c.spec, c.rule, i, q, got, want)
			}
			ex := exact.Decide(id, q.T, q.Cost)
			if ex != got {
				// Decide leaves GCRA's state as it is: ask a microsecond away.
				near := q.T + 1000 // over: exact admits a microsecond later
				if ex {
					under[ci]++
					near = q.T - 1000 // under: exact refuses a microsecond earlier
				} else {
					over[ci]++
				}
				if exact.Decide(id, near, q.Cost) == ex {
					t.Errorf("%s %s: request %d %+v: module %v, exact %v, not within a microsecond of the boundary", c.spec, c.rule, i, q, got, ex)
				}
			}
			if got {
				model.Record(id, q.T, q.Cost)
				exact.Record(id, q.T, q.Cost)
				admitted++
			}
		}
		if admitted == 0 || admitted == len(trace) {
			t.Fatalf("%s %s: admitted %d of %d", c.spec, c.rule, admitted, len(trace))
		}
	}
	// The burst of 4, not 5, at 3,000,016 s after 2017 (as
	// TestRedisRateFloatDeviation) flips under; elsewhere none.
	if want := [4]int{19, 0, 0, 0}; under != want || over != [4]int{} {
		t.Errorf("float flips: over %v, under %v; want none over, under %v", over, under, want)
	}
}
