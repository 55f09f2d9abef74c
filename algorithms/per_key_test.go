package algorithms_test

import (
	"encoding/binary"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"ratebench/algorithms"
)

// placeable returns every algorithm of the catalogue (with N sub-windows,
// behind a refusal cache, and each product with each of its deviations
// off) under rule r whose state can be placed in a Block, built twice: one
// to place, one to keep its own slices.
func placeable(t *testing.T, r algorithms.Rule) (placed, own []algorithms.Limiter) {
	t.Helper()
	specs := []string{"buckets:1", "buckets:4", "buckets:7"}
	for _, c := range algorithms.Catalogue() {
		name, _, _ := strings.Cut(c.Spec, "[")
		if strings.Contains(name, ":") {
			continue
		}
		if _, err := algorithms.New(name, r); err != nil && (name == "aws-waf" || name == "cloudflare-waf") {
			continue // a window these refuse: AWS WAF takes 1 to 10 minutes, Cloudflare 10 s to an hour
		}
		specs = append(specs, name, name+":block=1s")
		if p, ok := must(t, name, r).(algorithms.Product); ok { // and with each deviation off, which may change what it keeps
			for _, d := range p.Deviations() {
				specs = append(specs, name+":without="+d.Name)
			}
			specs = append(specs, withoutAll(p))
		}
	}
	for _, spec := range specs {
		a, b := must(t, spec, r), must(t, spec, r)
		if _, ok := a.(algorithms.Placer); ok {
			placed, own = append(placed, a), append(own, b)
		}
	}
	return placed, own
}

// A limiter decides the same with its state placed in a block, beside
// every other placeable limiter's, as with its own slices, through the
// block's growth (keys arrive over time) and key releases.
func TestPlacedStateDecidesAsOwn(t *testing.T) {
	for _, r := range []algorithms.Rule{{L: 10, W: int64(time.Minute)}, {L: 3, W: int64(time.Second)}} {
		placed, own := placeable(t, r)
		if len(placed) < 40 {
			t.Fatalf("%d placeable algorithms; want the textbook ones and the products, and their variants", len(placed))
		}
		var b algorithms.Block
		for _, l := range placed {
			l.(algorithms.Placer).Place(&b)
		}
		rng := rand.New(rand.NewPCG(7, uint64(r.L)))
		tm := int64(1_700_000_000_000_000_000)
		n := 0
		for i := range 20_000 {
			tm += rng.Int64N(r.W / 4)
			id := int32(rng.IntN(min(1+i/50, 300)))
			if int(id) >= n {
				n = 2 * (int(id) + 1)
				b.Grow(n)
				for j := range placed {
					placed[j].Grow(n)
					own[j].Grow(n)
				}
			}
			cost := 1 + rng.Int64N(3)
			for j := range placed {
				p, o := placed[j], own[j]
				dp, do := p.Decide(id, tm, cost), o.Decide(id, tm, cost)
				if dp != do {
					t.Fatalf("%s under %v, request %d (key %d): placed %v, own %v", p.Name(), r, i, id, dp, do)
				}
				if dp || p.CountsRejected() {
					p.Record(id, tm, cost)
					o.Record(id, tm, cost)
				}
				if rp, ok := p.(algorithms.Releaser); ok && rng.IntN(50) == 0 && rp.Idle(id, tm) {
					rp.Release(id)
					o.(algorithms.Releaser).Release(id)
				}
			}
		}
	}
}

// A block's keys are independent: what a limiter placed in it records of
// one key is not seen by another key, nor by another limiter of the block.
func TestBlockKeysAndValuesApart(t *testing.T) {
	r := algorithms.Rule{L: 2, W: int64(time.Second)}
	c, f := algorithms.NewCounter(r), algorithms.NewFixed(r)
	var b algorithms.Block
	c.Place(&b)
	f.Place(&b)
	b.Grow(3)
	if b.Stride() != 3 {
		t.Fatalf("stride %d words; want 3: the counter's 12 bytes (its window and counts in 32 bits) and the fixed window's 8", b.Stride())
	}
	for range 2 {
		c.Record(1, 10, 1)
	}
	if c.Decide(1, 11, 1) || !c.Decide(0, 11, 1) || !c.Decide(2, 11, 1) || !f.Decide(1, 11, 1) {
		t.Error("two requests of key 1 in the counter reached another key or the fixed window")
	}
	var cell [16]byte // the window's number, prev and curr in 32 bits each
	binary.NativeEndian.PutUint64(cell[:8], b.Key(1)[0])
	binary.NativeEndian.PutUint64(cell[8:], b.Key(1)[1])
	if prev, curr := binary.NativeEndian.Uint32(cell[4:8]), binary.NativeEndian.Uint32(cell[8:12]); prev != 0 || curr != 2 {
		t.Errorf("key 1's counter holds prev %d, curr %d; want prev 0, curr 2", prev, curr)
	}
}

// A value holding a pointer cannot be placed, and nothing can be placed
// once the block holds keys.
func TestPlaceRefuses(t *testing.T) {
	mustPanic := func(what string, f func()) {
		t.Helper()
		defer func() {
			if recover() == nil {
				t.Errorf("%s: no panic", what)
			}
		}()
		f()
	}
	var b algorithms.Block
	mustPanic("a pointer", func() {
		var k algorithms.PerKey[struct{ p *int }]
		k.Place(&b)
	})
	mustPanic("a slice", func() {
		var k algorithms.PerKey[[]int64]
		k.Place(&b)
	})
	b.Grow(1)
	mustPanic("after growth", func() {
		var k algorithms.PerKey[int64]
		k.Place(&b)
	})
}

// A block's keys keep their values as it grows, across the chunks it
// allocates (a wide value makes chunks of few keys).
func TestBlockGrowthKeepsValues(t *testing.T) {
	var b algorithms.Block
	wide := algorithms.NewPerKey[[1000]int64](1)
	narrow := algorithms.NewPerKey[int64](3)
	wide.Place(&b)
	narrow.Place(&b)
	n := 0
	for _, grow := range []int{1, 7, 100, 101, 1000} {
		b.Grow(grow)
		for id := int32(n); id < int32(grow); id++ {
			w, r := wide.At(id), narrow.Row(id)
			if w[0] != 0 || w[999] != 0 || r[0] != 0 || r[2] != 0 {
				t.Fatalf("key %d is not zero when it becomes valid", id)
			}
			w[0], w[999] = int64(id), -int64(id)
			r[0], r[1], r[2] = int64(id), 2*int64(id), 3*int64(id)
		}
		n = grow
		for id := range int32(n) {
			w, r := wide.At(id), narrow.Row(id)
			if w[0] != int64(id) || w[999] != -int64(id) || r[0] != int64(id) || r[1] != 2*int64(id) || r[2] != 3*int64(id) {
				t.Fatalf("after growing to %d keys, key %d holds %d %d %v", n, id, w[0], w[999], r)
			}
		}
	}
	if wide.Len() != b.Len() || narrow.Len() != b.Len() || b.Len() < 1000 || b.Len() > 1000+64 {
		t.Errorf("Len %d, %d, block %d; want the 1000 keys asked for and the rest of the last chunk of 64", wide.Len(), narrow.Len(), b.Len())
	}
}

// must returns algorithm spec under rule r.
func must(t *testing.T, spec string, r algorithms.Rule) algorithms.Limiter {
	t.Helper()
	l, err := algorithms.New(spec, r)
	if err != nil {
		t.Fatalf("%s: %v", spec, err)
	}
	return l
}

// A block given an allocator takes every chunk from it, each of the
// block's chunk size, and refuses one set after it has grown.
func TestBlockAlloc(t *testing.T) {
	var b algorithms.Block
	v := algorithms.NewPerKey[[3]int64](1)
	v.Place(&b)
	var sizes []int
	b.SetAlloc(func(words int) []uint64 {
		sizes = append(sizes, words)
		return make([]uint64, words)
	})
	b.Grow(100_000)
	if len(sizes) == 0 || len(sizes)*sizes[0]/b.Stride() != b.Len() {
		t.Fatalf("chunks of %v words for %d keys of %d words: not every chunk came from the allocator", sizes, b.Len(), b.Stride())
	}
	for id := range int32(100_000) {
		v.At(id)[2] = int64(id)
	}
	if v.At(99_999)[2] != 99_999 || v.At(0)[2] != 0 || v.At(4096)[2] != 4096 {
		t.Errorf("values in allocated chunks are not kept")
	}
	defer func() {
		if recover() == nil {
			t.Errorf("SetAlloc after growth did not panic")
		}
	}()
	b.SetAlloc(nil)
}

// A block places each value at the alignment its type needs, not at a
// whole word: two values of three 32-bit fields share their words, and a
// 64-bit value after a 32-bit one starts at the next word. No value
// overlaps another.
func TestBlockPacksByAlignment(t *testing.T) {
	a, c := algorithms.NewPerKey[[3]uint32](1), algorithms.NewPerKey[[3]uint32](1)
	var n algorithms.PerKey[uint32]
	var w algorithms.PerKey[int64]
	var b algorithms.Block
	a.Place(&b)
	c.Place(&b)
	n.Place(&b)
	w.Place(&b)
	if b.Stride() != 3+1+1 { // 12+12 bytes, 4, then 4 of padding and 8
		t.Fatalf("stride %d words; want 5", b.Stride())
	}
	b.Grow(4)
	for id := range int32(4) {
		*a.At(id) = [3]uint32{uint32(id), 1, 2}
		*c.At(id) = [3]uint32{3, 4, 5}
		*n.At(id) = 6
		*w.At(id) = -7
	}
	for id := range int32(4) {
		if *a.At(id) != [3]uint32{uint32(id), 1, 2} || *c.At(id) != [3]uint32{3, 4, 5} || *n.At(id) != 6 || *w.At(id) != -7 {
			t.Errorf("key %d holds %v %v %d %d; want [%d 1 2] [3 4 5] 6 -7", id, *a.At(id), *c.At(id), *n.At(id), *w.At(id), id)
		}
	}
}
