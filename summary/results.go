package summary

import "fmt"

// The results a summary holds beside its runs (the bindings, the
// closed-loop replays, the simulated deployments) are each a list of a
// type of this package, one result per rule, algorithm or setting, with a
// merge of the parts' results and a validate method. Summary.results lists
// them with the field each is held in, and merging and validating a
// summary loop over that list.

// resultType is the method set of the type T of one result.
type resultType[T any] interface {
	*T
	// validate checks the result, at path ("clients[2]"), on its own.
	validate(v *validator, path string)
}

// results is one list of results of a summary: what merging and
// validating a summary do with it.
type results interface {
	name() string // its field in the summary's JSON
	// merge sets out's list to the parts' merged index by index.
	merge(out *Summary, parts []*Summary) error
	validate(v *validator, s *Summary)
}

// resultList is a list of results held in the field of Summary that of
// returns.
type resultList[T any, P resultType[T]] struct {
	field   string // in the summary's JSON
	what    string // what one result is, in errors: "closed-loop"
	of      func(*Summary) *[]T
	mergeOf func([]T) (T, error) // the parts' results of one index
}

// resultsIn is the list of results field held in the field of returns, a
// result being what (in errors), the parts' merged by mergeOf.
func resultsIn[T any, P resultType[T]](field, what string, of func(*Summary) *[]T, mergeOf func([]T) (T, error)) results {
	return resultList[T, P]{field: field, what: what, of: of, mergeOf: mergeOf}
}

func (l resultList[T, P]) name() string { return l.field }

func (l resultList[T, P]) merge(out *Summary, parts []*Summary) error {
	merged, err := mergeEach(parts, func(s *Summary) []T { return *l.of(s) }, l.mergeOf, l.what, l.field)
	if err != nil {
		return err
	}
	*l.of(out) = merged
	return nil
}

func (l resultList[T, P]) validate(v *validator, s *Summary) {
	rs := *l.of(s)
	for i := range rs {
		P(&rs[i]).validate(v, fmt.Sprintf("%s[%d]", l.field, i))
	}
}
