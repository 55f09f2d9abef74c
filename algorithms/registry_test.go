package algorithms

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// The catalogue lists the textbook algorithms in their order, then every
// product registered from its file, by place (1, 2, ... without a gap: the
// order they were added), then the templates; every kind but a template
// builds from its name alone, and answers to it.
func TestCatalogue(t *testing.T) {
	r, _ := ParseRule("10/1m")
	cat := Catalogue()
	var names []string
	for _, k := range cat {
		names = append(names, k.Name())
	}
	if !slices.Equal(names[:3], []string{"log", "counter", "counter-lt"}) {
		t.Errorf("catalogue starts %v, want the log and the counters first", names[:3])
	}
	if last := cat[len(cat)-1]; last.Build != nil || !strings.HasPrefix(cat[len(cat)-2].Spec, "ALG:block") {
		t.Errorf("catalogue ends %q, %q: want the templates last", cat[len(cat)-2].Spec, last.Spec)
	}
	var products []string
	for _, k := range cat {
		if k.Build == nil || textbookKind(k.Name()) != nil {
			continue
		}
		products = append(products, k.Name())
		if k.Place != len(products) {
			t.Errorf("%s is product %d of the catalogue, at place %d: want the places 1, 2, ... in order, a new product at the next", k.Name(), len(products), k.Place)
		}
		l, err := New(k.Name(), r)
		if err != nil {
			t.Errorf("%s: %v", k.Name(), err)
			continue
		}
		if _, ok := l.(Product); !ok {
			t.Errorf("%s registered itself as a product, but is not one", k.Name())
		}
	}
	if len(products) < 14 || products[0] != "nginx" {
		t.Errorf("products %v: want every product, nginx first", products)
	}
	for _, want := range []string{"nginx", "envoy", "upstash-fixed", "upstash-token", "redis_rate", "guava"} {
		if !slices.Contains(products, want) {
			t.Errorf("%s is not in the catalogue", want)
		}
	}
}

// A name registered twice, or a textbook algorithm's, is a programming
// error caught when the program starts.
func TestRegisterRefusesTakenNames(t *testing.T) {
	for _, name := range []string{"nginx", "counter", "log"} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("registering %s again did not panic", name)
				}
			}()
			Register(Kind{Spec: name, Build: NoParams(func(r Rule) Limiter { return NewLog(r) })})
		}()
	}
	if _, ok := kindOf("nginx"); !ok {
		t.Fatal("nginx is gone after a refused registration")
	}
	build := NoParams(func(r Rule) Limiter { return NewLog(r) })
	for _, k := range []Kind{
		{Spec: "products", Place: 1000, Build: build},                  // a set's name
		{Spec: "textbook", Place: 1000, Build: build},                  // a set's name
		{Spec: "newcomer", Build: build},                               // no place
		{Spec: "newcomer", Place: kindPlace(t, "envoy"), Build: build}, // envoy's place
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("registering %s at place %d did not panic", k.Spec, k.Place)
				}
			}()
			Register(k)
		}()
	}
	if _, ok := kindOf("newcomer"); ok {
		t.Fatal("a refused registration stayed in the catalogue")
	}
}

// kindPlace returns the place of the product named name.
func kindPlace(t *testing.T, name string) int {
	t.Helper()
	k, ok := kindOf(name)
	if !ok || k.Place < 1 {
		t.Fatalf("no product %s (%+v)", name, k)
	}
	return k.Place
}

// An unknown name is refused, naming every kind of the catalogue.
func TestUnknownAlgorithm(t *testing.T) {
	r, _ := ParseRule("10/1m")
	_, err := New("nginxx", r)
	if err == nil || !strings.Contains(err.Error(), `unknown algorithm "nginxx"`) || !strings.Contains(err.Error(), "upstash-token[") || !strings.Contains(err.Error(), "buckets:N") {
		t.Errorf("New(nginxx): %v", err)
	}
}

// A parameter of an algorithm's own written with '=' and no value is
// refused, naming it, even by a kind whose Build would take it for its
// default; a kind that refuses it itself says so in its own words.
func TestEmptyParameterRefused(t *testing.T) {
	r, _ := ParseRule("10/1m")
	registry.Lock()
	registry.products["lenient"] = Kind{Spec: "lenient[:p=V][:q=V]", Build: func(c Call, r Rule) (Limiter, error) { return NewCounter(r), nil }}
	registry.Unlock()
	defer func() {
		registry.Lock()
		delete(registry.products, "lenient")
		registry.Unlock()
	}()
	if _, err := New("lenient:p=1:q=2", r); err != nil {
		t.Fatal(err)
	}
	for spec, want := range map[string]string{
		"lenient:p=":          `algorithm "lenient:p=": p= needs a value`,
		"lenient:q=1:p=":      `algorithm "lenient:q=1:p=": p= needs a value`,
		"lenient:p=:block=1m": `algorithm "lenient:p=:block=1m": p= needs a value`,
		"gcra:B=":             `algorithm "gcra:B=": want gcra:B=N with N a positive integer`,
	} {
		if _, err := New(spec, r); err == nil || err.Error() != want {
			t.Errorf("%s: %v, want %q", spec, err, want)
		}
	}
}

// A set whose every kind a rule refuses names nothing: an error that says
// why, unless the list names something else.
func TestParseSpecsOfASetLeftOutWhole(t *testing.T) {
	r, _ := ParseRule("10/1m")
	refuses := Kind{Spec: "refuses", Build: func(c Call, r Rule) (Limiter, error) { return nil, fmt.Errorf("no rule suits it") }}
	registry.Lock()
	registry.products["refuses"] = refuses
	registry.Unlock()
	saved := sets
	sets = append(slices.Clone(sets), Set{Name: "refusing", kinds: func() []Kind { return []Kind{refuses} }})
	defer func() {
		sets = saved
		registry.Lock()
		delete(registry.products, "refuses")
		registry.Unlock()
	}()
	want := `every algorithm of "refusing" is left out: refuses is left out of refusing: it refuses rule 10/1m (no rule suits it)`
	if _, err := ParseSpecs("refusing", r); err == nil || err.Error() != want {
		t.Errorf("refusing: %v, want %q", err, want)
	}
	got, err := ParseSpecs("log,refusing", r)
	if err != nil || !slices.Equal(got.Names, []string{"log"}) || len(got.Skipped) != 1 {
		t.Errorf("log,refusing: %+v, %v", got, err)
	}
	if _, err := ParseSpecs(" , ", r); err == nil || !strings.Contains(err.Error(), "no algorithm named") {
		t.Errorf("an empty list: %v", err)
	}
}
