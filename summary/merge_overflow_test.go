package summary

import (
	"math"
	"strings"
	"testing"
)

// Shards whose counts add up beyond int64 do not merge: the error names
// the field, where a plain sum would wrap to a negative count.
func TestMergeRefusesOverflow(t *testing.T) {
	shards := func(n int64) []*Summary {
		var parts []*Summary
		for i := range 2 {
			s := validSummary(n)
			s.Shard = &Shard{Index: i, Count: 2}
			parts = append(parts, s)
		}
		return parts
	}
	m, err := Merge(shards(1 << 61))
	if err != nil || m.Trace.Requests != 1<<62 || m.Runs[0].Admitted != 1<<62 {
		t.Fatalf("within int64: %v", err)
	}
	_, err = Merge(shards(1 << 62))
	if want := "merge: trace.requests: 4611686018427387904 + 4611686018427387904 overflows a 64-bit integer"; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("got %v, want %q", err, want)
	}

	// A shard whose admitted count alone is beyond its requests is refused
	// before any sum.
	parts := shards(3)
	parts[1].Runs[0].Admitted = math.MaxInt64
	if _, err := Merge(parts); err == nil || !strings.Contains(err.Error(), "merge: part 1: runs[0].admitted + rejected: 9223372036854775807, but requests is 3") {
		t.Errorf("admitted beyond requests: %v", err)
	}
}

// Every sum of a run's merge is checked, each error naming its field: the
// workers' parts (MergeDisjoint) are not validated, so the sums alone
// stand between a wrong part and a wrapped count.
func TestMergeRunSumsNameTheField(t *testing.T) {
	for _, c := range []struct {
		field string
		edit  func(r *Run)
	}{
		{"requests", func(r *Run) { r.Requests = math.MaxInt64 }},
		{"admitted", func(r *Run) { r.Admitted = math.MaxInt64 }},
		{"rejected_cost", func(r *Run) { r.RejectedCost = math.MaxInt64 }},
		{"keys_under", func(r *Run) { r.KeysUnder = math.MaxInt64 }},
		{"phase.over[3]", func(r *Run) { r.Phase.Over[3] = math.MaxInt64 }},
		{"memory.sum_of_peaks", func(r *Run) { r.Memory.SumOfPeaks = math.MaxInt64 }},
		{"token_bound.violations", func(r *Run) { r.Bound = &Bound{B: 1, Violations: math.MaxInt64} }},
		{"peer.flips", func(r *Run) { r.Peer = &Peer{Flips: math.MaxInt64} }},
		{"vs_token.under", func(r *Run) { r.VsToken = &Disagreement{Under: math.MaxInt64} }},
		{"client.unrecovered", func(r *Run) { r.Client = &ClientSide{Unrecovered: math.MaxInt64} }},
		{"product.vs_twin.over", func(r *Run) { r.Product = &Product{Twin: "token", VsTwin: Disagreement{Over: math.MaxInt64}} }},
		{"memory.windows.bytes[0]", func(r *Run) {
			r.Memory.Windows = &MemoryWindows{WidthNS: 30e9, Bytes: []int64{math.MaxInt64}}
		}},
	} {
		a, b := validSummary(1), validSummary(1)
		c.edit(&a.Runs[0])
		c.edit(&b.Runs[0])
		_, err := MergeDisjoint([]*Summary{a, b})
		want := "merge: runs[0] (log 5/30s count=accepted mode=independent): " + c.field + ": "
		if err == nil || !strings.HasPrefix(err.Error(), want) || !strings.HasSuffix(err.Error(), "overflows a 64-bit integer (at most 9223372036854775807)") {
			t.Errorf("%s: got %v, want %q... overflows", c.field, err, want)
		}
	}
}

// The closed-loop and deployment results, and the exact sums of a rate
// error, refuse an overflowing sum too.
func TestMergeResultSumsNameTheField(t *testing.T) {
	cl := ClientsResult{Algorithm: "counter", Rule: "5/30s", Policy: "honor", Sent: math.MaxInt64}
	if _, err := MergeClientsResults([]ClientsResult{cl, cl}); err == nil || !strings.Contains(err.Error(), "clients: merge: sent: ") {
		t.Errorf("closed loop: %v", err)
	}
	d := DistributedResult{Algorithm: "counter", Rule: "5/30s", Nodes: 1, NodeSkewNS: []int64{0}, Over: math.MaxInt64}
	if _, err := MergeDistributedResults([]DistributedResult{d, d}); err == nil || !strings.Contains(err.Error(), "distributed: merge: over: ") {
		t.Errorf("deployment: %v", err)
	}
	a, b := NewRateErrors(5), NewRateErrors(5)
	a.pos, b.pos = wideSum{hi: math.MaxUint64}, wideSum{hi: 1}
	if err := a.merge(b); err == nil || err.Error() != "sums.pos: the sum overflows a 128-bit integer" {
		t.Errorf("rate error sums: %v", err)
	}
	a, b = NewRateErrors(5), NewRateErrors(5)
	a.n, b.n = math.MaxInt64, 1
	if err := a.merge(b); err == nil || !strings.HasPrefix(err.Error(), "samples: ") {
		t.Errorf("rate error samples: %v", err)
	}
}

// A sum that would leave int64 is an error naming the field, and the
// element of a slice; the first one stays, and nothing is added after it.
func TestSumsNameWhatOverflows(t *testing.T) {
	var s sums
	dst := s.addAll("over", []int64{1, math.MaxInt64, 3}, []int64{1, 1, 1})
	if s.err == nil || s.err.Error() != "over[1]: 9223372036854775807 + 1 overflows a 64-bit integer (at most 9223372036854775807)" {
		t.Fatalf("err %v", s.err)
	}
	if dst[0] != 2 || dst[1] != math.MaxInt64 || dst[2] != 3 {
		t.Errorf("summed %v: want [2 max 3], nothing added from the overflow on", dst)
	}
	n := int64(5)
	s.add("requests", &n, -math.MaxInt64)
	if n != 5 || s.err.Error()[:7] != "over[1]" {
		t.Errorf("after an overflow: %d, %v", n, s.err)
	}
	var fresh sums
	m := int64(math.MinInt64)
	if fresh.add("requests", &m, -1); fresh.err == nil || m != math.MinInt64 {
		t.Errorf("min - 1: %d, %v", m, fresh.err)
	}
}
