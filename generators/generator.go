package generators

import (
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
	// scenario, drawing from rng alone.
	build func(p Params, v values, key int, rng *rand.Rand) source
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
	name    string
	p       Params
	keys    [][]byte
	srcs    []source
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
	cur     traces.Request
}

// chunk sizes the generator aims at, in requests.
const (
	chunkMin    = 1 << 15
	chunkTarget = 1 << 17
	chunkMax    = 1 << 20
)

// New returns the generator for spec, "name" or "name:param=value,...",
// where the parameters are the scenario's own or override p's fields
// (requests, keys or sources, rate, window, duration, seed).
func New(spec string, p Params) (*Generator, error) {
	name, p, own, err := parseSpec(spec, p)
	if err != nil {
		return nil, err
	}
	p = p.Defaults()
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
	g := &Generator{name: name, p: p, stopT: never}
	if p.Duration > 0 {
		g.stopT = p.Start + int64(p.Duration)
	}
	width := len(strconv.Itoa(p.Keys - 1))
	idx := 0
	for _, pt := range parts {
		for k := range pt.keys {
			g.keys = append(g.keys, fmt.Appendf(nil, "%s-%0*d", pt.sc.Name, width, idx))
			rng := rand.New(rand.NewPCG(p.Seed, uint64(idx)))
			src := pt.sc.build(p, pt.v, k, rng)
			g.srcs = append(g.srcs, src)
			g.due = append(g.due, src.next())
			idx++
		}
	}
	g.end = p.Start
	for 1<<g.srcBits < p.Keys {
		g.srcBits++
	}
	total := float64(p.Keys) * p.Rate // requests per second, roughly
	g.span = min(max(int64(float64(chunkTarget)/total*1e9), 1), g.maxSpan())
	return g, nil
}

// maxSpan is the longest chunk whose relative times fit beside the source
// index in 64 bits.
func (g *Generator) maxSpan() int64 { return 1<<(63-g.srcBits) - 1 }

// part is a scenario and how many consecutive sources run it.
type part struct {
	sc   *Scenario
	v    values
	keys int
}

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
	g.cur = traces.Request{T: g.base + int64(e>>g.srcBits), Key: g.keys[e&(1<<g.srcBits-1)], Cost: 1}
	return true
}

// fill generates the next non-empty chunk; false when there is none.
func (g *Generator) fill() bool {
	g.buf, g.i = g.buf[:0], 0
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
		switch n := len(g.buf); {
		case n > chunkMax:
			g.span = max(g.span/2, 1)
		case n < chunkMin:
			g.span = min(g.span*2, g.maxSpan())
		}
	}
	if cap(g.tmp) < len(g.buf) {
		g.tmp = make([]uint64, cap(g.buf))
	}
	radixSort(g.buf, g.tmp[:len(g.buf)], bitLen(uint64(g.end-g.base))+int(g.srcBits))
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

// Request returns the current request.
func (g *Generator) Request() traces.Request { return g.cur }

// Pos names the current request by its index in the generated trace.
func (g *Generator) Pos() traces.Position {
	return traces.Position{File: "gen:" + g.name, Row: g.done}
}

// Err is always nil: generation cannot fail once started.
func (g *Generator) Err() error { return nil }

// Close releases nothing; it exists to satisfy traces.Reader.
func (g *Generator) Close() error { return nil }
