package summary

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// A summary written before v1.2 names the bound check seed002_bound: it
// reads back into Bound, and is written again as token_bound under v1.2; a
// summary without a bound stays the version it was.
func TestBoundReadUnderEitherName(t *testing.T) {
	const old = `{"schema": "ratebench.summary/v1", "trace": {}, "config": {}, "runs": [
 {"rule": "5/30s", "algorithm": "token", "seed002_bound": {"b": 5, "violations": 2}},
 {"rule": "5/30s", "algorithm": "log"}]}`
	s, err := ReadSummary(strings.NewReader(old))
	if err != nil {
		t.Fatal(err)
	}
	if b := s.Runs[0].Bound; b == nil || b.B != 5 || b.Violations != 2 {
		t.Fatalf("bound read from seed002_bound: %+v", b)
	}
	if s.Runs[1].Bound != nil {
		t.Errorf("log run has a bound: %+v", s.Runs[1].Bound)
	}
	if s.Schema != SchemaV1_2 {
		t.Errorf("schema of a summary with a bound: %q, want %q", s.Schema, SchemaV1_2)
	}
	data, err := s.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	if strings.Contains(text, "seed002") || !strings.Contains(text, `"token_bound": {`) || !strings.Contains(text, `"schema": "ratebench.summary/v1.2"`) {
		t.Errorf("rewritten:\n%s", text)
	}
	back, err := ReadSummary(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if b := back.Runs[0].Bound; b == nil || *b != (Bound{B: 5, Violations: 2}) {
		t.Errorf("bound read from token_bound: %+v", b)
	}

	for _, tc := range []struct{ in, want string }{
		{`{"schema": "ratebench.summary/v1", "runs": [{"algorithm": "log"}]}`, SchemaV1},
		{`{"schema": "ratebench.summary/v1.1", "trace": {"ts_unit": "s"}, "runs": [{"algorithm": "log"}]}`, SchemaV1_1},
	} {
		s, err := ReadSummary(strings.NewReader(tc.in))
		if err != nil {
			t.Fatal(err)
		}
		if s.Schema != tc.want {
			t.Errorf("%s: schema %q, want %q", tc.in, s.Schema, tc.want)
		}
	}
}

// Merging shards written before v1.2 writes the bound under its new name
// and the schema that has it.
func TestMergeOldBound(t *testing.T) {
	const part = `{"schema": "ratebench.summary/v1", "shard": {"index": %d, "count": 2}, "trace": {}, "config": {}, "runs": [
 {"rule": "5/30s", "count": "accepted", "mode": "independent", "algorithm": "token", "seed002_bound": {"b": 5, "violations": %d}, "top_keys": []}]}`
	var parts []*Summary
	for i, v := range []int{1, 2} {
		s, err := ReadSummary(strings.NewReader(fmt.Sprintf(part, i, v)))
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, s)
	}
	m, err := Merge(parts)
	if err != nil {
		t.Fatal(err)
	}
	if m.Schema != SchemaV1_2 || m.Runs[0].Bound == nil || *m.Runs[0].Bound != (Bound{B: 5, Violations: 3}) {
		t.Errorf("merged: schema %q, bound %+v", m.Schema, m.Runs[0].Bound)
	}
}

// Two shards each within the window bound, whose union spans more, merge
// into a total not measured; one shard not measured makes the merge so.
func TestMergeWindowsBeyondTheBound(t *testing.T) {
	const part = `{"schema": "ratebench.summary/v1.2", "shard": {"index": %d, "count": 2}, "trace": {}, "config": {}, "runs": [
 {"rule": "5/1s", "count": "accepted", "mode": "independent", "algorithm": "counter", "keys": 1,
  "memory": {"model": "m", "peak_per_key": 24, "sum_of_peaks": 24, "peak_total": 24%s}, "top_keys": []}]}`
	read := func(i int, mem string) *Summary {
		s, err := ReadSummary(strings.NewReader(fmt.Sprintf(part, i, mem)))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	win := func(first int64) string {
		return fmt.Sprintf(`, "windows": {"width_ns": 1000000000, "first": %d, "bytes": [24]}`, first)
	}
	for _, c := range []struct {
		name       string
		a, b       string
		notMeasure bool
	}{
		{"within", win(0), win(MaxMemoryWindows - 1), false},
		{"union beyond", win(0), win(MaxMemoryWindows), true},
		{"one not measured", win(0), `, "peak_total_not_measured": true`, true},
	} {
		m, err := Merge([]*Summary{read(0, c.a), read(1, c.b)})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		mem := m.Runs[0].Memory
		if mem.TotalNotMeasured != c.notMeasure || c.notMeasure && (mem.Windows != nil || mem.PeakTotal != 0) {
			t.Errorf("%s: memory %+v, want not measured %v", c.name, mem, c.notMeasure)
		}
	}
}
