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
	// scenario, drawing from rng alone. p.Keys is the number of sources
	// running the scenario (in a mix, its share).
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
	parts   []part
	width   int    // digits of a key's index
	keyBuf  []byte // the current request's key
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
	curSrc  int32
}

// chunkTarget is the chunk size the generator aims at, in requests: at
// least twice the number of sources, since each chunk visits every
// source.
func chunkTarget(keys int) int { return max(1<<16, 2*keys) }

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
	g.parts, g.width = parts, len(strconv.Itoa(p.Keys-1))
	idx := 0
	for i, pt := range parts {
		g.parts[i].first = idx
		pp := p
		pp.Keys = pt.keys // a scenario sees the keys of its own part of a mix
		for k := range pt.keys {
			rng := rand.New(rand.NewPCG(p.Seed, uint64(idx)))
			src := pt.sc.build(pp, pt.v, k, rng)
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
	g.span = min(max(int64(float64(chunkTarget(p.Keys))/total*1e9), 1), g.maxSpan())
	return g, nil
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

// Keys returns the number of sources.
func (g *Generator) Keys() int { return len(g.srcs) }

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
	src := int(e & (1<<g.srcBits - 1))
	g.curSrc = int32(src)
	g.cur = traces.Request{T: g.base + int64(e>>g.srcBits), Key: g.key(src), Cost: 1}
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
	sortKeys(g.buf, g.tmp[:len(g.buf)], bitLen(uint64(g.end-g.base))+int(g.srcBits))
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

// NumRows returns the number of requests the generator will produce at
// most (fewer when a duration or the sources end first), for progress
// displays.
func (g *Generator) NumRows() int64 { return g.p.Requests }
