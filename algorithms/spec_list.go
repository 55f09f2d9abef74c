package algorithms

import (
	"fmt"
	"strings"
)

// Set is a name that stands for several kinds in a list of specs: a
// comparison of every product is "log,products", not 26 names.
type Set struct {
	Name, About string
	kinds       func() []Kind
}

// sets are the names a list of specs may hold for several kinds at once.
var sets = []Set{
	{"products", "every deployed product", Products},
	{"textbook", "every textbook algorithm, buckets as buckets:4", Textbook},
}

// Sets returns the names a list of specs may hold for several kinds, for
// help texts.
func Sets() []Set { return append([]Set(nil), sets...) }

// setNamed returns the set called name, nil if none is.
func setNamed(name string) *Set {
	for i := range sets {
		if sets[i].Name == name {
			return &sets[i]
		}
	}
	return nil
}

// Specs are the algorithms a list of specs names, as ParseSpecs reads it
// against a comparison's rules.
type Specs struct {
	// Names are their canonical names, in the list's order, each once.
	Names []string
	// Skipped are the kinds a set brought in that one of the rules cannot
	// express (envoy under 5/30s: its windows are whole units), left out
	// of the comparison: the same kind named alone is refused instead.
	Skipped []Skipped
}

// Skipped is a kind a set brought into a list that a rule refuses.
type Skipped struct {
	Spec, Set string
	Rule      Rule
	Err       error // the kind's refusal of the rule
}

// String says what was left out and why, as a sentence for a terminal or a
// summary's notes.
func (s Skipped) String() string {
	return fmt.Sprintf("%s is left out of %s: it refuses rule %s (%v)", s.Spec, s.Set, s.Rule, s.Err)
}

// listed is one spec of a list, and the set that brought it in ("" if the
// list names it).
type listed struct{ spec, set string }

// expandSpecs splits a comma-separated list of specs, each set's name
// replaced by the specs of its kinds.
func expandSpecs(list string) []listed {
	var out []listed
	for _, s := range strings.Split(list, ",") {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		set := setNamed(s)
		if set == nil {
			out = append(out, listed{spec: s})
			continue
		}
		for _, k := range set.kinds() {
			out = append(out, listed{spec: k.setSpec(), set: set.Name})
		}
	}
	return out
}

// ParseSpecs reads a comma-separated list of specs, each a spec or the
// name of a set (products, textbook), against every rule of rules: it
// returns the canonical names of the algorithms the list names, without
// duplicates (under every rule in turn, in the list's order), and the kinds
// of a set that a rule refuses, left out. A spec the list names that a rule
// refuses is an error.
func ParseSpecs(list string, rules ...Rule) (Specs, error) {
	var s Specs
	if len(rules) == 0 {
		return s, fmt.Errorf("algorithms %q: no rule to read them against", list)
	}
	var kept []listed
	skipped := map[string]bool{}
	for _, l := range expandSpecs(list) {
		if l.set != "" {
			if r, err := refusingRule(l.spec, rules); err != nil {
				if !skipped[l.spec] {
					skipped[l.spec] = true
					s.Skipped = append(s.Skipped, Skipped{Spec: l.spec, Set: l.set, Rule: r, Err: err})
				}
				continue
			}
		}
		kept = append(kept, l)
	}
	seen := map[string]bool{}
	for _, r := range rules {
		for _, l := range kept {
			lim, err := New(l.spec, r)
			if err != nil {
				return Specs{}, err
			}
			if !seen[lim.Name()] {
				seen[lim.Name()] = true
				s.Names = append(s.Names, lim.Name())
			}
		}
	}
	switch {
	case len(s.Names) == 0 && len(s.Skipped) > 0:
		return Specs{}, fmt.Errorf("every algorithm of %q is left out: %s", list, s.Skipped[0])
	case len(s.Names) == 0:
		return Specs{}, fmt.Errorf("no algorithm named in %q", list)
	}
	return s, nil
}

// refusingRule returns the first of rules under which spec builds nothing,
// and why.
func refusingRule(spec string, rules []Rule) (Rule, error) {
	for _, r := range rules {
		if _, err := New(spec, r); err != nil {
			return r, err
		}
	}
	return Rule{}, nil
}
