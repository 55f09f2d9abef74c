package summary

import (
	"bytes"
	"strings"
	"testing"
)

// A summary written before v1.2 names the bound check seed002_bound: it
// reads back into Bound, and is written again as token_bound under v1.2; a
// summary without a bound stays the version it was.
func TestBoundReadUnderEitherName(t *testing.T) {
	data, err := smallSummary(t).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	old := strings.ReplaceAll(string(data), `"token_bound"`, `"seed002_bound"`)
	old = strings.Replace(old, `"schema": "ratebench.summary/v1.2"`, `"schema": "ratebench.summary/v1.1"`, 1)
	s, err := ReadSummary(strings.NewReader(old))
	if err != nil {
		t.Fatal(err)
	}
	bounds := 0
	for _, r := range s.Runs {
		switch {
		case r.Algorithm == "token" && r.Mode == "independent":
			if b := r.Bound; b == nil || b.B != 2 {
				t.Fatalf("bound read from seed002_bound: %+v", b)
			}
			bounds++
		case r.Bound != nil:
			t.Errorf("%s %s has a bound: %+v", r.Algorithm, r.Mode, r.Bound)
		}
	}
	if bounds != 1 {
		t.Fatalf("%d runs with a bound, want 1", bounds)
	}
	if s.Schema != SchemaV1_2 {
		t.Errorf("schema of a summary with a bound: %q, want %q", s.Schema, SchemaV1_2)
	}
	data, err = s.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	if strings.Contains(text, "seed002") || !strings.Contains(text, `"token_bound": {`) || !strings.Contains(text, `"schema": "ratebench.summary/v1.2"`) {
		t.Errorf("rewritten:\n%s", text)
	}
	if _, err := ReadSummary(bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}

	v1 := validSummary(3)
	withUnit := validSummary(3)
	withUnit.Trace.TSUnit, withUnit.Trace.TSUnitFrom = "s", "auto"
	for _, tc := range []struct {
		s    *Summary
		want string
	}{{v1, SchemaV1}, {withUnit, SchemaV1_1}} {
		data, err := tc.s.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		s, err := ReadSummary(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		if s.Schema != tc.want {
			t.Errorf("%s: schema %q, want %q", data, s.Schema, tc.want)
		}
	}
}

// Merging shards written before v1.2 writes the bound under its new name
// and the schema that has it.
func TestMergeOldBound(t *testing.T) {
	var parts []*Summary
	for i, v := range []int64{1, 2} {
		p := validSummary(3)
		p.Shard = &Shard{Index: i, Count: 2}
		p.Config.Algorithms = []string{"log", "token"}
		token := p.Runs[0]
		token.Algorithm = "token"
		token.Bound = &Bound{B: 5, Violations: v}
		p.Runs = append(p.Runs, token)
		data, err := p.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		old := strings.Replace(string(data), `"token_bound"`, `"seed002_bound"`, 1)
		old = strings.Replace(old, `"schema": "ratebench.summary/v1.2"`, `"schema": "ratebench.summary/v1"`, 1)
		s, err := ReadSummary(strings.NewReader(old))
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, s)
	}
	m, err := Merge(parts)
	if err != nil {
		t.Fatal(err)
	}
	if m.Schema != SchemaV1_2 || m.Runs[1].Bound == nil || *m.Runs[1].Bound != (Bound{B: 5, Violations: 3}) {
		t.Errorf("merged: schema %q, bound %+v", m.Schema, m.Runs[1].Bound)
	}
}

// Two shards each within the window bound, whose union spans more, merge
// into a total not measured; one shard not measured makes the merge so.
func TestMergeWindowsBeyondTheBound(t *testing.T) {
	read := func(i int, windows *MemoryWindows) *Summary {
		s := validSummary(1)
		s.Shard = &Shard{Index: i, Count: 2}
		s.Config.Rules, s.Config.Algorithms = []string{"5/1s"}, []string{"log", "counter"}
		s.Runs = []Run{s.Runs[0], s.Runs[0]} // the log's and counter's, alike
		for i := range s.Runs {
			r := &s.Runs[i]
			r.Rule = "5/1s"
			r.Timeline = Timeline{WidthNS: 1e9, Requests: []int64{1}, Over: []int64{0}, Under: []int64{0}}
			r.Memory = Memory{Model: "m", PeakPerKey: 24, SumOfPeaks: 24, MeanPerKey: 24, Windows: windows}
			if windows == nil {
				r.Memory.TotalNotMeasured = true
			} else {
				r.FillWindows(true)
			}
		}
		s.Runs[1].Algorithm = "counter"
		_, back := roundTrip(t, s)
		return back
	}
	win := func(first int64) *MemoryWindows {
		return &MemoryWindows{WidthNS: 1e9, First: first, Bytes: []int64{24}}
	}
	for _, c := range []struct {
		name       string
		a, b       *MemoryWindows
		notMeasure bool
	}{
		{"within", win(0), win(MaxMemoryWindows - 1), false},
		{"union beyond", win(0), win(MaxMemoryWindows), true},
		{"one not measured", win(0), nil, true},
	} {
		m, err := Merge([]*Summary{read(0, c.a), read(1, c.b)})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		mem := m.Runs[1].Memory
		if mem.TotalNotMeasured != c.notMeasure || c.notMeasure && (mem.Windows != nil || mem.PeakTotal != 0) {
			t.Errorf("%s: memory %+v, want not measured %v", c.name, mem, c.notMeasure)
		}
	}
}
