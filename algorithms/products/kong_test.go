package products_test

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"ratebench/algorithms"
	"ratebench/algorithms/products"
)

func utc(t *testing.T, s string) int64 {
	t.Helper()
	u, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Fatal(err)
	}
	return u.UnixNano()
}

// The plugin's arithmetic for minute = 3 (handler.lua:100, 108: refused iff
// limit - usage <= 0; the increment, by 1, only after an admission,
// handler.lua:200, 208-216): the minute is the UTC minute.
func TestKongTimeline(t *testing.T) {
	l := mustNew(t, "kong", "3/1m")
	if p := l.(algorithms.Product); p.Twin() != "fixed" || len(p.Deviations()) != 1 || l.Name() != "kong" {
		t.Fatalf("%s: twin %q, deviations %v", l.Name(), p.Twin(), p.Deviations())
	}
	m := int64(1_700_000_040) * sec // a whole minute
	play(t, l, false, []step{
		{T: m + 100*ms, Cost: 1, Admit: true},      // usage 0 -> 1
		{T: m + 30*sec, Cost: 1, Admit: true},      // 1 -> 2
		{T: m + 31*sec, Cost: 1, Admit: true},      // 2: remaining 1 > 0 -> 3
		{T: m + 32*sec, Cost: 1, Admit: false},     // 3: remaining 0 <= 0, not counted
		{T: m + 60*sec - 1, Cost: 1, Admit: false}, // same minute
		{T: m + 60*sec, Cost: 1, Admit: true},      // the next minute's key: 0 -> 1
		{T: m + 61*sec, Cost: 5, Admit: true},      // one hit whatever the cost: 1 -> 2
		{T: m + 62*sec, Cost: 9, Admit: true},      // 2 -> 3
		{T: m + 63*sec, Cost: 1, Admit: false},
	})
	// Without one-hit, fixed: usage + cost <= L, counting the cost.
	play(t, mustNew(t, "kong:without=one-hit", "3/1m"), false, []step{
		{T: m, Cost: 1, Admit: true}, {T: m + sec, Cost: 5, Admit: false}, {T: m + 2*sec, Cost: 2, Admit: true}, {T: m + 3*sec, Cost: 1, Admit: false},
	})
	if _, err := algorithms.New("kong:without=calendar", algorithms.Rule{L: 3, W: int64(time.Minute)}); err == nil || !strings.Contains(err.Error(), "known: one-hit") {
		t.Errorf("kong at 1m without calendar: %v", err)
	}
}

// A month is the calendar month (timestamp.lua:62-63): 2024-01-20 and
// 2024-02-02 lie in one window of 720h from the epoch ([2024-01-18,
// 2024-02-17), days 19740 to 19770) but in two months.
func TestKongCalendarMonth(t *testing.T) {
	steps := func(second bool) []step {
		return []step{
			{T: utc(t, "2024-01-20T10:00:00Z"), Cost: 1, Admit: true},
			{T: utc(t, "2024-01-31T23:59:59.999Z"), Cost: 1, Admit: false},
			{T: utc(t, "2024-02-02T10:00:00Z"), Cost: 1, Admit: second},
		}
	}
	play(t, mustNew(t, "kong:without=expiry", "1/720h"), false, steps(true))
	play(t, mustNew(t, "kong:without=calendar:without=expiry", "1/720h"), false, steps(false))
	play(t, mustNew(t, "kong:without=calendar", "1/720h"), false, steps(false))
	if b := mustNew(t, "kong", "1/720h").Bytes(0); b != 24 {
		t.Errorf("bytes %d, want 24", b)
	}
}

// The counter's key lives EXPIRATION.month = 2592000 s (30 days) from its
// creation by the first admitted request (policies/init.lua:308): January
// has 31 days, so a key created on the 1st at 00:00:10 is gone on the 31st
// at 00:00:10.000 and the count starts again.
func TestKongExpiry(t *testing.T) {
	steps := func(expiry bool) []step {
		return []step{
			{T: utc(t, "2024-01-01T00:00:10.0004Z"), Cost: 1, Admit: true}, // ms 10000: expires at +2592000000 ms
			{T: utc(t, "2024-01-15T00:00:00Z"), Cost: 1, Admit: false},
			{T: utc(t, "2024-01-31T00:00:09.999999Z"), Cost: 1, Admit: false}, // 1 ms before
			{T: utc(t, "2024-01-31T00:00:10Z"), Cost: 1, Admit: expiry},       // expired: usage 0
			{T: utc(t, "2024-01-31T12:00:00Z"), Cost: 1, Admit: false},
			{T: utc(t, "2024-02-01T00:00:00Z"), Cost: 1, Admit: true},
		}
	}
	play(t, mustNew(t, "kong", "1/720h"), false, steps(true))
	play(t, mustNew(t, "kong:without=expiry", "1/720h"), false, steps(false))
	// A leap year has 366 days, the key's life 365 (expiration.lua:7).
	year := func(expiry bool) []step {
		return []step{
			{T: utc(t, "2024-01-01T00:00:00Z"), Cost: 1, Admit: true},
			{T: utc(t, "2024-12-30T23:59:59Z"), Cost: 1, Admit: false},
			{T: utc(t, "2024-12-31T12:00:00Z"), Cost: 1, Admit: expiry},
			{T: utc(t, "2025-01-01T00:00:00Z"), Cost: 1, Admit: true},
		}
	}
	play(t, mustNew(t, "kong", "1/8760h"), false, year(true))
	play(t, mustNew(t, "kong:without=expiry", "1/8760h"), false, year(false))
	// February (29 days in 2024) ends before its key expires.
	play(t, mustNew(t, "kong", "1/720h"), false, []step{
		{T: utc(t, "2024-02-01T00:00:00Z"), Cost: 1, Admit: true},
		{T: utc(t, "2024-02-29T23:59:59Z"), Cost: 1, Admit: false},
		{T: utc(t, "2024-03-01T00:00:00Z"), Cost: 1, Admit: true},
	})
}

func TestKongPeriods(t *testing.T) {
	for w, p := range map[string]string{"1s": "second", "1m": "minute", "1h": "hour", "24h": "day", "720h": "month", "8760h": "year"} {
		l, err := algorithms.New("kong", algorithms.Rule{L: 10, W: mustDur(t, w)})
		if err != nil || l.(*products.Kong).Period() != p {
			t.Errorf("10/%s: %v, want period %s", w, err, p)
		}
	}
	for _, w := range []string{"90s", "2m", "500ms", "168h"} {
		_, err := algorithms.New("kong", algorithms.Rule{L: 10, W: mustDur(t, w)})
		if err == nil || !strings.Contains(err.Error(), "second, minute, hour, day, month and year") || !strings.Contains(err.Error(), "720h for a calendar month") || !strings.Contains(err.Error(), "not "+algorithms.FormatWindow(mustDur(t, w))) {
			t.Errorf("10/%s: error %v", w, err)
		}
	}
	if _, err := algorithms.New("kong:x=1", algorithms.Rule{L: 1, W: sec}); err == nil {
		t.Error("kong takes no parameter")
	}
}

// With every deviation off, kong decides as fixed request by request.
func TestKongWithoutDeviationsIsFixed(t *testing.T) {
	rng := rand.New(rand.NewPCG(16, 1))
	for _, c := range []struct {
		r    algorithms.Rule
		spec string
	}{
		{algorithms.Rule{L: 5, W: sec}, "kong:without=one-hit"},
		{algorithms.Rule{L: 100, W: 60 * sec}, "kong:without=one-hit"},
		{algorithms.Rule{L: 7, W: 3600 * sec}, "kong:without=one-hit"},
		{algorithms.Rule{L: 1_000_000, W: 86400 * sec}, "kong:without=one-hit"},
		{algorithms.Rule{L: 40, W: 720 * 3600 * sec}, "kong:without=one-hit:without=calendar:without=expiry"},
		{algorithms.Rule{L: 9, W: 8760 * 3600 * sec}, "kong:without=one-hit:without=calendar:without=expiry"},
	} {
		trace := poissonish(rng, c.r, 20, 20000)
		sameDecisions(t, c.spec, "fixed", c.r, trace, false)
		sameDecisions(t, c.spec, "fixed", c.r, trace, true)
	}
}
