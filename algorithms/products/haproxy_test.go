package products_test

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"ratebench/algorithms"
	"ratebench/algorithms/products"
)

// haproxyOnly is the spec of haproxy (with args, e.g. ":expire=500ms")
// with every deviation off but keep.
func haproxyOnly(t *testing.T, args, keep, rule string) string {
	t.Helper()
	r, _ := algorithms.ParseRule(rule)
	l, err := algorithms.New("haproxy"+args, r)
	if err != nil {
		t.Fatal(err)
	}
	spec := l.Name()
	for _, d := range l.(algorithms.Product).Deviations() {
		if d.Name != keep {
			spec += ":without=" + d.Name
		}
	}
	return spec
}

// Each of HAProxy's deviations, alone (every other one off), changes a
// decision of its twin, the counter, on a timeline worked out from
// freq_ctr.h's update_freq_ctr_period and freq_ctr.c's freq_ctr_total;
// turned off too, the timeline is the twin's again.
func TestHAProxyEachDeviationAloneChangesADecision(t *testing.T) {
	ms := int64(time.Millisecond)
	one := func(times ...int64) [][2]int64 {
		out := make([][2]int64, len(times))
		for i, at := range times {
			out[i] = [2]int64{at * ms / 10, 1} // tenths of a millisecond
		}
		return out
	}
	for _, c := range []struct {
		name, args, rule string
		reqs             [][2]int64
		twin, product    string
	}{
		// 500 and 600 ms, then 1550 ms: on the epoch's windows the two
		// are in the window before, weighted 450/1000: 0.9 + 1 <= 2. From
		// the first request the period is [500, 1500): at 1550 the two
		// weigh 950/1000, 1.9 + 1 > 2.
		{"anchor", "", "2/1s", one(5000, 6000, 15500), "AAA", "AAR"},
		// Three in [0, 1s), then one at 1333.5 ms: 3*666.5/1000 + 1 =
		// 2.9995 <= 3; on whole milliseconds it is at 1333 ms, 3*667/1000
		// + 1 = 3.001 > 3.
		{"clock", "", "3/1s", one(1000, 2000, 3000, 13335), "AAAA", "AAAR"},
		// Period 999 ms: the window of 1000-1002 ms starts at 999 ms, an
		// odd tick, kept as 998; the next starts at 998+999 = 1997, kept
		// as 1996. At 2330 ms the twin is 332 ms into [1998, 2997):
		// 3*667/999 + 1 > 3; HAProxy is 334 ms in: 3*665/999 + 1 <= 3.
		{"even-tick", "", "3/999ms", one(10000, 10010, 10020, 23300), "AAAR", "AAAA"},
		// Three in [0, 1s), then one at 1100 ms: 3*900/1000 = 2.7, and
		// 2.7 + 1 > 3; rounded down, 2 + 1 <= 3.
		{"floor", "", "3/1s", one(1000, 2000, 3000, 11000), "AAAR", "AAAA"},
		// 2/1s: the third request in [0, 1s) is refused; counted all
		// the same, three weigh 1.5 at 1500 ms, 1.5 + 1 > 2, where the
		// two admitted weigh 1, 1 + 1 <= 2.
		{"counts-refused", "", "2/1s", one(1000, 2000, 3000, 15000), "AARA", "AARR"},
		// A request of cost 3 then one of cost 1 under 3/1s: 3 + 1 > 3;
		// counted one each, 1 + 1 <= 3.
		{"one-hit", "", "3/1s", [][2]int64{{100 * ms, 3}, {200 * ms, 1}}, "AR", "AA"},
		// expire 500ms: at 1200 ms the key has been idle 600 ms, its
		// entry freed, and it starts afresh; the twin still weighs the
		// two of [0, 1s) 800/1000: 1.6 + 1 > 2.
		{"expiry", ":expire=500ms", "2/1s", one(5000, 6000, 12000), "AAR", "AAA"},
	} {
		spec := haproxyOnly(t, c.args, c.name, c.rule)
		checkDeviation(t, func(spec string) string { return ownTimeline(t, spec, mustRule(t, c.rule), c.reqs...) }, "counter", spec, c.name, c.twin, c.product)
	}
}

// The spec: expire=D (whole ms) is part of the name unless it is the
// default 3W; the expiry deviation is listed only when D < 2W; rules
// HAProxy cannot express are refused, naming haproxy.
func TestHAProxySpecs(t *testing.T) {
	r, _ := algorithms.ParseRule("5/1s")
	for spec, want := range map[string]struct {
		name  string
		devs  int
		every bool
	}{
		"haproxy":                                   {"haproxy", 6, true},
		"haproxy:expire=3s":                         {"haproxy", 6, true},
		"haproxy:expire=2s":                         {"haproxy:expire=2s", 6, true},
		"haproxy:expire=1500ms":                     {"haproxy:expire=1500ms", 7, true},
		"haproxy:expire=1500ms:without=expiry":      {"haproxy:expire=1500ms:without=expiry", 7, true},
		"haproxy:without=counts-refused":            {"haproxy:without=counts-refused", 6, false},
		"haproxy:without=anchor:without=clock":      {"haproxy:without=anchor:without=clock", 6, true},
		"haproxy:without=even-tick:without=one-hit": {"haproxy:without=even-tick:without=one-hit", 6, true},
	} {
		l, err := algorithms.New(spec, r)
		if err != nil {
			t.Errorf("%s: %v", spec, err)
			continue
		}
		p := l.(algorithms.Product)
		if l.Name() != want.name || len(p.Deviations()) != want.devs || algorithms.CountsEvery(l) != want.every || p.Twin() != "counter" {
			t.Errorf("%s: name %s, %d deviations, counts every %v, twin %s; want %s, %d, %v, counter", spec, l.Name(), len(p.Deviations()), algorithms.CountsEvery(l), p.Twin(), want.name, want.devs, want.every)
		}
	}
	if h, err := products.NewHAProxy(algorithms.Rule{L: 10, W: int64(time.Minute)}, ""); err != nil || h.Expire() != int64(3*time.Minute) {
		t.Errorf("10/1m: expire %v (%v), want the default 3m", h, err)
	}
	for _, c := range []struct{ spec, rule string }{
		{"haproxy:", "5/1s"},
		{"haproxy:expire=0s", "5/1s"},
		{"haproxy:expire=1500us", "5/1s"},
		{"haproxy:expire=x", "5/1s"},
		{"haproxy:burst=3", "5/1s"},
		{"haproxy:expire=600h", "5/1s"}, // over 2^31-1 ms
		{"haproxy", "5/1500us"},         // not whole ms
		{"haproxy", "1/1ms"},            // a period of at least 2 ticks
		{"haproxy", "1/600h"},           // over 2^31-1 ms
		{"haproxy", "4294967295/1s"},    // a 32-bit rate
	} {
		r, err := algorithms.ParseRule(c.rule)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := algorithms.New(c.spec, r); err == nil || !strings.Contains(err.Error(), "haproxy") {
			t.Errorf("%s under %s: %v, want an error naming haproxy", c.spec, c.rule, err)
		}
	}
}

// haproxySource is the C of HAProxy 2.6 for one stick table, transcribed
// line by line in 32-bit unsigned arithmetic: the entries of a table with
// "store http_req_rate(period)" and "expire", update_freq_ctr_period
// (freq_ctr.h:38-75), freq_ctr_total and read_freq_ctr_period
// (freq_ctr.c:27-97, freq_ctr.h:99-104), the touch and the expiry
// (stick_table.c:163-170, 453-461, 586-607), and the rule "deny if
// sc_http_req_rate(0) gt limit" after track-sc0 (http_act.c:2001-2081).
type haproxySource struct {
	period, expire uint32
	limit          int64
	entries        map[int]*haproxyEntry
}

type haproxyEntry struct {
	currTick, currCtr, prevCtr uint32 // struct freq_ctr
	expire                     uint32 // ts->expire
}

func tickAdd(now, timeout uint32) uint32 {
	now += timeout
	if now == 0 {
		now++
	}
	return now
}

func (h *haproxySource) request(key int, nowMS uint32) bool {
	ts := h.entries[key]
	if ts != nil && int32(ts.expire-nowMS) <= 0 { // tick_is_expired: the expiry task freed it
		ts = nil
	}
	if ts == nil { // __stksess_init: zeroed data
		ts = &haproxyEntry{}
		h.entries[key] = ts
	}
	ts.expire = tickAdd(nowMS, h.expire) // stktable_touch_local
	// update_freq_ctr_period(ctr, period, 1)
	if nowMS-ts.currTick < h.period {
		ts.currCtr++
	} else {
		currTick := ts.currTick
		ts.prevCtr, ts.currCtr = ts.currCtr, 1
		currTick += h.period
		if nowMS-currTick >= h.period {
			ts.prevCtr = 0
			currTick = nowMS
		}
		ts.currTick = currTick &^ 1
	}
	// read_freq_ctr_period: freq_ctr_total(ctr, period, -1) / period
	curr, past := uint64(ts.currCtr), uint64(ts.prevCtr)
	remain := int32(ts.currTick + h.period - nowMS)
	if remain < 0 {
		remain += int32(h.period)
		if remain >= 0 {
			past = curr
		} else {
			past = 0
		}
		curr = 0
	}
	var rate uint32
	if curr == 0 && past <= 1 {
		rate = uint32(past)
	} else {
		rate = uint32((past*uint64(remain) + curr*uint64(h.period)) / uint64(h.period))
	}
	return !(int64(rate) > h.limit) // deny if { sc_http_req_rate(0) gt limit }
}

// The model decides as the transcribed C on random traces: requests at
// arbitrary nanoseconds seen on the ms ticks now_ms, whose origin is an
// even tick (the model's clock floors the trace's time to ms from 0);
// periods even and odd, the default expire and shorter ones.
func TestHAProxyMatchesTheSource(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 6))
	ms := int64(time.Millisecond)
	for _, c := range []struct {
		rule, args string
	}{
		{"5/1s", ""}, {"5/1s", ":expire=1500ms"}, {"5/1s", ":expire=700ms"},
		{"3/999ms", ""}, {"3/999ms", ":expire=1s"},
		{"2/7ms", ""}, {"2/3ms", ""}, {"1/2ms", ""}, {"1/3ms", ":expire=2ms"},
		{"100/1m", ""}, {"10/1s", ":expire=100ms"},
	} {
		r, err := algorithms.ParseRule(c.rule)
		if err != nil {
			t.Fatal(err)
		}
		model, err := algorithms.New("haproxy"+c.args, r)
		if err != nil {
			t.Fatal(err)
		}
		keys := 4
		model.Grow(keys)
		src := &haproxySource{period: uint32(r.W / ms), expire: uint32(model.(*products.HAProxy).Expire() / ms), limit: r.L, entries: map[int]*haproxyEntry{}}
		origin := uint32(1<<31 + 2*rng.Uint32N(1<<29)) // an even tick, far from the wrap
		last := make([]int64, keys)
		refused := 0
		for i := range 20000 {
			k := rng.IntN(keys)
			switch {
			case rng.Int64N(4*r.L) == 0: // an idle gap of up to four periods
				last[k] += rng.Int64N(4*r.W + 1)
			case rng.IntN(12) == 0: // the same instant
			default:
				last[k] += rng.Int64N(r.W/r.L + 1)
			}
			tm := last[k]
			got := model.Decide(int32(k), tm, 1)
			model.Record(int32(k), tm, 1) // every request is counted
			want := src.request(k, origin+uint32(tm/ms))
			if got != want {
				t.Fatalf("%s%s, request %d (key %d at %d ns): the model admits %v, the C %v", c.rule, c.args, i, k, tm, got, want)
			}
			if !got {
				refused++
			}
		}
		if refused == 0 || refused == 20000 {
			t.Errorf("%s%s: %d refused: the trace does not exercise the limit", c.rule, c.args, refused)
		}
	}
}

// A replay that releases a key whenever it is idle decides as one that
// never does.
func TestHAProxyIdleRelease(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	for _, spec := range []string{"haproxy", "haproxy:expire=1500ms", "haproxy:without=anchor", "haproxy:without=clock:without=counts-refused"} {
		r := algorithms.Rule{L: 5, W: int64(time.Second)}
		a, _ := algorithms.New(spec, r)
		b, _ := algorithms.New(spec, r)
		a.Grow(3)
		b.Grow(3)
		released := 0
		tm := int64(1_700_000_000_000_000_000)
		for i := range 20000 {
			k := int32(rng.IntN(3))
			tm += rng.Int64N(r.W / 8)
			if rng.IntN(40) == 0 {
				tm += rng.Int64N(3 * r.W)
			}
			if rel := b.(algorithms.Releaser); rel.Idle(k, tm) {
				rel.Release(k)
				released++
			}
			da, db := a.Decide(k, tm, 1), b.Decide(k, tm, 1)
			if da != db {
				t.Fatalf("%s, request %d: kept %v, released %v", spec, i, da, db)
			}
			if da || algorithms.CountsEvery(a) {
				a.Record(k, tm, 1)
				b.Record(k, tm, 1)
			}
		}
		if released == 0 {
			t.Errorf("%s: no key was ever idle", spec)
		}
	}
}
