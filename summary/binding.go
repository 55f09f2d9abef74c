package summary

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"math/big"
	"math/bits"
	"slices"
	"strconv"

	"ratebench/algorithms"
)

// Whether a rule binds. A verdict on a rule the exact log hardly ever
// applies says little: every algorithm admits (nearly) everything, and
// the choice is then one of memory. A Binding says, per plain rule L/W and
// count policy, how much the rule bites on the trace: the log's refusals,
// the keys it ever refused, and the offered use of the limit — for every
// request, its key's cost in (t-W, t] including the request itself,
// counting every request whatever was decided. The busiest key's peak use
// (PeakUse ÷ L) says how far the traffic is from the limit, and the
// requests by offered use (UseBins) give the limits at which the log would
// refuse a given share of the requests (Tighter).
//
// Under count all the log's window holds every request, so a request is
// refused at limit L' exactly when its offered use exceeds L': the
// refusals at L' are the requests of use > L', exactly. Under count
// accepted the log holds only what it admitted, at most the offered use,
// so those are an upper bound on its refusals at L'.

// Binding is how much one plain rule binds on the trace under one count
// policy (layered rules have none: no single limit to tighten).
type Binding struct {
	Rule  string `json:"rule"`
	Count string `json:"count"`
	// Requests are the requests replayed, LogRefused those the exact log
	// refused, KeysRefused the keys it refused at least once.
	Requests    int64 `json:"requests"`
	LogRefused  int64 `json:"log_refused"`
	KeysRefused int64 `json:"keys_refused"`
	// PeakUse is the largest offered use of any request, of the key
	// PeakKey (the smallest such name): the busiest key's largest cost in
	// one window.
	PeakUse int64  `json:"peak_use"`
	PeakKey string `json:"peak_key,omitempty"`
	// UseBins are the requests by offered use, in increasing use: exact
	// below UseExactBelow, then UseBinsPerOctave bins per power of two;
	// in JSON pairs [use, requests].
	UseBins []UseBin `json:"use_bins"`
	// Tighter are the limits below the rule's at which the log would
	// refuse about 0.1%, 1% and 10% of the requests (SetTighter), for the
	// targets it does not reach already (Reached).
	Tighter []TighterLimit `json:"tighter,omitempty"`
}

// UseBin is a count of requests whose offered use is at most Use and
// greater than the previous bin's; in JSON the pair [use, requests].
type UseBin struct {
	Use, Requests int64
}

// MarshalJSON writes the bin as the pair [use, requests].
func (b UseBin) MarshalJSON() ([]byte, error) {
	out := append(strconv.AppendInt([]byte{'['}, b.Use, 10), ',')
	return append(strconv.AppendInt(out, b.Requests, 10), ']'), nil
}

func (b *UseBin) UnmarshalJSON(data []byte) error {
	if use, requests, ok := intPair(data); ok { // as MarshalJSON writes it
		b.Use, b.Requests = use, requests
		return nil
	}
	var pair [2]int64
	if err := json.Unmarshal(data, &pair); err != nil {
		return fmt.Errorf("a use bin is a pair [use, requests]: %w", err)
	}
	b.Use, b.Requests = pair[0], pair[1]
	return nil
}

// intPair reads the JSON array of two integers data holds, white space
// allowed around its tokens; ok false for any other JSON value, which the
// caller decodes as encoding/json does.
func intPair(data []byte) (a, b int64, ok bool) {
	in := bytes.TrimSpace(data)
	if len(in) < 5 || in[0] != '[' || in[len(in)-1] != ']' {
		return 0, 0, false
	}
	first, second, found := bytes.Cut(in[1:len(in)-1], []byte{','})
	if !found {
		return 0, 0, false
	}
	a, errA := jsonInt(first)
	b, errB := jsonInt(second)
	return a, b, errA == nil && errB == nil
}

// jsonInt reads a JSON integer (white space around it allowed): digits
// with an optional minus sign, without a leading zero.
func jsonInt(text []byte) (int64, error) {
	text = bytes.TrimSpace(text)
	digits := bytes.TrimPrefix(text, []byte{'-'})
	if len(digits) == 0 || digits[0] < '0' || digits[0] > '9' || (digits[0] == '0' && len(digits) > 1) {
		return 0, strconv.ErrSyntax
	}
	return strconv.ParseInt(string(text), 10, 64)
}

// TighterLimit is a limit, with the rule's window, at which the log would
// refuse Refused of the requests (Share of them): exactly under count all,
// at most that under count accepted (UpperBound).
type TighterLimit struct {
	Target     float64 `json:"target"`
	Rule       string  `json:"rule"`
	Limit      int64   `json:"limit"`
	Refused    int64   `json:"refused"`
	Share      float64 `json:"share"`
	UpperBound bool    `json:"upper_bound,omitempty"`
}

// The layout of UseBins: every use below UseExactBelow has a bin of its
// own; above, each power of two [2^k, 2^(k+1)) is cut in UseBinsPerOctave
// bins of equal width, so that a limit read from them is within 1/4096 of
// the exact one.
const (
	UseExactBelow    = 8192
	UseBinsPerOctave = 4096
)

// UseBinTop returns the largest use in the bin of use u (u itself below
// UseExactBelow), the bin's Use.
func UseBinTop(u int64) int64 {
	if u < UseExactBelow {
		return u
	}
	k := 63 - bits.LeadingZeros64(uint64(u)) // 2^k <= u < 2^(k+1), k >= 13
	width := int64(1) << (k - 12)            // 2^k / UseBinsPerOctave
	return (u/width)*width + (width - 1)
}

// tighterTargets are the shares of requests the tighter limits aim at.
var tighterTargets = []struct {
	share             float64
	perMille, ofMille int64 // share = perMille / ofMille
}{{0.001, 1, 1000}, {0.01, 1, 100}, {0.1, 1, 10}}

// SetTighter sets b.Tighter from its bins, for each target share p the
// log does not reach already (Reached), among the limits below the rule's
// with refusals (the requests of use above the limit) within 10× of
// p·requests:
//
//   - under count all, where those refusals are exactly the log's, the
//     largest limit that refuses at least p·requests, so that a rule
//     suggested refuses at least its target;
//   - under count accepted, where they are an upper bound, the bin top
//     whose refusals are the nearest to p·requests by ratio, the smaller
//     limit on a tie.
//
// None for a target when no such limit refuses any request; limits found
// for two targets are given once.
func (b *Binding) SetTighter() error {
	rule, err := algorithms.ParseRule(b.Rule)
	if err != nil {
		return fmt.Errorf("binding of %s: %w", b.Rule, err)
	}
	b.Tighter = nil
	if b.Requests == 0 {
		return nil
	}
	// above[i] is the requests of use greater than UseBins[i].Use.
	above := make([]int64, len(b.UseBins))
	var sum int64
	for i := len(b.UseBins) - 1; i >= 0; i-- {
		above[i] = sum
		sum += b.UseBins[i].Requests
	}
	exact := b.Count == "all"
	for _, tg := range tighterTargets {
		if b.reached(tg.perMille, tg.ofMille) {
			continue
		}
		best := -1
		for i, bin := range b.UseBins {
			switch {
			case bin.Use >= rule.L || above[i] == 0:
			case exact && above[i]*tg.ofMille >= tg.perMille*b.Requests:
				best = i // refusals fall as the limit rises: the last that refuses enough
			case !exact && (best < 0 || nearer(above[i], above[best], b.Requests, tg.perMille, tg.ofMille)):
				best = i
			}
		}
		if best < 0 || !nearer(above[best], farthest(b.Requests, tg.perMille, tg.ofMille), b.Requests, tg.perMille, tg.ofMille) {
			continue // none within 10× of the target
		}
		l := b.UseBins[best].Use
		if exact { // every limit below the next bin's uses refuses as many
			l = min(useBinBottom(b.UseBins[best+1].Use)-1, rule.L-1)
		}
		if slices.ContainsFunc(b.Tighter, func(t TighterLimit) bool { return t.Limit == l }) {
			continue
		}
		b.Tighter = append(b.Tighter, TighterLimit{Target: tg.share, Rule: algorithms.Rule{L: l, W: rule.W}.String(), Limit: l,
			Refused: above[best], Share: float64(above[best]) / float64(b.Requests), UpperBound: !exact})
	}
	return nil
}

// Reached returns the target shares of the tighter limits (0.1%, 1%, 10%)
// the log reaches already at the rule, for which no tighter limit is
// sought: those it refuses at least as large a share of the requests as,
// under count all; under count accepted, where a tighter limit's refusals
// are an upper bound (a rerun at the limit suggested for a target may
// refuse less), those it refuses at least half of, so that a rerun that
// falls a little short is not sent on to a tighter limit still.
func (b *Binding) Reached() []float64 {
	var out []float64
	for _, tg := range tighterTargets {
		if b.reached(tg.perMille, tg.ofMille) {
			out = append(out, tg.share)
		}
	}
	return out
}

// reached tells whether the log reaches the target share perMille/ofMille
// (Reached), in integers.
func (b *Binding) reached(perMille, ofMille int64) bool {
	if b.Count == "all" {
		return b.LogRefused*ofMille >= perMille*b.Requests
	}
	return 2*b.LogRefused*ofMille >= perMille*b.Requests
}

// useBinBottom returns the smallest use in the bin whose top is top.
func useBinBottom(top int64) int64 {
	if top < UseExactBelow {
		return top
	}
	k := 63 - bits.LeadingZeros64(uint64(top))
	return top - (int64(1)<<(k-12) - 1)
}

// farthest is a number of refusals 10× the target share num/den of n
// requests, rounded up: a limit counts as "about" the target only nearer
// than that.
func farthest(n, num, den int64) int64 {
	t := new(big.Int).Mul(big.NewInt(n), big.NewInt(10*num))
	q, r := new(big.Int).QuoRem(t, big.NewInt(den), new(big.Int))
	if r.Sign() > 0 {
		q.Add(q, big.NewInt(1))
	}
	return q.Int64()
}

// nearer tells whether a refusals are nearer than c to the target share
// num/den of n requests by ratio: with T the target, the distance of x is
// max(x, T)/min(x, T). Exact, in big integers (x·den against n·num).
func nearer(a, c, n, num, den int64) bool {
	t := new(big.Int).Mul(big.NewInt(n), big.NewInt(num))
	dist := func(x int64) (hi, lo *big.Int) {
		xd := new(big.Int).Mul(big.NewInt(x), big.NewInt(den))
		if xd.Cmp(t) >= 0 {
			return xd, t
		}
		return t, xd
	}
	hiA, loA := dist(a)
	hiC, loC := dist(c)
	return new(big.Int).Mul(hiA, loC).Cmp(new(big.Int).Mul(hiC, loA)) < 0
}

// MergeBindings combines the bindings of one rule and count of disjoint
// shares of the keys: counts and bins add, the peak is the largest (the
// smallest key's on a tie), and the tighter limits are found again.
func MergeBindings(parts []Binding) (Binding, error) {
	f := parts[0]
	out := Binding{Rule: f.Rule, Count: f.Count}
	var add sums
	var bins []UseBin
	for i, p := range parts {
		if p.Rule != f.Rule || p.Count != f.Count {
			return Binding{}, fmt.Errorf("part %d is of %s count %s, part 0 of %s count %s", i, p.Rule, p.Count, f.Rule, f.Count)
		}
		add.add("requests", &out.Requests, p.Requests)
		add.add("log_refused", &out.LogRefused, p.LogRefused)
		add.add("keys_refused", &out.KeysRefused, p.KeysRefused)
		if p.PeakUse > out.PeakUse || (p.PeakUse == out.PeakUse && p.PeakUse > 0 && p.PeakKey < out.PeakKey) {
			out.PeakUse, out.PeakKey = p.PeakUse, p.PeakKey
		}
		bins = append(bins, p.UseBins...)
	}
	slices.SortStableFunc(bins, func(a, b UseBin) int { return cmp.Compare(a.Use, b.Use) })
	out.UseBins = []UseBin{}
	for _, b := range bins { // the parts' bins of one use, side by side, add
		if n := len(out.UseBins); n > 0 && out.UseBins[n-1].Use == b.Use {
			add.addAt("use_bins", b.Use, &out.UseBins[n-1].Requests, b.Requests)
		} else {
			out.UseBins = append(out.UseBins, b)
		}
	}
	if add.err != nil {
		return Binding{}, add.err
	}
	out.UseBins = slices.DeleteFunc(out.UseBins, func(b UseBin) bool { return b.Requests <= 0 })
	return out, out.SetTighter()
}

// UseBinsOf returns the bins of counts by use, in increasing use, without
// empty ones.
func UseBinsOf(counts map[int64]int64) []UseBin {
	out := []UseBin{}
	for u, n := range counts {
		if n > 0 {
			out = append(out, UseBin{Use: u, Requests: n})
		}
	}
	slices.SortFunc(out, func(a, b UseBin) int { return cmp.Compare(a.Use, b.Use) })
	return out
}

// validate checks that b holds together (holdsTogether); its grid, against
// the config, the trace and the log's runs, is bindingsGrid's.
func (b *Binding) validate(v *validator, path string) {
	if err := b.holdsTogether(); err != nil {
		v.fail(path, "%v", err)
	}
}

// holdsTogether checks b's parts against each other: its bins in
// increasing use, each the top of its bin, summing to its requests, its
// peak in the last one, its refusals at most its requests, and its tighter
// limits those its bins give.
func (b *Binding) holdsTogether() error {
	var sum int64
	for i, bin := range b.UseBins {
		if bin.Use < 1 || bin.Requests < 1 || UseBinTop(bin.Use) != bin.Use || (i > 0 && bin.Use <= b.UseBins[i-1].Use) {
			return fmt.Errorf("use_bins[%d] (use %d, %d requests) is not a bin in order", i, bin.Use, bin.Requests)
		}
		sum += bin.Requests
	}
	switch {
	case sum != b.Requests:
		return fmt.Errorf("use_bins hold %d requests, requests is %d", sum, b.Requests)
	case b.LogRefused < 0 || b.LogRefused > b.Requests || b.KeysRefused < 0 || b.KeysRefused > b.LogRefused:
		return fmt.Errorf("log_refused %d, keys_refused %d of %d requests do not hold together", b.LogRefused, b.KeysRefused, b.Requests)
	case len(b.UseBins) > 0 && UseBinTop(b.PeakUse) != b.UseBins[len(b.UseBins)-1].Use:
		return fmt.Errorf("peak_use %d is not in the last bin", b.PeakUse)
	}
	again := *b
	if err := again.SetTighter(); err != nil {
		return err
	}
	if fmt.Sprint(again.Tighter) != fmt.Sprint(b.Tighter) {
		return fmt.Errorf("tighter limits %v, its bins give %v", b.Tighter, again.Tighter)
	}
	return nil
}

// hardlyPerMille is the share of refused requests below which a rule is
// said to hardly bind: fewer than 1 in 1,000.
const hardlyPerMille = 1

// HardlyBinds tells whether the log refuses fewer than 1 in 1,000 of b's
// requests (none, perhaps), in integers.
func (b *Binding) HardlyBinds() bool {
	return b.Requests > 0 && b.LogRefused*1000 < hardlyPerMille*b.Requests
}

// BindingOf returns the summary's binding of rule under count, nil when it
// holds none (a layered rule, or a summary written before bindings).
func (s *Summary) BindingOf(rule, count string) *Binding {
	for i := range s.Bindings {
		if b := &s.Bindings[i]; b.Rule == rule && b.Count == count {
			return b
		}
	}
	return nil
}
