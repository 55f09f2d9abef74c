package summary

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

// Every figure of a run, each field of Run that holds a section of its
// own (a struct, or a pointer to one), is in runFigures under its JSON
// name, once: merging and validating a run see all of them.
func TestRunFiguresAreTheRunsSections(t *testing.T) {
	var sections []string
	rt := reflect.TypeFor[Run]()
	for i := range rt.NumField() {
		f := rt.Field(i)
		typ := f.Type
		if typ.Kind() == reflect.Pointer {
			typ = typ.Elem()
		}
		if typ.Kind() == reflect.Struct {
			sections = append(sections, strings.Split(f.Tag.Get("json"), ",")[0])
		}
	}
	var listed []string
	for _, f := range runFigures {
		listed = append(listed, f.name())
	}
	slices.Sort(sections)
	slices.Sort(listed)
	if !slices.Equal(sections, listed) {
		t.Errorf("runFigures list %v, Run's sections are %v", listed, sections)
	}
}

// Every list of results a summary holds beside its runs (a slice of a
// struct) is in summaryResults under its JSON name: merging and
// validating a summary see all of them.
func TestSummaryResultsAreTheSummarysLists(t *testing.T) {
	var lists []string
	st := reflect.TypeFor[Summary]()
	for i := range st.NumField() {
		f := st.Field(i)
		if name := strings.Split(f.Tag.Get("json"), ",")[0]; f.Type.Kind() == reflect.Slice && f.Type.Elem().Kind() == reflect.Struct && name != "runs" {
			lists = append(lists, name)
		}
	}
	var listed []string
	for _, l := range summaryResults {
		listed = append(listed, l.name())
	}
	slices.Sort(lists)
	slices.Sort(listed)
	if len(lists) < 3 || !slices.Equal(lists, listed) {
		t.Errorf("summaryResults list %v, Summary's lists of results are %v", listed, lists)
	}
}

// A figure that follows from a run's configuration is in every part of a
// merge or in none; one that a part may lack (a peer's, a client side) is
// taken from the parts that have it.
func TestMergeRefusesAFigureInSomeParts(t *testing.T) {
	for _, c := range []struct {
		field string
		set   func(r *Run)
	}{
		{"burst", func(r *Run) { r.Burst = &Burst{Max: 1, Ratio: 0.2, Key: "k"} }},
		{"token_bound", func(r *Run) { r.Bound = &Bound{B: 5} }},
		{"rate_error", func(r *Run) { r.RateError = &RateError{Samples: 1} }},
		{"placed", func(r *Run) { r.Placed = &Placed{Over: []int64{0}} }},
	} {
		for _, first := range []bool{true, false} {
			a, b := validSummary(1), validSummary(1)
			if first {
				c.set(&a.Runs[0])
			} else {
				c.set(&b.Runs[0])
			}
			_, err := MergeDisjoint([]*Summary{a, b})
			if want := c.field + ": in some parts and not in others"; err == nil || !strings.HasSuffix(err.Error(), want) {
				t.Errorf("%s in part %d alone: got %v, want %q", c.field, map[bool]int{true: 0, false: 1}[first], err, want)
			}
		}
	}
	a, b := validSummary(2), validSummary(3)
	b.Runs[0].Peer = &Peer{Checked: 3}
	b.Runs[0].Client = &ClientSide{Unrecovered: 1}
	m, err := MergeDisjoint([]*Summary{a, b})
	if err != nil || m.Runs[0].Peer == nil || m.Runs[0].Peer.Checked != 3 || m.Runs[0].Client == nil || m.Runs[0].Client.Unrecovered != 1 {
		t.Errorf("a peer's and a client side in one part: %v, %+v", err, m)
	}
}
