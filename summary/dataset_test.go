package summary

import (
	"slices"
	"strings"
	"testing"
)

// datasetPart returns validSummary(n), with its binding, as a run that
// read the given parts of a dataset of p partitions, and n records.
func datasetPart(t *testing.T, n int64, p int, parts ...int) *Summary {
	s := withBinding(t, validSummary(n))
	s.Trace.RecordsRead = n
	s.Trace.Dataset = &DatasetRead{Partitions: p, PartsRead: parts}
	s.Schema = SchemaOf(s)
	return s
}

// Runs that read disjoint parts of a dataset merge into one that read
// their union, with the records read and skipped of each added up; runs
// that read the same parts read the same records, taken once.
func TestMergeAddsDisjointDatasetParts(t *testing.T) {
	a, b := datasetPart(t, 3, 4, 0, 2), datasetPart(t, 5, 4, 1, 3)
	a.Trace.Skipped, a.Trace.SkippedExamples = 1, []SkipExample{{Row: 7, Reason: "key too long"}}
	b.Trace.Skipped = 2
	m, err := MergeDisjoint([]*Summary{a, b})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	d := m.Trace.Dataset
	if d == nil || d.Partitions != 4 || !slices.Equal(d.PartsRead, []int{0, 1, 2, 3}) {
		t.Errorf("merged dataset read %+v, want all 4 parts", d)
	}
	if m.Trace.RecordsRead != 8 || m.Trace.Skipped != 3 || len(m.Trace.SkippedExamples) != 1 {
		t.Errorf("merged records read %d, skipped %d (%d examples), want 8, 3 (1)", m.Trace.RecordsRead, m.Trace.Skipped, len(m.Trace.SkippedExamples))
	}
	if m.Schema != SchemaV1_7 {
		t.Errorf("schema %s, want %s", m.Schema, SchemaV1_7)
	}
	same, err := MergeDisjoint([]*Summary{datasetPart(t, 3, 4, 0, 1, 2, 3), datasetPart(t, 3, 4, 0, 1, 2, 3)})
	if err != nil {
		t.Fatal(err)
	}
	if same.Trace.RecordsRead != 3 {
		t.Errorf("runs of the same parts merged to %d records read, want 3 once", same.Trace.RecordsRead)
	}
	if _, err := MergeDisjoint([]*Summary{datasetPart(t, 3, 4, 0, 1, 2, 3), datasetPart(t, 5, 4, 0, 1, 2, 3)}); err == nil {
		t.Error("runs of the same parts that read other counts merged")
	}
}

// Parts that overlap, or that are not of the same dataset, do not merge.
func TestMergeRefusesOtherDatasetReads(t *testing.T) {
	plain := validSummary(3)
	plain.Trace.RecordsRead = 3
	plain.Schema = SchemaOf(plain)
	for _, c := range []struct {
		name  string
		parts []*Summary
		want  string
	}{
		{"overlap", []*Summary{datasetPart(t, 3, 4, 0, 2), datasetPart(t, 3, 4, 2, 3)}, "both read part 2"},
		{"partitions", []*Summary{datasetPart(t, 3, 4, 0, 2), datasetPart(t, 3, 8, 1, 3)}, "8 partitions"},
		{"no dataset", []*Summary{plain, datasetPart(t, 3, 4, 0, 2)}, "read a dataset and part 0 not"},
	} {
		if _, err := MergeDisjoint(c.parts); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}

// Validate checks the parts read: each once, ascending, each a part.
func TestValidateDatasetRead(t *testing.T) {
	for _, c := range []struct {
		d    DatasetRead
		want string
	}{
		{DatasetRead{Partitions: 0, PartsRead: []int{0}}, "partitions"},
		{DatasetRead{Partitions: 4}, "empty"},
		{DatasetRead{Partitions: 4, PartsRead: []int{4}}, "not a part"},
		{DatasetRead{Partitions: 4, PartsRead: []int{2, 1}}, "ascending"},
		{DatasetRead{Partitions: 4, PartsRead: []int{1, 1}}, "ascending"},
	} {
		s := datasetPart(t, 3, c.d.Partitions, c.d.PartsRead...)
		if err := s.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.d, err, c.want)
		}
	}
	if err := datasetPart(t, 3, 4, 1, 3).Validate(); err != nil {
		t.Error(err)
	}
	_, back := roundTrip(t, datasetPart(t, 3, 4, 1, 3))
	if d := back.Trace.Dataset; d == nil || !slices.Equal(d.PartsRead, []int{1, 3}) {
		t.Errorf("read back %+v", d)
	}
}
