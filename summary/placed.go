package summary

import (
	"fmt"
	"slices"
	"strings"
)

// Placed are one run's counts in each placement, in seed order: the
// requests it refused, let through that the log refuses (over) and
// refused that the log admits (under), the keys it decided otherwise for
// (at all, over, under), its worst burst where it measures one, and the
// log's refusals of the same requests (set with the log terms).
type Placed struct {
	Rejected     []int64 `json:"rejected"`
	Over         []int64 `json:"over"`
	Under        []int64 `json:"under"`
	KeysDisagree []int64 `json:"keys_disagree"`
	KeysOver     []int64 `json:"keys_over"`
	KeysUnder    []int64 `json:"keys_under"`
	BurstMax     []int64 `json:"burst_max,omitempty"`
	LogRefused   []int64 `json:"log_refused,omitempty"`
}

// counts are the placed counts that add up over disjoint keys, by name.
func (p *Placed) counts() []struct {
	name string
	vs   *[]int64
} {
	return []struct {
		name string
		vs   *[]int64
	}{{"rejected", &p.Rejected}, {"over", &p.Over}, {"under", &p.Under},
		{"keys_disagree", &p.KeysDisagree}, {"keys_over", &p.KeysOver}, {"keys_under", &p.KeysUnder}}
}

// Disagree returns the requests decided otherwise than the log in each
// placement, over + under.
func (p *Placed) Disagree() []int64 {
	out := make([]int64, len(p.Over))
	for i := range out {
		out[i] = p.Over[i] + p.Under[i]
	}
	return out
}

// merge adds the parts' counts placement by placement; the worst burst in
// each placement is the worst of the parts'.
func (p *Placed) merge(o *Placed, m *merging) (*Placed, error) {
	if p == nil {
		out := &Placed{BurstMax: slices.Clone(o.BurstMax)}
		for i, c := range out.counts() {
			*c.vs = slices.Clone(*o.counts()[i].vs)
		}
		return out, nil
	}
	for i, c := range p.counts() {
		vs := *o.counts()[i].vs
		if len(vs) != len(*c.vs) {
			return nil, fmt.Errorf("%s: parts of %d and %d placements", m.field(c.name), len(*c.vs), len(vs))
		}
		for j := range vs {
			m.add(c.name, &(*c.vs)[j], vs[j])
		}
	}
	if len(o.BurstMax) != len(p.BurstMax) {
		return nil, fmt.Errorf("%s: parts of %d and %d placements", m.field("burst_max"), len(p.BurstMax), len(o.BurstMax))
	}
	for j, b := range o.BurstMax {
		p.BurstMax[j] = max(p.BurstMax[j], b) // the worst key's, in either part
	}
	return p, nil
}

// validate checks a run's placed counts against the run and the
// placements trace.placements says were made: a value per placement, the
// first the run's own, each within the run's requests (or keys), the worst
// burst where the run measures one, and the log's refusals those of the log
// run of the same rule, count and mode. Whether the runs are placed at all
// is the placements' check (validate_placements.go).
func (p *Placed) validate(v *validator, path string, in *runIn) {
	pl, r := in.summary.Trace.Placements, in.run
	if pl == nil || pl.Count < 1 {
		return
	}
	own := map[string]int64{"rejected": r.Rejected, "over": r.Over, "under": r.Under,
		"keys_disagree": r.KeysDisagree, "keys_over": r.KeysOver, "keys_under": r.KeysUnder}
	for _, c := range p.counts() {
		vs := *c.vs
		if len(vs) != pl.Count {
			v.fail(path+"."+c.name, "%d values for %d placements", len(vs), pl.Count)
			continue
		}
		of, ofName := r.Requests, "requests"
		if strings.HasPrefix(c.name, "keys_") {
			of, ofName = r.Keys, "keys"
		}
		for j, n := range vs {
			v.nonNegative(fmt.Sprintf("%s.%s[%d]", path, c.name, j), n)
			v.atMost(fmt.Sprintf("%s.%s[%d]", path, c.name, j), n, ofName, of)
		}
		if vs[0] != own[c.name] {
			v.fail(path+"."+c.name, "its first placement, %d, is not the run's own %s, %d", vs[0], c.name, own[c.name])
		}
	}
	switch {
	case r.Burst == nil && p.BurstMax != nil:
		v.fail(path+".burst_max", "for a run that measures no burst")
	case r.Burst != nil && len(p.BurstMax) != pl.Count:
		v.fail(path+".burst_max", "%d values for %d placements", len(p.BurstMax), pl.Count)
	case r.Burst != nil && p.BurstMax[0] != r.Burst.Max:
		v.fail(path+".burst_max", "its first placement, %d, is not the run's own burst, %d", p.BurstMax[0], r.Burst.Max)
	}
	if log := in.summary.RunOf(r.Rule, r.Count, r.Mode, "log"); log != nil && log.Placed != nil && !slices.Equal(p.LogRefused, log.Placed.Rejected) {
		v.fail(path+".log_refused", "%v, not the log's refusals in each placement %v", p.LogRefused, log.Placed.Rejected)
	}
}
