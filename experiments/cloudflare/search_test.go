package cloudflare

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"ratebench/algorithms"
)

func testGrid(t *testing.T) Grid {
	t.Helper()
	r, err := algorithms.ParseRule("100/1m")
	if err != nil {
		t.Fatal(err)
	}
	return Grid{Rules: []algorithms.Rule{r}, Rates: []float64{0.5}, Alphas: []float64{4}, Maxes: []float64{2, 3, 4, 5}, Blocks: []string{"", "1m"}, Algs: []string{"counter"}}
}

// A search cancelled part way returns the points it finished, in grid
// order; resumed from them it replays only the others, and ends with what
// a search that was never stopped gives, for any number of workers.
func TestInterruptedSearchResumes(t *testing.T) {
	g, pop := testGrid(t), Population{Requests: 20000, Sources: 30, Seed: 1}
	whole, err := ReplayGrid(context.Background(), g, pop, Options{Workers: 2})
	if err != nil || len(whole) != g.Size() {
		t.Fatalf("%d points, %v", len(whole), err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	part, err := ReplayGrid(ctx, g, pop, Options{Workers: 1, Progress: func(done, total int) {
		if done == 3 {
			cancel()
		}
	}})
	if !errors.Is(err, context.Canceled) || len(part) < 3 || len(part) >= g.Size() {
		t.Fatalf("cancelled: %d points, %v", len(part), err)
	}
	replayed := 0
	resumed, err := ReplayGrid(context.Background(), g, pop, Options{Workers: 3, Done: part, Progress: func(done, total int) { replayed++ }})
	if err != nil {
		t.Fatal(err)
	}
	if replayed != g.Size()-len(part) {
		t.Errorf("resumed from %d points, replayed %d, want %d", len(part), replayed, g.Size()-len(part))
	}
	if !reflect.DeepEqual(resumed, whole) {
		t.Error("the resumed search differs from the whole one")
	}
}

// Check refuses, before any replay, a grid of more than MaxPoints, a
// candidate that is not an algorithm, is the reference or has a timeout
// of its own, a value given twice on an axis, and a population that
// cannot be made.
func TestCheck(t *testing.T) {
	pop := Population{Requests: 1000, Sources: 10, Seed: 1}
	g := testGrid(t)
	if err := g.Check(pop); err != nil {
		t.Fatal(err)
	}
	big := g
	big.Rates = make([]float64, MaxPoints/g.Size()+1)
	for i := range big.Rates {
		big.Rates[i] = 0.1 + float64(i)
	}
	with := func(change func(*Grid)) Grid {
		h := g
		change(&h)
		return h
	}
	for _, tt := range []struct {
		name string
		grid Grid
		want string
	}{
		{"too many points", big, "more than the 1000 a search runs"},
		{"bad algorithm", with(func(h *Grid) { h.Algs = []string{"nonesuch"} }), `unknown algorithm "nonesuch"`},
		{"the reference", with(func(h *Grid) { h.Algs = []string{"counter", "log"} }), "alg log is the reference"},
		{"the reference behind a timeout", with(func(h *Grid) { h.Algs = []string{"log:block=1m"} }), "alg log:block=1m is the reference"},
		{"a timeout of its own", with(func(h *Grid) { h.Algs = []string{"counter:block=1m"} }), "alg counter:block=1m has a timeout of its own"},
		{"a candidate twice", with(func(h *Grid) { h.Algs = []string{"counter", "counter"} }), "gives alg counter twice"},
		{"a rule twice", with(func(h *Grid) { h.Rules = append(h.Rules, h.Rules[0]) }), "gives rule 100/1m twice"},
		{"a number twice", with(func(h *Grid) { h.Maxes = []float64{2, 3, 2} }), "gives max 2 twice"},
		{"a timeout twice", with(func(h *Grid) { h.Blocks = []string{"", "1m", ""} }), "gives block none (no timeout) twice"},
		{"bad population", with(func(h *Grid) { h.Rates = []float64{-1} }), "rate"},
	} {
		if err := tt.grid.Check(pop); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.want)
		}
	}
}
