package algorithms

import "fmt"

// KeyCopier is a limiter whose whole state of one key can be made that of
// another limiter built from the same spec and rule (CopyKey): from then
// on it decides, records, estimates, answers Retry-After and tests
// idleness for that key exactly as the other would, as if it had seen
// every call the other saw for it. A replay that runs two such limiters
// bound to see the same calls for a key until some request (an
// algorithm's runs in two modes, which record alike until the key's first
// disagreement with the reference) keeps the state once until then and
// copies it at that request.
type KeyCopier interface {
	Limiter
	// CopyKey makes key id's state from's (a limiter of the same type
	// built from the same spec and rule; another panics).
	CopyKey(from Limiter, id int32)
}

// copySource returns from as a limiter of l's type built alike: the same
// name (the spec, with its parameters) and rule; it panics otherwise.
func copySource[L interface {
	Limiter
	*T
}, T any](l L, from Limiter, rule func(L) Rule) L {
	f, ok := from.(L)
	if !ok || f.Name() != l.Name() || rule(l) != rule(f) {
		panic(fmt.Sprintf("algorithms: a key's state copied into %s from %s, not built alike", l.Name(), from.Name()))
	}
	return f
}

func ruleOfCounter(c *Counter) Rule { return c.rule }
func ruleOfFixed(f *Fixed) Rule     { return f.rule }
func ruleOfToken(t *Token) Rule     { return t.rule }
func ruleOfGCRA(g *GCRA) Rule       { return g.rule }

// CopyKey makes key id's counts and window from's (through the states
// they stand for: each counter numbers its windows and keeps its wide
// states apart).
func (c *Counter) CopyKey(from Limiter, id int32) {
	f := copySource(c, from, ruleOfCounter)
	_, s := f.load(id)
	c.keep(id, c.st.At(id), s)
}

// CopyKey makes key id's count and window from's.
func (fx *Fixed) CopyKey(from Limiter, id int32) {
	f := copySource(fx, from, ruleOfFixed)
	_, s := f.load(id)
	fx.keep(id, fx.st.At(id), s)
}

// CopyKey makes key id's bucket from's.
func (tk *Token) CopyKey(from Limiter, id int32) {
	f := copySource(tk, from, ruleOfToken)
	_, s := f.load(id)
	tk.keep(id, tk.st.At(id), s)
}

// CopyKey makes key id's TAT from's.
func (g *GCRA) CopyKey(from Limiter, id int32) {
	f := copySource(g, from, ruleOfGCRA)
	_, v := f.load(id)
	g.keep(id, g.st.At(id), v)
}
