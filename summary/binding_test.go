package summary

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// Every use is in the bin whose top is UseBinTop: exact below
// UseExactBelow, above it within 1/4096 of the use, the top its own bin's,
// and the bins in order of use, up to the largest int64.
func TestUseBins(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	uses := []int64{1, 2, UseExactBelow - 1, UseExactBelow, UseExactBelow + 1, 1 << 20, 1<<20 - 1, math.MaxInt64, math.MaxInt64 - 1, 1 << 62}
	for range 10000 {
		uses = append(uses, 1+rng.Int64N(1<<uint(1+rng.IntN(62))))
	}
	for _, u := range uses {
		top := UseBinTop(u)
		switch {
		case u < UseExactBelow && top != u:
			t.Errorf("use %d: bin top %d, want itself", u, top)
		case top < u || float64(top-u) > float64(u)/UseBinsPerOctave:
			t.Errorf("use %d: bin top %d, not within 1/%d above", u, top, UseBinsPerOctave)
		case UseBinTop(top) != top:
			t.Errorf("use %d: bin top %d is in the bin of %d", u, top, UseBinTop(top))
		case u > 1 && UseBinTop(u-1) > top:
			t.Errorf("use %d: the bin of %d is above", u, u-1)
		}
	}
}

func testBinding() Binding {
	b := Binding{Rule: "100/1m", Count: "all", Requests: 1000, PeakUse: 40, PeakKey: "a",
		UseBins: []UseBin{{1, 500}, {5, 300}, {10, 150}, {20, 40}, {30, 9}, {40, 1}}}
	if err := b.SetTighter(); err != nil {
		panic(err)
	}
	return b
}

// The tighter limits of a binding are the bin tops nearest by ratio to
// 0.1%, 1% and 10% of the requests refused, below the rule's limit, each
// with its exact refusals.
func TestTighterLimits(t *testing.T) {
	b := testBinding()
	var got []string
	for _, tl := range b.Tighter {
		got = append(got, tl.Rule)
		if tl.UpperBound {
			t.Errorf("%s: an upper bound under count all", tl.Rule)
		}
	}
	// Above 30: 1 request (0.1%); above 20: 10 (1%); for 10%, above 10:
	// 50 and above 5: 200 are both 2× from 100, a tie, which goes to the
	// smaller limit.
	if strings.Join(got, " ") != "30/1m 20/1m 5/1m" {
		t.Errorf("tighter %v", b.Tighter)
	}
	if b.Tighter[0].Refused != 1 || b.Tighter[1].Refused != 10 || b.Tighter[2].Refused != 200 || b.Tighter[2].Share != 0.2 {
		t.Errorf("refusals %+v", b.Tighter)
	}
	b.Rule = "20/1m" // only limits below the rule's
	if err := b.SetTighter(); err != nil {
		t.Fatal(err)
	}
	for _, tl := range b.Tighter {
		if tl.Limit >= 20 {
			t.Errorf("at 20/1m, the tighter limit %s", tl.Rule)
		}
	}
	b.UseBins = []UseBin{{1, 1000}} // one request a window: no tighter limit refuses
	if err := b.SetTighter(); err != nil || len(b.Tighter) != 0 {
		t.Errorf("one request a window: tighter %+v, %v", b.Tighter, err)
	}
}

// Validation refuses a binding whose parts do not hold together.
func TestBindingValidates(t *testing.T) {
	good := testBinding()
	if err := good.validate(); err != nil {
		t.Fatal(err)
	}
	for name, spoil := range map[string]func(*Binding){
		"bins that miss a request": func(b *Binding) { b.Requests++ },
		"bins out of order":        func(b *Binding) { b.UseBins[0], b.UseBins[1] = b.UseBins[1], b.UseBins[0] },
		"a bin that is not a top":  func(b *Binding) { b.UseBins = append(b.UseBins, UseBin{UseExactBelow + 1, 1}); b.Requests++ },
		"a peak outside the bins":  func(b *Binding) { b.PeakUse = 41 },
		"more keys than refusals":  func(b *Binding) { b.KeysRefused = 1 },
		"tighter limits made up":   func(b *Binding) { b.Tighter[0].Refused++ },
	} {
		b := testBinding()
		b.UseBins = append([]UseBin(nil), b.UseBins...)
		spoil(&b)
		if err := b.validate(); err == nil {
			t.Errorf("%s: validates", name)
		}
	}
}

// Bindings of disjoint keys merge: counts and bins add, the peak is the
// larger (the smaller key on a tie), the tighter limits are found again.
func TestMergeBindings(t *testing.T) {
	a := Binding{Rule: "10/1m", Count: "accepted", Requests: 3, LogRefused: 1, KeysRefused: 1, PeakUse: 11, PeakKey: "z", UseBins: []UseBin{{1, 1}, {2, 1}, {11, 1}}}
	b := Binding{Rule: "10/1m", Count: "accepted", Requests: 2, PeakUse: 11, PeakKey: "b", UseBins: []UseBin{{2, 1}, {11, 1}}}
	m, err := MergeBindings([]Binding{a, b})
	if err != nil {
		t.Fatal(err)
	}
	if m.Requests != 5 || m.LogRefused != 1 || m.KeysRefused != 1 || m.PeakKey != "b" || len(m.UseBins) != 3 || m.UseBins[1] != (UseBin{2, 2}) {
		t.Errorf("merged %+v", m)
	}
	if err := m.validate(); err != nil {
		t.Error(err)
	}
	b.Count = "all"
	if _, err := MergeBindings([]Binding{a, b}); err == nil {
		t.Error("bindings of two count policies merge")
	}
}
