package products

import (
	"math/rand"
	"strings"
	"testing"
	"time"

	"ratebench/algorithms"
)

// The expected values below are worked out by hand from
// ngx_http_limit_req_module.c's arithmetic (see Nginx's doc):
// excess' = max(0, excess - rate*ms/1000 + 1000), refused iff
// excess' > burst*1000, rate = N*1000/scale.

const ms = int64(time.Millisecond)

func newNginx(t *testing.T, spec string, r algorithms.Rule) *Nginx {
	t.Helper()
	l, err := algorithms.New(spec, r)
	if err != nil {
		t.Fatal(err)
	}
	ng := l.(*Nginx)
	ng.Grow(1)
	return ng
}

// step is one request of a fixed timeline: its time in ns and cost, the
// decision, and the state after it (excess in milli-requests, last in ms).
type step struct {
	t, cost      int64
	admit        bool
	excess, last int64
}

func runSteps(t *testing.T, ng *Nginx, steps []step) {
	t.Helper()
	for i, s := range steps {
		cost := s.cost
		if cost == 0 {
			cost = 1
		}
		got := ng.Decide(0, s.t, cost)
		if got {
			ng.Record(0, s.t, cost)
		}
		st := *ng.st.At(0)
		if got != s.admit || st.excess != s.excess || st.last != s.last {
			t.Errorf("%s step %d (t=%dns, cost %d): admit %v, excess %d, last %d; want %v, %d, %d",
				ng.Name(), i, s.t, cost, got, st.excess, st.last, s.admit, s.excess, s.last)
		}
	}
}

func TestNginxRateTruncated(t *testing.T) {
	r := algorithms.Rule{L: 10, W: int64(time.Minute)}
	for spec, want := range map[string]int64{
		"nginx:rate=1r/m":  16, // 1000/60 = 16.67, truncated
		"nginx:rate=10r/m": 166,
		"nginx:rate=7r/m":  116,
		"nginx:rate=60r/m": 1000,
		"nginx:rate=10r/s": 10000,
		"nginx":            166, // 10/1m -> 10r/m
	} {
		if got := newNginx(t, spec, r).Rate(); got != want {
			t.Errorf("%s: rate %d, want %d", spec, got, want)
		}
	}
}

// At 1r/m (16 milli-requests per second) with no burst, the second request
// must wait until 16*ms/1000 >= 1000: ms = 62500, not the 60000 of 1r/m.
func TestNginxOneAMinuteIsSixteen(t *testing.T) {
	ng := newNginx(t, "nginx:rate=1r/m", algorithms.Rule{L: 1, W: int64(time.Minute)})
	runSteps(t, ng, []step{
		{t: 0, admit: true, excess: 0, last: 0},              // new node: excess 0
		{t: 1000 * ms, admit: false, excess: 0, last: 0},     // 0 - 16 + 1000 = 984 > 0
		{t: 60000 * ms, admit: false, excess: 0, last: 0},    // 0 - 960 + 1000 = 40 > 0
		{t: 62499 * ms, admit: false, excess: 0, last: 0},    // 16*62499/1000 = 999: 1 > 0
		{t: 62500 * ms, admit: true, excess: 0, last: 62500}, // 1000: 0
	})
}

// The clock is the trace's time floored to whole milliseconds: 999,000,001
// ns apart but 1000 ms apart on nginx's clock drains one request at 1r/s.
func TestNginxMillisecondFloor(t *testing.T) {
	r := algorithms.Rule{L: 1, W: int64(time.Second)}
	ng := newNginx(t, "nginx", r)
	if ng.Rate() != 1000 || ng.Burst() != 0 {
		t.Fatalf("1/1s: rate %d burst %d, want 1000 and 0", ng.Rate(), ng.Burst())
	}
	runSteps(t, ng, []step{
		{t: 999_999, admit: true, excess: 0, last: 0},                     // ms 0
		{t: 999_999_999, admit: false, excess: 0, last: 0},                // ms 999: 1 > 0
		{t: 1_000_000_000, admit: true, excess: 0, last: 1000},            // ms 1000, 999,000,001 ns later
		{t: 1_999_999_999 + 1, admit: true, excess: 0, last: 2000},        // ms 2000
		{t: 2_000_000_000 + 999_999, admit: false, excess: 0, last: 2000}, // same ms: +1000 > 0
	})
	// An exact leaky bucket of 1/1s refuses the third request.
	lk := algorithms.NewLeaky(r, 1)
	lk.Grow(1)
	lk.Record(0, 999_999, 1)
	if lk.Decide(0, 1_000_000_000, 1) {
		t.Error("leaky:B=1 admits 999,000,001 ns after a request at 1/1s")
	}
}

// burst=2: excess 2000 is admitted (">" not ">="), 3000 refused; a refused
// request changes nothing, not even last.
func TestNginxBurstBoundaryAndRefusal(t *testing.T) {
	ng := newNginx(t, "nginx:rate=1r/s:burst=2", algorithms.Rule{L: 3, W: int64(time.Second)})
	runSteps(t, ng, []step{
		{t: 0, admit: true, excess: 0, last: 0},
		{t: 0, admit: true, excess: 1000, last: 0},
		{t: 0, admit: true, excess: 2000, last: 0},         // 2000 <= 2000
		{t: 0, admit: false, excess: 2000, last: 0},        // 3000 > 2000
		{t: 1 * ms, admit: false, excess: 2000, last: 0},   // 2000 - 1 + 1000 = 2999
		{t: 999 * ms, admit: false, excess: 2000, last: 0}, // 2000 - 999 + 1000 = 2001
		{t: 1000 * ms, admit: true, excess: 2000, last: 1000},
	})
}

// The clamp at 0 comes after adding 1000: a request after a long idle
// leaves excess 0, not 1000.
func TestNginxClampAtZero(t *testing.T) {
	ng := newNginx(t, "nginx:rate=1r/s:burst=5", algorithms.Rule{L: 6, W: int64(time.Second)})
	runSteps(t, ng, []step{
		{t: 0, admit: true, excess: 0, last: 0},
		{t: 10 * ms, admit: true, excess: 990, last: 10},      // 0 - 10 + 1000
		{t: 5000 * ms, admit: true, excess: 0, last: 5000},    // 990 - 4990 + 1000 < 0
		{t: 5000 * ms, admit: true, excess: 1000, last: 5000}, // ms 0: last unchanged
		{t: 5500 * ms, admit: true, excess: 1500, last: 5500},
	})
}

// At 1r/m an admission 50 ms after the last moves last although
// 16*50/1000 truncates to 0: the fraction is lost.
func TestNginxTruncatedDecayMovesLast(t *testing.T) {
	ng := newNginx(t, "nginx:rate=1r/m:burst=5", algorithms.Rule{L: 6, W: int64(time.Minute)})
	runSteps(t, ng, []step{
		{t: 0, admit: true, excess: 0, last: 0},
		{t: 50 * ms, admit: true, excess: 1000, last: 50},   // 16*50/1000 = 0
		{t: 100 * ms, admit: true, excess: 2000, last: 100}, // 0 again; from 0 it would be 1
		{t: 162 * ms, admit: true, excess: 3000, last: 162}, // 16*62/1000 = 0
		{t: 225 * ms, admit: true, excess: 3999, last: 225}, // 16*63/1000 = 1
	})
}

// A clock that steps back: ms < 0 counts as 0 and last stays; ms < -60000
// counts as 1 and last moves back (lines 450-456, 474-476).
func TestNginxClockBack(t *testing.T) {
	ng := newNginx(t, "nginx:rate=1r/s:burst=5", algorithms.Rule{L: 6, W: int64(time.Second)})
	runSteps(t, ng, []step{
		{t: 100000 * ms, admit: true, excess: 0, last: 100000},
		{t: 99000 * ms, admit: true, excess: 1000, last: 100000},
		{t: 30000 * ms, admit: true, excess: 1999, last: 30000},
	})
}

// With one-hit off, a cost of c is c requests in the same millisecond,
// all or none.
func TestNginxCost(t *testing.T) {
	ng := newNginx(t, "nginx:rate=1r/s:burst=2:without=one-hit", algorithms.Rule{L: 3, W: int64(time.Second)})
	if ng.Decide(0, 0, 4) {
		t.Error("cost 4 admitted on a new node with burst 2")
	}
	runSteps(t, ng, []step{
		{t: 0, cost: 3, admit: true, excess: 2000, last: 0},
		{t: 1500 * ms, cost: 2, admit: false, excess: 2000, last: 0},    // 2000-1500+1000 + 1000 = 2500
		{t: 1500 * ms, cost: 1, admit: true, excess: 1500, last: 1500},  // 2000-1500+1000
		{t: 2500 * ms, cost: 2, admit: false, excess: 1500, last: 1500}, // 1500-1000+1000 + 1000 = 2500
		{t: 3000 * ms, cost: 2, admit: true, excess: 2000, last: 3000},  // 1500-1500+1000 + 1000
	})
}

// limit_req has no cost: each request adds 1000 to excess whatever its
// cost (one-hit), so the costs that TestNginxCost refuses count one each.
func TestNginxOneHit(t *testing.T) {
	ng := newNginx(t, "nginx:rate=1r/s:burst=2", algorithms.Rule{L: 3, W: int64(time.Second)})
	runSteps(t, ng, []step{
		{t: 0, cost: 4, admit: true, excess: 0, last: 0},
		{t: 0, cost: 3, admit: true, excess: 1000, last: 0},
		{t: 0, cost: 2, admit: true, excess: 2000, last: 0},
		{t: 0, cost: 1, admit: false, excess: 2000, last: 0},           // 3000 > 2000
		{t: 1500 * ms, cost: 2, admit: true, excess: 1500, last: 1500}, // 2000-1500+1000
	})
}

func TestNginxDefaultMapping(t *testing.T) {
	for _, c := range []struct {
		rule, name  string
		rate, burst int64
	}{
		{"10/1s", "nginx", 10000, 9000},
		{"10/1m", "nginx", 166, 9000},
		{"60/1m", "nginx", 1000, 59000}, // 1r/s
		{"1/100ms", "nginx", 10000, 0},  // 10r/s
		{"2/40s", "nginx", 50, 1000},    // 3r/m
		{"120/2m", "nginx", 1000, 119000},
	} {
		r, err := algorithms.ParseRule(c.rule)
		if err != nil {
			t.Fatal(err)
		}
		ng := newNginx(t, "nginx", r)
		if ng.Name() != c.name || ng.Rate() != c.rate || ng.Burst() != c.burst {
			t.Errorf("%s: %s rate %d burst %d, want %s %d %d", c.rule, ng.Name(), ng.Rate(), ng.Burst(), c.name, c.rate, c.burst)
		}
	}
	for rule, want := range map[string]string{
		"1/1h":  "algorithm nginx: rule 1/1h is not a whole number of requests per second or per minute, which is all nginx's rate takes; give the rate, e.g. nginx:rate=1r/m",
		"90/1h": "e.g. nginx:rate=2r/m", // 1.5r/m, rounded half up
		"5/7s":  "e.g. nginx:rate=43r/m",
		"1/40s": "e.g. nginx:rate=2r/m", // 1.5r/m
	} {
		r, err := algorithms.ParseRule(rule)
		if err != nil {
			t.Fatal(err)
		}
		_, err = algorithms.New("nginx", r)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("nginx under %s: err %v, want %q", rule, err, want)
		}
		// Giving the rate makes it work.
		if _, err := algorithms.New("nginx:rate=1r/m", r); err != nil {
			t.Errorf("nginx:rate=1r/m under %s: %v", rule, err)
		}
	}
}

func TestNginxSpecs(t *testing.T) {
	r := algorithms.Rule{L: 10, W: int64(time.Minute)}
	for spec, name := range map[string]string{
		"nginx":                    "nginx",
		" nginx:burst=3 ":          "nginx:burst=3",
		"nginx:rate=10r/s:burst=5": "nginx:rate=10r/s:burst=5",
		"nginx:burst=5:rate=10r/s": "nginx:rate=10r/s:burst=5",
		"nginx:burst=0":            "nginx:burst=0",
	} {
		l, err := algorithms.New(spec, r)
		if err != nil || l.Name() != name {
			t.Errorf("New(%q) = %v, %v; want %s", spec, l, err, name)
			continue
		}
		if l2, err := algorithms.New(l.Name(), r); err != nil || l2.Name() != name {
			t.Errorf("New(%q) does not read back: %v", name, err)
		}
	}
	for _, spec := range []string{"nginx:", "nginx:rate=10", "nginx:rate=0r/s", "nginx:rate=1.5r/s", "nginx:rate=r/m",
		"nginx:burst=-1", "nginx:burst=x", "nginx:delay=3", "nginx:rate=1r/s:rate=2r/s", "nginx:burst=1:burst=2", "nginx:B=3"} {
		if _, err := algorithms.New(spec, r); err == nil || !strings.Contains(err.Error(), "nginx") {
			t.Errorf("New(%q): err %v, want an error naming nginx", spec, err)
		}
	}
	found := false
	for _, c := range algorithms.Catalogue() {
		found = found || strings.HasPrefix(c.Spec, "nginx")
	}
	if !found {
		t.Error("nginx is not in the Catalogue")
	}
}

// Idle holds exactly when the next request decides and stores as on a new
// node: a replay that releases idle keys decides as one that never does.
func TestNginxIdleIsFresh(t *testing.T) {
	ng := newNginx(t, "nginx:rate=1r/s:burst=5", algorithms.Rule{L: 6, W: int64(time.Second)})
	ng.Record(0, 0, 1)
	ng.Record(0, 0, 1) // excess 1000
	if ng.Idle(0, 1999*ms) || !ng.Idle(0, 2000*ms) {
		t.Errorf("idle at 1999 ms %v, at 2000 ms %v; want false, true", ng.Idle(0, 1999*ms), ng.Idle(0, 2000*ms))
	}
	rng := rand.New(rand.NewSource(1))
	for _, spec := range []string{"nginx:rate=1r/m:burst=2", "nginx:rate=7r/s:burst=0", "nginx:rate=10r/m"} {
		kept, freed := newNginx(t, spec, algorithms.Rule{L: 10, W: int64(time.Minute)}), newNginx(t, spec, algorithms.Rule{L: 10, W: int64(time.Minute)})
		now := int64(0)
		for i := 0; i < 20000; i++ {
			now += rng.Int63n(int64(2 * time.Second))
			cost := 1 + rng.Int63n(2)
			if freed.Idle(0, now) {
				freed.Release(0)
			}
			a, b := kept.Decide(0, now, cost), freed.Decide(0, now, cost)
			if a != b {
				t.Fatalf("%s: request %d at %d: kept %v, released %v", spec, i, now, a, b)
			}
			if a {
				kept.Record(0, now, cost)
				freed.Record(0, now, cost)
			}
		}
	}
}

// nginx's zone expiry (not modelled) can change a decision at 10/1m: ten
// requests at 0 leave excess 9000; at 60 s the node is droppable (idle
// 60000 ms, 9000 - 166*60 <= 0) but not drained for the next request
// (9000 - 9960 + 1000 = 40): kept, as here, it admits 9 of 10 requests at
// 60 s; dropped and created afresh, as nginx may, it would admit 10.
func TestNginxExpiryCanDiffer(t *testing.T) {
	r := algorithms.Rule{L: 10, W: int64(time.Minute)}
	ng := newNginx(t, "nginx", r)
	for i := 0; i < 10; i++ {
		if !ng.Decide(0, 0, 1) {
			t.Fatalf("request %d at 0 refused", i)
		}
		ng.Record(0, 0, 1)
	}
	at := 60000 * ms
	if ng.Idle(0, at) {
		t.Error("idle at 60 s: the node has not drained for the next request")
	}
	admitted := func() int {
		n := 0
		for i := 0; i < 10; i++ {
			if ng.Decide(0, at, 1) {
				ng.Record(0, at, 1)
				n++
			}
		}
		return n
	}
	if n := admitted(); n != 9 {
		t.Errorf("kept node admits %d of 10 at 60 s, want 9", n)
	}
	ng.Release(0)
	if n := admitted(); n != 10 {
		t.Errorf("a new node admits %d of 10, want 10", n)
	}
}

// With :zone, the zone's expiry couples keys. Key a fills its bucket at 0
// (10 requests, excess 9000) and comes back at 60.2 s with 10 more. Kept,
// its node has drained 166*60200/1000 = 9993, so excess' = 9000-9993+1000
// = 7, and 9 are admitted (7, 1007, ..., 8007; the 10th would be 9007 >
// 9000). But key b's node, created at 60.1 s, first expires the tail of
// the queue: a, idle 60100 >= 60000 ms and drained (9000 - 9976 <= 0), is
// dropped, returns afresh with excess 0, and has its 10 admitted.
func TestNginxZoneExpiryDropsAReturningKeysNode(t *testing.T) {
	r := algorithms.Rule{L: 10, W: int64(time.Minute)}
	type at struct {
		key int32
		t   int64
	}
	var reqs []at
	for range 10 {
		reqs = append(reqs, at{0, 0})
	}
	reqs = append(reqs, at{1, 60100 * ms})
	for range 10 {
		reqs = append(reqs, at{0, 60200 * ms})
	}
	run := func(spec string) (admitted int) {
		l, err := algorithms.New(spec, r)
		if err != nil {
			t.Fatal(err)
		}
		l.Grow(2)
		for _, q := range reqs {
			if l.Decide(q.key, q.t, 1) {
				l.Record(q.key, q.t, 1)
				admitted++
			}
		}
		return admitted
	}
	for spec, want := range map[string]int{"nginx": 20, "nginx:zone": 21, "nginx:zone:without=zone-expiry": 20,
		"nginx:zone:without=drain-truncation": 21} {
		if got := run(spec); got != want {
			t.Errorf("%s: %d admitted, want %d", spec, got, want)
		}
	}
	z := newNginx(t, "nginx:zone", r)
	if !z.CouplesKeys() || z.Idle(0, 0) || z.Bytes(0) != 32 || z.Name() != "nginx:zone" {
		t.Errorf("nginx:zone: couples %v, idle %v, bytes %d, name %s", z.CouplesKeys(), z.Idle(0, 0), z.Bytes(0), z.Name())
	}
	if n := newNginx(t, "nginx", r); n.CouplesKeys() {
		t.Error("nginx without a zone couples keys")
	}
}
