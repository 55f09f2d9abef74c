package algorithms

import (
	"fmt"
	"strings"
)

// Product is a limiter modelling a deployed product (nginx's limit_req,
// Envoy, Upstash, a Go library) from its source: a textbook algorithm, its
// twin, plus named deviations, each a way the product's arithmetic departs
// from the twin (its clock's granularity, a rate truncated when parsed, a
// window anchored at the key's first request, refused requests counted, a
// refusal cache, float arithmetic). Each deviation can be turned off,
// "nginx:without=clock"; with all of them off the product decides as its
// twin, request by request (the tests check it for each product), so that
// replaying the product with one deviation off at a time says how much of
// its disagreement with the twin that deviation explains.
type Product interface {
	Limiter
	// Twin is the spec of the textbook algorithm the product runs, under
	// the same rule and with the product's parameters ("token:B=10" for
	// nginx's default burst 9), or "" when no spec expresses it (a rate
	// that is not the rule's).
	Twin() string
	// Deviations lists the product's deviations from its twin, in a fixed
	// order, whether or not they are turned off.
	Deviations() []Deviation
	// Off reports whether the named deviation is turned off.
	Off(name string) bool
	// Without turns the named deviation off; New calls it for each
	// ":without=NAME" of the spec, before the first Grow.
	Without(name string) error
}

// Deviation is one way a product departs from its twin.
type Deviation struct {
	// Name is how a spec turns it off, ":without=NAME": a short word,
	// "clock", "rate-truncation".
	Name string
	// About says what the product does, in a line: "decides on a
	// millisecond clock: the trace's time floored to whole milliseconds".
	About string
}

// DeviationSet is embedded by a product: its list of DeviationSet and which
// are off. A product's Name appends suffix().
type DeviationSet struct {
	list []Deviation
	off  []bool
}

// SetDeviations declares the product's deviations, all on.
func (d *DeviationSet) SetDeviations(list ...Deviation) {
	d.list, d.off = list, make([]bool, len(list))
}

func (d *DeviationSet) Deviations() []Deviation { return d.list }

// Off reports whether the deviation named is off (false for a name the
// product does not have).
func (d *DeviationSet) Off(name string) bool {
	for i, v := range d.list {
		if v.Name == name {
			return d.off[i]
		}
	}
	return false
}

// On reports whether deviation i of the list is On.
func (d *DeviationSet) OnAt(i int) bool { return !d.off[i] }

func (d *DeviationSet) Without(name string) error {
	for i, v := range d.list {
		if v.Name == name {
			d.off[i] = true
			return nil
		}
	}
	names := make([]string, len(d.list))
	for i, v := range d.list {
		names[i] = v.Name
	}
	if len(names) == 0 {
		return fmt.Errorf("no deviation %q: this product has none to turn off", name)
	}
	return fmt.Errorf("no deviation %q (known: %s)", name, strings.Join(names, ", "))
}

// Suffix is the canonical spec of the deviations turned off,
// ":without=NAME" for each in the list's order.
func (d *DeviationSet) Suffix() string {
	var b strings.Builder
	for i, v := range d.list {
		if d.off[i] {
			b.WriteString(":without=")
			b.WriteString(v.Name)
		}
	}
	return b.String()
}

// genericParams are the parameters of a spec that any product (without=)
// or any algorithm (block) takes, split from the algorithm's own.
type genericParams struct {
	without []string
	block   string // "" none, "window" till the window resets, else a duration
	spec    string // the spec without them
	// empty is the first of the algorithm's own parameters written with
	// '=' and no value ("B" of "gcra:B="), "" if none is: New refuses it
	// if the algorithm's Build does not, rather than let it mean the
	// parameter's default.
	empty string
}

// splitGeneric removes the generic parameters from spec: the ':'-separated
// fields "without=NAME" and "block" or "block=D". It is where every spec is
// split into its parameters, so it also refuses a parameter given twice
// (the name before '=', or the whole field), which would otherwise leave
// one of the two values silently unused: without= alone may repeat, each
// time naming another deviation. A generic parameter with '=' and no value
// (block=, without=) is refused here; the algorithm's own are noted
// (genericParams.empty).
func splitGeneric(spec string) (genericParams, error) {
	var g genericParams
	fields := strings.Split(strings.TrimSpace(spec), ":")
	kept := fields[:1]
	seen := map[string]bool{}
	for _, f := range fields[1:] {
		f = strings.TrimSpace(f)
		param, value, hasValue := strings.Cut(f, "=")
		if strings.HasPrefix(f, "without=") {
			param = f
		}
		if seen[param] {
			return g, fmt.Errorf("algorithm %q: parameter %s given twice", spec, param)
		}
		seen[param] = true
		switch {
		case strings.HasPrefix(f, "without="):
			name := strings.TrimPrefix(f, "without=")
			if name == "" {
				return g, fmt.Errorf("algorithm %q: want without=NAME, the name of a deviation", spec)
			}
			g.without = append(g.without, name)
		case f == "block=":
			return g, fmt.Errorf("algorithm %q: block= needs a duration (block=D, e.g. block=30s); block alone blocks till the window's end", spec)
		case f == "block" || strings.HasPrefix(f, "block="):
			g.block = "window"
			if v, ok := strings.CutPrefix(f, "block="); ok {
				g.block = v
			}
		default:
			if hasValue && value == "" && g.empty == "" {
				g.empty = param
			}
			kept = append(kept, f)
		}
	}
	g.spec = strings.Join(kept, ":")
	return g, nil
}

// applyGeneric turns off the deviations named in g and wraps l in a
// refusal cache if g asks for one.
func applyGeneric(l Limiter, g genericParams, spec string, r Rule) (Limiter, error) {
	if len(g.without) > 0 {
		p, ok := l.(Product)
		if !ok {
			return nil, fmt.Errorf("algorithm %q: without= turns off a product's deviation from its textbook algorithm; %s is not a product", spec, l.Name())
		}
		for _, name := range g.without {
			if err := p.Without(name); err != nil {
				return nil, fmt.Errorf("algorithm %q: %v", spec, err)
			}
		}
	}
	if g.block == "" {
		return l, nil
	}
	return NewBlocked(l, r, g.block)
}

// KeyCoupler is implemented by a limiter whose decision for one key may
// depend on other keys' requests: nginx:zone, whose zone drops idle nodes
// when another key's node is created. Such a limiter must see every key of
// the trace in one replay, in the trace's order: one worker, no shards,
// and never one key alone.
type KeyCoupler interface {
	CouplesKeys() bool
}

// CouplesKeys reports whether l's keys interact (a KeyCoupler that says
// so).
func CouplesKeys(l Limiter) bool {
	c, ok := l.(KeyCoupler)
	return ok && c.CouplesKeys()
}

// BucketSpec is the spec of bucket algorithm alg ("token", "gcra") of
// capacity b under rule r, as a twin: alg alone when b is its default, L,
// so that a twin is the run of the same name when one is listed.
func BucketSpec(alg string, b int64, r Rule) string {
	if b == r.L {
		return alg
	}
	return alg + ":B=" + itoa(b)
}
