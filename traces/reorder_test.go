package traces

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// Reorder releases requests in time order (file order among equal times),
// each with its own line, and holds no more than the window needs.
func TestReorderSorts(t *testing.T) {
	in := "ts,key\n10,a\n30,b\n20,c\n20,d\n50,e\n41,f\n"
	r, err := NewCSVReader(strings.NewReader(in), "t.csv", Options{})
	if err != nil {
		t.Fatal(err)
	}
	rr := Reorder(r, 15*time.Nanosecond)
	var got []string
	for rr.Scan() {
		q := rr.Request()
		got = append(got, fmt.Sprintf("%s:%v:%d", q.Key, rr.Pos(), rr.(Lateness).Late()))
	}
	if err := rr.Err(); err != nil {
		t.Fatal(err)
	}
	// Late: how far each came after the latest time read before it.
	want := "a:t.csv:2:0 c:t.csv:4:10 d:t.csv:5:10 b:t.csv:3:0 f:t.csv:7:9 e:t.csv:6:0"
	if strings.Join(got, " ") != want {
		t.Errorf("got  %s\nwant %s", strings.Join(got, " "), want)
	}
	if w := rr.(Lateness).Window(); w != 15 {
		t.Errorf("Window = %v", w)
	}
	if FormatOf(rr) != FormatCSV {
		t.Errorf("FormatOf(Reorder(csv)) = %v", FormatOf(rr))
	}
}

// Reorder requires no more than a replay without it does: time order
// within each key. A request that comes later than the window behind
// requests of other keys is released as it comes, not refused, and every
// key's requests still come out in their order; a trace in order within
// its keys is read whole, whatever the window.
func TestReorderKeepsWhatPassesWithout(t *testing.T) {
	in := "ts,key\n1000,a\n5000,b\n9000,c\n2000,a\n9500,c\n2500,b\n"
	r, err := NewCSVReader(strings.NewReader(in), "t.csv", Options{})
	if err != nil {
		t.Fatal(err)
	}
	rr := Reorder(r, 1500*time.Nanosecond)
	if p := rr.Pos(); p.File != "t.csv" { // the replay names the file of its errors before the first Scan
		t.Errorf("Pos before Scan = %v", p)
	}
	var got []string
	for rr.Scan() {
		got = append(got, fmt.Sprintf("%s@%d:%s", rr.Request().Key, rr.Request().T, rr.Pos()))
	}
	if err := rr.Err(); err != nil {
		t.Fatal(err)
	}
	want := "a@1000:t.csv:2 b@5000:t.csv:3 a@2000:t.csv:5 b@2500:t.csv:7 c@9000:t.csv:4 c@9500:t.csv:6"
	if strings.Join(got, " ") != want {
		t.Errorf("got  %s\nwant %s", strings.Join(got, " "), want)
	}

	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 200 {
		// Each key's times increase; across keys they are shuffled.
		var reqs []Request
		last := map[string]int64{}
		for range 1 + rng.IntN(60) {
			k := string(rune('a' + rng.IntN(4)))
			t0 := last[k]
			if rng.IntN(3) == 0 {
				t0 += int64(rng.IntN(5))
			} else {
				t0 = int64(rng.IntN(1000))
				if t0 < last[k] {
					t0 = last[k]
				}
			}
			last[k] = t0
			reqs = append(reqs, Request{T: t0, Key: []byte(k), Cost: 1})
		}
		data := write(t, FormatCSV, reqs)
		r, err := NewCSVReader(bytes.NewReader(data), "t.csv", Options{})
		if err != nil {
			t.Fatal(err)
		}
		out, err := readAll(Reorder(r, time.Duration(rng.IntN(300))))
		if err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		if len(out) != len(reqs) {
			t.Fatalf("trial %d: %d requests out of %d", trial, len(out), len(reqs))
		}
		seen := map[string][]int64{}
		for _, q := range out {
			seen[string(q.Key)] = append(seen[string(q.Key)], q.T)
		}
		for _, q := range reqs {
			k := string(q.Key)
			if len(seen[k]) == 0 || seen[k][0] != q.T {
				t.Fatalf("trial %d: key %s out of its order: %v", trial, k, seen[k])
			}
			seen[k] = seen[k][1:]
		}
	}
}
