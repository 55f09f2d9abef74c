package summary

import (
	"encoding/json"
	"math"
	"math/big"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

func TestDurationBinLayout(t *testing.T) {
	prevHi := int64(-1)
	for i := range DurationBins {
		lo, hi := DurationBinRange(i)
		if lo != prevHi+1 || hi < lo {
			t.Fatalf("bin %d = [%d, %d] does not follow bin %d ending at %d", i, lo, hi, i-1, prevHi)
		}
		if DurationBin(lo) != i || DurationBin(hi) != i || (lo > 0 && DurationBin(lo-1) != i-1) {
			t.Fatalf("bin %d = [%d, %d]: DurationBin gives %d, %d", i, lo, hi, DurationBin(lo), DurationBin(hi))
		}
		if i >= 32 && (hi-lo+1)*16 > lo {
			t.Fatalf("bin %d = [%d, %d] is wider than 1/16 of its lower edge", i, lo, hi)
		}
		if i < 32 && lo != hi {
			t.Fatalf("bin %d = [%d, %d] is not exact", i, lo, hi)
		}
		prevHi = hi
	}
	if prevHi != math.MaxInt64 || DurationBin(math.MaxInt64) != DurationBins-1 {
		t.Fatalf("the last bin ends at %d", prevHi)
	}
}

// samples returns n durations spread over every scale: zeros, small exact
// values, and log-uniform values up to about 10^15 ns.
func samples(seed uint64, n int) []int64 {
	rng := rand.New(rand.NewPCG(seed, 1))
	out := make([]int64, n)
	for i := range out {
		switch rng.IntN(4) {
		case 0:
			out[i] = 0
		case 1:
			out[i] = rng.Int64N(40)
		default:
			out[i] = int64(math.Exp(rng.Float64() * 35))
		}
	}
	return out
}

func TestDurationsQuantiles(t *testing.T) {
	for _, n := range []int{1, 2, 7, 100, 5000} {
		vs := samples(uint64(n), n)
		var d Durations
		for _, v := range vs {
			d.Add(v)
		}
		slices.Sort(vs)
		for _, q := range []float64{0, 0.001, 0.1, 0.5, 0.9, 0.99, 0.999, 1} {
			rank := int(math.Ceil(q * float64(n)))
			x := vs[max(rank, 1)-1]
			got := d.Quantile(q)
			lo, hi := DurationBinRange(DurationBin(x))
			if got < x || got > hi || got-x > hi-lo {
				t.Errorf("n=%d q=%v: quantile %d, true %d in bin [%d, %d]", n, q, got, x, lo, hi)
			}
		}
		if d.Quantile(1) != vs[n-1] || d.MaxNS != vs[n-1] {
			t.Errorf("n=%d: max %d, quantile(1) %d, want %d", n, d.MaxNS, d.Quantile(1), vs[n-1])
		}
		sum := new(big.Int)
		for _, v := range vs {
			sum.Add(sum, big.NewInt(v))
		}
		want, _ := new(big.Float).Quo(new(big.Float).SetInt(sum), big.NewFloat(float64(n))).Float64()
		if m := d.Mean(); math.Abs(m-want) > 1e-12*want {
			t.Errorf("n=%d: mean %v, want %v", n, m, want)
		}
		if err := d.Validate(); err != nil {
			t.Error(err)
		}
	}
	var empty Durations
	if empty.Quantile(0.5) != 0 || empty.Mean() != 0 || empty.Validate() != nil {
		t.Error("empty histogram")
	}
}

// TestDurationsWideSum: sums beyond 64 bits stay exact.
func TestDurationsWideSum(t *testing.T) {
	var d Durations
	for range 6 {
		d.Add(math.MaxInt64)
	}
	// 6*(2^63-1) = 3*2^64 - 6
	if d.SumNS != [2]uint64{2, math.MaxUint64 - 5} {
		t.Errorf("sum %v", d.SumNS)
	}
	if m := d.Mean(); m != float64(math.MaxInt64) {
		t.Errorf("mean %v", m)
	}
	defer func() {
		if recover() == nil {
			t.Error("Add(-1) did not panic")
		}
	}()
	d.Add(-1)
}

func TestDurationsMerge(t *testing.T) {
	vs := samples(9, 3000)
	var all Durations
	for _, v := range vs {
		all.Add(v)
	}
	// Any split, merged in any order, gives the same histogram.
	rng := rand.New(rand.NewPCG(3, 3))
	for k := 1; k <= 5; k++ {
		parts := make([]Durations, k)
		for _, v := range vs {
			parts[rng.IntN(k)].Add(v)
		}
		var m Durations
		for _, i := range rng.Perm(k) {
			m.Merge(parts[i])
		}
		if !reflect.DeepEqual(m, all) {
			t.Errorf("merge of %d parts differs from one pass", k)
		}
	}
	var e Durations
	e.Merge(Durations{})
	if !reflect.DeepEqual(e, Durations{}) {
		t.Errorf("merging empty histograms gives %+v", e)
	}
}

func TestDurationsJSON(t *testing.T) {
	for _, n := range []int{0, 1, 1000} {
		var d Durations
		for _, v := range samples(uint64(n)+17, n) {
			d.Add(v)
		}
		d.Add(math.MaxInt64) // a sum beyond 64 bits
		if n == 0 {
			d = Durations{}
		}
		b, err := json.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		var back Durations
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(back, d) || back.Validate() != nil {
			t.Errorf("round trip of %s gives %+v", b, back)
		}
		if b2, _ := json.Marshal(back); string(b2) != string(b) {
			t.Errorf("re-encoding differs:\n%s\n%s", b, b2)
		}
	}
	for _, bad := range []string{
		`{"samples":1,"sum_ns":[0,5],"max_ns":5,"bins":[[5,2]]}`,
		`{"samples":2,"sum_ns":[0,5],"max_ns":5,"bins":[[5,1],[3,1]]}`,
		`{"samples":1,"sum_ns":[0,5],"max_ns":5,"bins":[[960,1]]}`,
		`{"samples":1,"sum_ns":[0,5],"max_ns":6,"bins":[[5,1]]}`,
		`{"samples":0,"sum_ns":[0,5],"max_ns":0}`,
	} {
		var d Durations
		if err := json.Unmarshal([]byte(bad), &d); err != nil {
			t.Fatal(err)
		}
		if d.Validate() == nil {
			t.Errorf("%s validates", bad)
		}
	}
}
