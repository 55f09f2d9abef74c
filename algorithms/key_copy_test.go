package algorithms

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// A key whose state is copied (CopyKey) from a limiter that has seen
// every request, at any point (between two requests, or after a request's
// Decide and before its Record), then decides, estimates, answers
// Retry-After, records and tests idleness as that limiter does; copied
// again later it takes the source's state afresh over its own, narrow or
// wide (the cells' limits are lowered so that states leave them).
func TestCopyKeyMirrorsTheSource(t *testing.T) {
	r := Rule{L: 5, W: int64(time.Second)}
	t0 := int64(1_700_000_000_000_000_000)
	for _, spec := range []string{"counter", "counter-lt", "counter-floor", "fixed", "token", "token:B=9", "gcra", "gcra:B=2"} {
		for _, windows := range []bool{false, true} {
			src, err := New(spec, r)
			if err != nil {
				t.Fatal(err)
			}
			dst, _ := New(spec, r)
			srcWide, dstWide := narrowed(src, t0, windows), narrowed(dst, t0, windows)
			if srcWide == nil {
				continue // no windows to narrow
			}
			name := fmt.Sprintf("%s (windows %v)", spec, windows)
			const keys = 8
			src.Grow(keys)
			dst.Grow(keys)
			copier := dst.(KeyCopier)
			copied := make([]bool, keys)
			rng := rand.New(rand.NewPCG(5, uint64(len(spec))))
			tm, copies, wideCopies := t0, 0, 0
			for i := range 20_000 {
				tm += rng.Int64N(r.W / 8)
				id := int32(rng.IntN(keys))
				cost := 1 + rng.Int64N(3)
				if rng.IntN(30) == 0 { // between two requests
					copier.CopyKey(src, id)
					copied[id], copies = true, copies+1
				}
				admit := src.Decide(id, tm, cost)
				switch {
				case !copied[id] || rng.IntN(30) == 0: // after Decide, before Record
					if srcWide() > 0 {
						wideCopies++
					}
					copier.CopyKey(src, id)
					copied[id], copies = true, copies+1
				default:
					if got := dst.Decide(id, tm, cost); got != admit {
						t.Fatalf("%s, request %d: copied, decided %v, the source %v", name, i, got, admit)
					}
				}
				if est, ok := src.(Estimator); ok {
					if ew, eg := est.Estimate(id, tm), dst.(Estimator).Estimate(id, tm); ew != eg {
						t.Fatalf("%s, request %d: copied, estimate %v, the source's %v", name, i, eg, ew)
					}
				}
				if ra, ok := src.(RetryAfterer); ok && !admit {
					rw, okw := ra.RetryAfter(id, tm, cost)
					rg, okg := dst.(RetryAfterer).RetryAfter(id, tm, cost)
					if rw != rg || okw != okg {
						t.Fatalf("%s, request %d: copied, Retry-After %d %v, the source's %d %v", name, i, rg, okg, rw, okw)
					}
				}
				if admit || rng.IntN(3) == 0 { // a refusal recorded too, as under count all
					src.Record(id, tm, cost)
					dst.Record(id, tm, cost)
				}
				if rng.IntN(40) == 0 {
					later := tm + rng.Int64N(3*r.W)
					iw, ig := src.(Releaser).Idle(id, later), dst.(Releaser).Idle(id, later)
					if iw != ig {
						t.Fatalf("%s, request %d: copied, idle %v, the source %v", name, i, ig, iw)
					}
					if iw {
						src.(Releaser).Release(id)
						dst.(Releaser).Release(id)
						tm = later
					}
				}
			}
			if copies < 100 || wideCopies == 0 || dstWide() == 0 && srcWide() > 0 {
				t.Errorf("%s: %d copies, %d with wide states about: the test lacks power", name, copies, wideCopies)
			}
		}
	}
}

// A key's state is copied only from a limiter built alike.
func TestCopyKeyRefusesAnotherLimiter(t *testing.T) {
	r := Rule{L: 5, W: int64(time.Second)}
	for _, c := range []struct{ dst, src string }{{"counter", "counter-lt"}, {"token", "token:B=9"}, {"gcra", "token"}, {"fixed", "counter"}} {
		dst, _ := New(c.dst, r)
		src, _ := New(c.src, r)
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s took a key's state from %s", c.dst, c.src)
				}
			}()
			dst.(KeyCopier).CopyKey(src, 0)
		}()
	}
	other, _ := New("counter", Rule{L: 6, W: int64(time.Second)})
	same, _ := New("counter", r)
	defer func() {
		if recover() == nil {
			t.Errorf("a counter of rule 5/1s took a key's state from one of 6/1s")
		}
	}()
	same.(KeyCopier).CopyKey(other, 0)
}
