package algorithms

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// Kind is one kind of algorithm New builds, as the catalogue lists it for
// help texts: the textbook algorithms of this package (spec.go), and each
// deployed product, which registers itself from its own file (Register).
type Kind struct {
	// Spec is how a spec of the kind is written, "token[:B=N]"; the kind's
	// name is what comes before its first '[' or ':'.
	Spec string
	// Place is a product's place in the catalogue, from 1: the products
	// are listed, and a list naming them all (products, see Sets) runs
	// them, in the order they were added to ratebench, so that the runs
	// of a comparison of every product keep their order as products are
	// added. A new product takes the next place. 0 for a textbook kind,
	// whose place is its order in this package's list.
	Place int
	// Default is the spec by which a set (Sets) names the kind, when its
	// name alone builds nothing: "buckets:4". Empty: the name.
	Default string
	// About says what it is, in a line.
	About string
	// Build makes the limiter a spec of the kind names under rule r (a spec
	// without the generic parameters, block and without, which New applies
	// after); nil for a template of the catalogue (ALG:block), which names
	// no algorithm of its own.
	Build func(c Call, r Rule) (Limiter, error)
}

// Name returns the kind's name: its Spec up to the first '[' or ':'.
func (k Kind) Name() string {
	name, _, _ := strings.Cut(k.Spec, "[")
	name, _, _ = strings.Cut(name, ":")
	return name
}

// Call is a spec as a Kind's Build reads it: "juju:rate:capacity=5" is
// Name "juju" and Arg "rate:capacity=5" (HasArg: there was a ':'), and Spec
// the whole, for errors.
type Call struct {
	Spec, Name, Arg string
	HasArg          bool
}

// NoArg returns an error for a call with a parameter, for a kind that
// takes none.
func (c Call) NoArg() error {
	if c.HasArg {
		return fmt.Errorf("algorithm %q takes no parameter", c.Spec)
	}
	return nil
}

// registry holds the products that registered themselves, by name.
var registry = struct {
	sync.Mutex
	products map[string]Kind
}{products: map[string]Kind{}}

// setSpec returns the spec by which a set names k: its Default, else its
// name.
func (k Kind) setSpec() string {
	if k.Default != "" {
		return k.Default
	}
	return k.Name()
}

// Register adds a product's kind to the catalogue, under its name and any
// further names it answers to (Upstash's fixed window is its own kind).
// It is called from the product's file, when the program starts; a name
// given twice, one of a textbook algorithm or of a set, or a place (Kind.Place)
// missing or taken, panics.
func Register(k Kind) {
	registry.Lock()
	defer registry.Unlock()
	name := k.Name()
	if _, ok := registry.products[name]; ok || textbookKind(name) != nil || setNamed(name) != nil {
		panic("algorithms: " + name + " registered twice")
	}
	if k.Build == nil {
		panic("algorithms: " + name + " registered without a Build")
	}
	if k.Place < 1 {
		panic("algorithms: " + name + " registered without its place in the catalogue")
	}
	for _, other := range registry.products {
		if other.Place == k.Place {
			panic(fmt.Sprintf("algorithms: %s registered at place %d, %s's", name, k.Place, other.Name()))
		}
	}
	registry.products[name] = k
}

// kindOf returns the kind named name, textbook or product, and whether
// there is one.
func kindOf(name string) (Kind, bool) {
	if k := textbookKind(name); k != nil {
		return *k, true
	}
	registry.Lock()
	defer registry.Unlock()
	k, ok := registry.products[name]
	return k, ok
}

// textbookKind returns the textbook algorithm named name, nil if none is.
func textbookKind(name string) *Kind {
	for i := range textbook {
		if textbook[i].Build != nil && textbook[i].Name() == name {
			return &textbook[i]
		}
	}
	return nil
}

// Catalogue returns every kind New builds, for help texts: the textbook
// algorithms in their order, then the products in theirs (Products), then
// the templates any spec may take (a refusal cache, a product's deviation
// turned off).
func Catalogue() []Kind {
	out := append(Textbook(), Products()...)
	for _, k := range textbook {
		if k.Build == nil {
			out = append(out, k)
		}
	}
	return out
}

// Textbook returns the textbook algorithms of this package, in their
// order: the log first.
func Textbook() []Kind {
	var out []Kind
	for _, k := range textbook {
		if k.Build != nil {
			out = append(out, k)
		}
	}
	return out
}

// Products returns every registered product, by place (Kind.Place): in
// the order they were added.
func Products() []Kind {
	registry.Lock()
	var out []Kind
	for _, k := range registry.products {
		out = append(out, k)
	}
	registry.Unlock()
	slices.SortFunc(out, func(a, b Kind) int { return cmp.Compare(a.Place, b.Place) })
	return out
}
