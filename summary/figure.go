package summary

import (
	"fmt"

	"ratebench/algorithms"
)

// A run's figures beyond its counts (its burst, token bound, timeline,
// phase, rate error, memory, peer check, client side, comparison with the
// token bucket, product analysis and placements) are each a type of this
// package, in a file of its own, with two methods:
//
//   - merge adds one part's value of the figure into the merge of the parts
//     before it, so that the shards or workers of a replay give exactly the
//     figure one pass gives (Merge, MergeDisjoint);
//   - validate checks a value against its run, naming the field at fault
//     (Validate).
//
// runFigures, under Run, lists them with the field of Run each is held in,
// and merging and validating a run loop over that list: a new figure is
// its type, with these two methods, its field in Run and its line there.

// figureType is the method set of a figure's type T.
type figureType[T any] interface {
	*T
	// merge returns the figure with o, one part's, added: the receiver
	// is the merge of the parts before, nil (for an optional figure)
	// before the first part that has it. A sum that would leave int64 is
	// kept in m, naming its field (m.field); other mismatches between the
	// parts are returned.
	merge(o *T, m *merging) (*T, error)
	// validate checks the figure, at path ("runs[3].burst"), against
	// its run.
	validate(v *validator, path string, in *runIn)
}

// figure is one figure of a run: what merging and validating a run do
// with it.
type figure interface {
	name() string // its field in the run's JSON
	merge(out, part *Run, m *merging) error
	validate(v *validator, in *runIn)
}

// merging is what a figure's merge reads beside the two values: the run's
// primary rule, the first part's run (what the others must match), which
// part it merges and the overflow-checked sums, which keep the first
// overflow.
type merging struct {
	rule  algorithms.Rule
	first *Run
	part  int    // the index of the part being merged: 0, the first
	name  string // the figure's field in the run's JSON, which names its sums
	sums  *sums
}

// field names a field of the figure being merged: "burst.keys_over_l".
func (m *merging) field(name string) string { return m.name + "." + name }

// add adds v into *dst, the figure's field named name.
func (m *merging) add(name string, dst *int64, v int64) { m.sums.add(m.field(name), dst, v) }

// runIn is where a figure sits, for its checks: its run, the run's path
// in the JSON ("runs[3]"), the summary that holds it and the run's primary
// rule.
type runIn struct {
	run     *Run
	path    string
	summary *Summary
	rule    algorithms.Rule
}

// field names a field of the run: "runs[3].keys".
func (in *runIn) field(name string) string { return in.path + "." + name }

// presence says which parts of a merge hold an optional figure.
type presence bool

const (
	// everyPart: the figure is measured by every part or by none (it
	// follows from the run's configuration); a part that differs is an
	// error.
	everyPart presence = true
	// someParts: a part without it adds nothing.
	someParts presence = false
)

// optional is a figure held in a pointer field of Run, nil where the run
// does not measure it (omitted from the JSON).
type optional[T any, P figureType[T]] struct {
	field string // in the run's JSON
	of    func(*Run) **T
	every presence
}

// optionalFigure is the optional figure name held in the field of returns.
func optionalFigure[T any, P figureType[T]](name string, every presence, of func(*Run) **T) figure {
	return optional[T, P]{field: name, of: of, every: every}
}

func (f optional[T, P]) name() string { return f.field }

func (f optional[T, P]) merge(out, part *Run, m *merging) error {
	o := *f.of(part)
	if f.every && (o == nil) != (*f.of(m.first) == nil) {
		return fmt.Errorf("%s: in some parts and not in others", f.field)
	}
	if o == nil {
		return nil
	}
	m.name = f.field
	acc := f.of(out)
	merged, err := P(*acc).merge(o, m)
	*acc = merged
	return err
}

func (f optional[T, P]) validate(v *validator, in *runIn) {
	if x := *f.of(in.run); x != nil {
		P(x).validate(v, in.field(f.field), in)
	}
}

// always is a figure every run holds, in a field of Run of its type.
type always[T any, P figureType[T]] struct {
	field string // in the run's JSON
	of    func(*Run) *T
}

// alwaysFigure is the figure name held in the field of returns.
func alwaysFigure[T any, P figureType[T]](name string, of func(*Run) *T) figure {
	return always[T, P]{field: name, of: of}
}

func (f always[T, P]) name() string { return f.field }

func (f always[T, P]) merge(out, part *Run, m *merging) error {
	m.name = f.field
	acc := f.of(out)
	merged, err := P(acc).merge(f.of(part), m)
	if merged != nil {
		*acc = *merged
	}
	return err
}

func (f always[T, P]) validate(v *validator, in *runIn) {
	P(f.of(in.run)).validate(v, in.field(f.field), in)
}
