package generators

import (
	"cmp"
	"container/heap"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"

	"ratebench/traces"
)

// Scenario is one workload model: how each key's requests are timed.
type Scenario struct {
	Name   string
	About  string
	Params []Param // the scenario's own parameters, beyond Params
	// build returns the request stream of the key-th source of the
	// scenario, drawing from rng alone. p.Keys is the number of sources
	// running the scenario (in a mix, its share).
	build func(p Params, v values, key int, rng *rand.Rand) source
	// load checks the scenario's parameters against what they imply (see
	// plan) and returns the load of one of its p.Keys sources.
	load func(p Params, v values) (load, error)
	// memoryless: every source is the Poisson process of rate p.Rate from
	// p.Start that newExpArrivals returns, so that with more keys than
	// requests the sources that send can be drawn without the others (see
	// addPoissonFirsts).
	memoryless bool
}

// source is one key's request stream: next returns the time of its next
// request, never earlier than the one before, or never (math.MaxInt64)
// once the source is exhausted.
type source interface {
	next() int64
}

const never = math.MaxInt64

var scenarios = map[string]*Scenario{}

func register(s *Scenario) { scenarios[s.Name] = s }

// Scenarios returns the catalogue sorted by name.
func Scenarios() []*Scenario {
	out := make([]*Scenario, 0, len(scenarios))
	for _, s := range scenarios {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Lookup returns the scenario called name.
func Lookup(name string) (*Scenario, error) {
	if s, ok := scenarios[name]; ok {
		return s, nil
	}
	var names []string
	for _, s := range Scenarios() {
		names = append(names, s.Name)
	}
	return nil, fmt.Errorf("unknown scenario %q (known: %v, and mix:NAME=WEIGHT,...)", name, names)
}

// Generator streams a scenario's requests in global time order, ties broken
// by source index. It implements traces.Reader, so a generated trace can be
// replayed without a file in between.
//
// It works in time chunks: every source contributes its requests that fall
// in the chunk, and the chunk is sorted. The output does not depend on the
// chunk boundaries (equal times always share a chunk), so the chunk span
// adapts to the rate without changing a byte.
type Generator struct {
	p       Params
	parts   []part
	width   int      // digits of a key's index
	keyBuf  []byte   // scratch for formatting a key
	names   keyTable // the key of each source, by its position in srcs
	srcs    []source
	ids     []int32  // each source's index, when not its position in srcs
	due     []int64  // time of each source's next request
	buf     []uint64 // the chunk's requests: (t - base) << srcBits | source
	tmp     []uint64 // scratch for sorting
	i       int
	base    int64 // the current chunk is [base, end)
	end     int64
	span    int64
	srcBits uint  // bits of a source index
	stopT   int64 // no request at or after this time
	done    int64
	file    string // what Pos names the trace: "gen:" and the spec's name
	curT    int64  // the current request's time
	curPos  int32  // and its source's position in srcs, whose name Request finds
	curSrc  int32
}

// chunkTarget is the chunk size the generator aims at, in requests: at
// least twice the number of sources, since each chunk visits every
// source.
func chunkTarget(keys int) int { return max(1<<16, 2*keys) }

// New returns the generator for spec, "name" or "name:param=value,...",
// where the parameters are the scenario's own or override p's fields
// (requests, keys or sources, rate, window, duration, seed). Every
// parameter is checked, and what they imply together (see plan), before
// anything is generated.
func New(spec string, p Params) (*Generator, error) { return newGenerator(spec, p, true) }

// newGenerator is New; with sendingOnly false it builds every source even
// when fewer can send (tests check that the trace is the same, or, for a
// Poisson scenario, whose sending sources are drawn otherwise, that it
// has the same distribution).
func newGenerator(spec string, p Params, sendingOnly bool) (*Generator, error) {
	name, p, own, err := parseSpec(spec, p)
	if err != nil {
		return nil, err
	}
	p = p.Defaults()
	if err := p.check(); err != nil {
		return nil, err
	}
	var parts []part
	if name == "mix" {
		if parts, err = parseMix(own, p.Keys); err != nil {
			return nil, err
		}
	} else {
		sc, err := Lookup(name)
		if err != nil {
			return nil, err
		}
		v, err := resolve(sc, own)
		if err != nil {
			return nil, err
		}
		parts = []part{{sc: sc, v: v, keys: p.Keys}}
	}
	total, err := plan(p, parts)
	if err != nil {
		return nil, err
	}
	g := &Generator{p: p, file: "gen:" + name}
	g.stopT, _ = p.limited()
	g.parts, g.width = parts, len(strconv.Itoa(p.Keys-1))
	for i := 1; i < len(parts); i++ {
		parts[i].first = parts[i-1].first + parts[i-1].keys // the index of its first source
	}
	switch {
	case !sendingOnly || int64(p.Keys) <= p.Requests:
		g.addAll()
	case drawsFirsts(parts, p):
		g.addPoissonFirsts()
	default:
		g.addSending()
	}
	g.nameSources()
	g.end = p.Start
	for 1<<g.srcBits < len(g.srcs) {
		g.srcBits++
	}
	// The first chunk spans what the sources send, on average, in a
	// chunk's worth of requests.
	n := len(g.srcs)
	rate := total / float64(p.Keys) * float64(n) // requests per second of the sources kept
	g.span = min(max(int64(float64(chunkTarget(n))/rate*1e9), 1), g.maxSpan())
	return g, nil
}

// newSource builds the k-th source of part pt, on rng, and draws its
// first request.
func (g *Generator) newSource(pt *part, k int, rng *rand.Rand) (source, int64) {
	pp := g.p
	pp.Keys = pt.keys // a scenario sees the keys of its own part of a mix
	src := pt.sc.build(pp, pt.v, k, rng)
	return src, src.next()
}

// newRand returns the random stream of source idx.
func (g *Generator) newRand(idx int) *rand.Rand {
	return rand.New(rand.NewPCG(g.p.Seed, uint64(idx)))
}

// addAll builds every source.
func (g *Generator) addAll() {
	for i := range g.parts {
		pt := &g.parts[i]
		for k := range pt.keys {
			src, t := g.newSource(pt, k, g.newRand(pt.first+k))
			g.srcs = append(g.srcs, src)
			g.due = append(g.due, t)
		}
	}
}

// addSending builds, of more keys than requests, only the sources that can
// send one of the requests, so that memory grows with the requests and not
// the keys: those whose first request is among the Requests earliest
// first requests (by time, then index). Every request of the trace comes
// no later than its last one, X, and so does its source's first; the first
// requests no later than X are requests of the trace themselves, so there
// are at most Requests of them, and they are among the Requests earliest.
// The others are drawn and dropped; the trace is the one addAll's would be.
func (g *Generator) addSending() {
	h := &firsts{}
	pcg := rand.NewPCG(0, 0)
	scratch := rand.New(pcg) // a source on trial draws from it; one kept is built again on a stream of its own
	for i := range g.parts {
		pt := &g.parts[i]
		for k := range pt.keys {
			idx := pt.first + k
			pcg.Seed(g.p.Seed, uint64(idx))
			_, t := g.newSource(pt, k, scratch)
			f := first{t: t, idx: int32(idx)}
			switch {
			case t == never:
				continue
			case int64(len(*h)) < g.p.Requests:
				f.src, _ = g.newSource(pt, k, g.newRand(idx))
				heap.Push(h, f)
			case f.before((*h)[0]):
				f.src, _ = g.newSource(pt, k, g.newRand(idx))
				(*h)[0] = f
				heap.Fix(h, 0)
			}
		}
	}
	slices.SortFunc(*h, func(a, b first) int { return cmp.Compare(a.idx, b.idx) })
	for _, f := range *h {
		g.srcs = append(g.srcs, f.src)
		g.due = append(g.due, f.t)
		g.ids = append(g.ids, f.idx)
	}
}

// nameSources formats the key of every source kept, once.
func (g *Generator) nameSources() {
	g.names.ends = make([]int32, len(g.srcs))
	for i := range g.srcs {
		idx := i
		if g.ids != nil {
			idx = int(g.ids[i])
		}
		g.names.keys = append(g.names.keys, g.key(idx)...)
		g.names.ends[i] = int32(len(g.names.keys))
	}
}

// keyTable is the keys of the sources kept, back to back: a
// traces.KeyTable of their positions in Generator.srcs.
type keyTable struct {
	keys []byte
	ends []int32 // the end in keys of each source's key
}

// Key returns the key of the source at position pos.
func (k *keyTable) Key(pos int32) []byte {
	start := int32(0)
	if pos > 0 {
		start = k.ends[pos-1]
	}
	end := k.ends[pos]
	return k.keys[start:end:end]
}

// first is a source and its first request.
type first struct {
	t   int64
	idx int32
	src source
}

func (a first) before(b first) bool { return a.t < b.t || a.t == b.t && a.idx < b.idx }

// firsts is a max-heap of first requests: the latest on top.
type firsts []first

func (h firsts) Len() int           { return len(h) }
func (h firsts) Less(i, j int) bool { return h[j].before(h[i]) }
func (h firsts) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *firsts) Push(x any)        { *h = append(*h, x.(first)) }
func (h *firsts) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// maxSpan is the longest chunk whose relative times fit beside the source
// index in 64 bits.
func (g *Generator) maxSpan() int64 { return 1<<(63-g.srcBits) - 1 }

// part is a scenario and the consecutive sources that run it.
type part struct {
	sc    *Scenario
	v     values
	keys  int
	first int // index of its first source
}

// key writes the name of source idx, "<scenario>-<index>" with the index
// zero-padded to the width of the largest, into g.keyBuf.
func (g *Generator) key(idx int) []byte {
	pt := &g.parts[0]
	for i := len(g.parts) - 1; i > 0; i-- {
		if idx >= g.parts[i].first {
			pt = &g.parts[i]
			break
		}
	}
	b := append(g.keyBuf[:0], pt.sc.Name...)
	b = append(b, '-')
	var digits [20]byte
	n := len(digits)
	for v := idx; n == len(digits) || v > 0; v /= 10 {
		n--
		digits[n] = byte('0' + v%10)
	}
	for range g.width - (len(digits) - n) {
		b = append(b, '0')
	}
	g.keyBuf = append(b, digits[n:]...)
	return g.keyBuf
}

// KeyIndex returns the index of the current request's source, in
// [0, Keys): a dense id that spares a consumer interning the key.
func (g *Generator) KeyIndex() int32 { return g.curSrc }

// Keys returns the number of keys, sending or not: KeyIndex is below it.
func (g *Generator) Keys() int { return g.p.Keys }

// Scan advances to the next request; false once Requests were produced, the
// Duration has passed, or every source is exhausted.
func (g *Generator) Scan() bool {
	if g.done >= g.p.Requests {
		return false
	}
	for g.i == len(g.buf) {
		if !g.fill() {
			return false
		}
	}
	e := g.buf[g.i]
	g.i++
	g.done++
	pos := int32(e & (1<<g.srcBits - 1))
	g.curSrc = pos
	if g.ids != nil {
		g.curSrc = g.ids[pos]
	}
	g.curT, g.curPos = g.base+int64(e>>g.srcBits), pos
	return true
}

// fill generates the next non-empty chunk; false when there is none.
func (g *Generator) fill() bool {
	g.buf, g.i = g.buf[:0], 0
	if len(g.due) == 0 {
		return false
	}
	for len(g.buf) == 0 {
		first := slices.Min(g.due)
		if first >= g.stopT {
			return false
		}
		g.base = max(g.end, first)
		g.end = g.base + g.span
		if g.end < g.base || g.end > g.stopT { // overflow, or the time limit
			g.end = g.stopT
		}
		for k, t := range g.due {
			for t < g.end {
				g.buf = append(g.buf, uint64(t-g.base)<<g.srcBits|uint64(k))
				t = g.srcs[k].next()
			}
			g.due[k] = t
		}
		switch n, target := len(g.buf), chunkTarget(len(g.srcs)); {
		case n > 8*target:
			g.span = max(g.span/2, 1)
		case n < target/4:
			g.span = min(g.span*2, g.maxSpan())
		}
	}
	if cap(g.tmp) < len(g.buf) {
		g.tmp = make([]uint64, cap(g.buf))
	}
	if sorted := sortKeys(g.buf, g.tmp[:len(g.buf)], bitLen(uint64(g.end-g.base))+int(g.srcBits)); &sorted[0] != &g.buf[0] {
		g.buf, g.tmp = sorted, g.buf[:cap(g.buf)]
	}
	return true
}

// bitLen returns the number of bits needed to write v.
func bitLen(v uint64) int {
	n := 0
	for ; v != 0; v >>= 1 {
		n++
	}
	return n
}

// Request returns the current request, its key's name looked up in the
// sources' names.
func (g *Generator) Request() traces.Request {
	return traces.Request{T: g.curT, Key: g.names.Key(g.curPos), Cost: 1}
}

// TimeCost returns the current request's time and cost, without its key's
// name: a consumer that knows the key by its index (KeyIndex) and names
// it once spares a lookup in the table of names (a cache miss among many
// sources) at every other request.
func (g *Generator) TimeCost() (t, cost int64) { return g.curT, 1 }

// Pos names the current request by its index in the generated trace.
func (g *Generator) Pos() traces.Position {
	return traces.Position{File: g.file, Row: g.done}
}

// Err is always nil: generation cannot fail once started.
func (g *Generator) Err() error { return nil }

// Close releases nothing; it exists to satisfy traces.Reader.
func (g *Generator) Close() error { return nil }

// NumRows returns the number of requests the generator will produce at
// most (fewer when a duration or the sources end first), for progress
// displays.
func (g *Generator) NumRows() int64 { return g.p.Requests }
