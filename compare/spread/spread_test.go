package spread

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"ratebench/traces"
)

type req struct {
	key     string
	t, cost int64
	line    int64
}

// sliceReader reads reqs, reusing one key buffer as trace readers do.
type sliceReader struct {
	reqs []req
	i    int
	key  []byte
}

func (r *sliceReader) Scan() bool {
	if r.i >= len(r.reqs) {
		return false
	}
	r.key = append(r.key[:0], r.reqs[r.i].key...)
	r.i++
	return true
}
func (r *sliceReader) Request() traces.Request {
	q := r.reqs[r.i-1]
	return traces.Request{T: q.t, Key: r.key, Cost: q.cost}
}
func (r *sliceReader) Pos() traces.Position {
	return traces.Position{File: "t.csv", Line: r.reqs[r.i-1].line}
}
func (r *sliceReader) Err() error   { return nil }
func (r *sliceReader) Close() error { return nil }

// wholeMinutes is 2 hours of 5 keys at whole-minute times, 0 to 20
// requests a key a minute, of costs 1 to 3, with the count of those at
// their key's previous time.
func wholeMinutes() (reqs []req, same int64) {
	rng := rand.New(rand.NewPCG(5, 5))
	for m := int64(0); m < 120; m++ {
		for k := range 5 {
			for j := range rng.IntN(21) {
				reqs = append(reqs, req{key: fmt.Sprintf("key-%d", k), t: 1699999980e9 + m*60e9, cost: 1 + rng.Int64N(3)})
				if j > 0 {
					same++
				}
			}
		}
	}
	rng.Shuffle(len(reqs), func(i, j int) { // keys interleave within a minute
		if reqs[i].t == reqs[j].t && reqs[i].key != reqs[j].key {
			reqs[i], reqs[j] = reqs[j], reqs[i]
		}
	})
	for i := range reqs {
		reqs[i].line = int64(i + 2)
	}
	return reqs, same
}

func readAll(t *testing.T, r *Reader) []req {
	t.Helper()
	var out []req
	for r.Scan() {
		q := r.Request()
		out = append(out, req{key: string(q.Key), t: q.T, cost: q.Cost, line: r.Pos().Line})
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// Every request is placed inside its unit, each key's requests keep their
// order, the trace stays in time order, and nothing is lost or added.
func TestSpreadKeepsOrder(t *testing.T) {
	in, same := wholeMinutes()
	r := New(&sliceReader{reqs: in}, Options{Unit: 60e9, Seed: 1})
	out := readAll(t, r)
	if len(out) != len(in) {
		t.Fatalf("%d requests out of %d", len(out), len(in))
	}
	if r.SameTime() != same {
		t.Errorf("SameTime %d, want %d", r.SameTime(), same)
	}
	byLine := map[int64]req{}
	for _, q := range in {
		byLine[q.line] = q
	}
	lastOfKey := map[string]req{}
	moved := 0
	for i, q := range out {
		orig, ok := byLine[q.line]
		if !ok || orig.key != q.key || orig.cost != q.cost {
			t.Fatalf("request %d, %+v, is not the one of its line (%+v)", i, q, orig)
		}
		delete(byLine, q.line)
		if q.t < orig.t || q.t >= orig.t+60e9 {
			t.Fatalf("line %d at %d ns placed at %d, outside its minute", q.line, orig.t, q.t)
		}
		if q.t != orig.t {
			moved++
		}
		if i > 0 && q.t < out[i-1].t {
			t.Fatalf("line %d at %d before line %d at %d", q.line, q.t, out[i-1].line, out[i-1].t)
		}
		if p, ok := lastOfKey[q.key]; ok && p.line > q.line {
			t.Fatalf("key %s: line %d comes after line %d", q.key, q.line, p.line)
		}
		lastOfKey[q.key] = q
	}
	if moved < len(out)*9/10 {
		t.Errorf("only %d of %d requests moved", moved, len(out))
	}
}

// The same seed gives the same times; another seed others.
func TestSpreadIsDeterministic(t *testing.T) {
	in, _ := wholeMinutes()
	a := readAll(t, New(&sliceReader{reqs: in}, Options{Unit: 60e9, Seed: 9}))
	b := readAll(t, New(&sliceReader{reqs: in}, Options{Unit: 60e9, Seed: 9}))
	c := readAll(t, New(&sliceReader{reqs: in}, Options{Unit: 60e9, Seed: 10}))
	if !reflect.DeepEqual(a, b) {
		t.Error("two readers of one seed differ")
	}
	if reflect.DeepEqual(a, c) {
		t.Error("two seeds give the same times")
	}
	// the first draws of seed 9, pinned: the same on every machine and release
	if got := a[0].t - 1699999980e9; got != pinnedFirst {
		t.Errorf("first time %d ns into the minute, want %d", got, pinnedFirst)
	}
}

// pinnedFirst is the offset, in its minute, of the first request of
// wholeMinutes spread from 9: the least of the first minute's draws.
const pinnedFirst = 1648428379

// A unit of one nanosecond changes nothing.
func TestSpreadOfNanoseconds(t *testing.T) {
	in := []req{{"a", 5, 1, 2}, {"b", 5, 1, 3}, {"a", 5, 2, 4}, {"a", 7, 1, 5}}
	out := readAll(t, New(&sliceReader{reqs: in}, Options{Unit: 1, Seed: 3}))
	if !reflect.DeepEqual(in, out) {
		t.Errorf("got %v", out)
	}
}

// The reader refuses, naming the line, a trace out of time order, a time
// that is not a multiple of the unit, and more requests in one unit than
// it holds.
func TestSpreadRefuses(t *testing.T) {
	for _, tc := range []struct {
		name string
		reqs []req
		max  int
		want string
	}{
		{"out of order", []req{{"a", 2e9, 1, 2}, {"b", 1e9, 1, 3}}, 0, "t.csv:3: -spread needs the trace in time order"},
		{"not a multiple", []req{{"a", 2e9, 1, 2}, {"b", 2e9 + 5, 1, 3}}, 0, "t.csv:3: -spread: time 2000000005 ns is not a multiple of 1s"},
		{"too many in a unit", []req{{"a", 1e9, 1, 2}, {"b", 1e9, 1, 3}, {"c", 1e9, 1, 4}}, 2, "t.csv:4: -spread holds the requests of one timestamp in memory, at most 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := New(&sliceReader{reqs: tc.reqs}, Options{Unit: 1e9, Seed: 1, MaxUnit: tc.max})
			for r.Scan() {
			}
			var pe *traces.ParseError
			if err := r.Err(); !errors.As(err, &pe) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want %q", err, tc.want)
			}
		})
	}
}

// Unit is the gcd of the times.
func TestUnit(t *testing.T) {
	for _, tc := range []struct {
		ts   []int64
		want int64
	}{{nil, 0}, {[]int64{0, 0}, 0}, {[]int64{0, 120e9, 180e9}, 60e9}, {[]int64{1700000000e9, 1700000001e9}, 1e9}, {[]int64{6, 9, 15}, 3}} {
		var reqs []req
		for i, ts := range tc.ts {
			reqs = append(reqs, req{"k", ts, 1, int64(i + 1)})
		}
		if got, err := Unit(&sliceReader{reqs: reqs}); err != nil || got != tc.want {
			t.Errorf("Unit(%v) = %d, %v; want %d", tc.ts, got, err, tc.want)
		}
	}
}

// SameTime counts the requests taken, once each, and only of the keys
// Options.Counts names (a shard's).
func TestSpreadSameTimeCountsWhatIsTaken(t *testing.T) {
	in := []req{{"a", 1e9, 1, 2}, {"a", 1e9, 1, 3}, {"b", 1e9, 1, 4}, {"b", 1e9, 1, 5}, {"b", 1e9, 1, 6}, {"a", 2e9, 1, 7}}
	r := New(&sliceReader{reqs: in}, Options{Unit: 1e9, Seed: 2})
	for r.Scan() {
	}
	if r.SameTime() != 0 {
		t.Errorf("requests scanned but not taken counted: %d", r.SameTime())
	}
	r = New(&sliceReader{reqs: in}, Options{Unit: 1e9, Seed: 2})
	for r.Scan() {
		r.Request()
		r.Request()
	}
	if r.SameTime() != 3 {
		t.Errorf("SameTime %d, want 3", r.SameTime())
	}
	r = New(&sliceReader{reqs: in}, Options{Unit: 1e9, Seed: 2, Counts: func(k []byte) bool { return string(k) == "b" }})
	readAll(t, r)
	if r.SameTime() != 2 {
		t.Errorf("SameTime of b %d, want 2", r.SameTime())
	}
}
