package summary

import (
	"fmt"
	"math/bits"
	"slices"

	"ratebench/algorithms"
)

// run checks one run (at path, "runs[3]") of s: it is a run of s's
// configuration over s's whole trace, its counts add up to their totals
// (every request is admitted or rejected, a disagreement is over or under
// and so on), and its rates, timeline, phase, rate error, memory and top
// keys agree with its counts.
func (v *validator) run(path string, r *Run, s *Summary) {
	f := func(name string) string { return path + "." + name }
	c := &s.Config
	for _, m := range []struct {
		field, value string
		in           []string
		list         string
	}{
		{"rule", r.Rule, c.Rules, "config.rules"}, {"count", r.Count, c.Counts, "config.counts"},
		{"mode", r.Mode, c.Modes, "config.modes"}, {"algorithm", r.Algorithm, c.Algorithms, "config.algorithms"},
	} {
		if !slices.Contains(m.in, m.value) {
			v.fail(f(m.field), "%q is not in %s", m.value, m.list)
		}
	}
	v.nonNegatives(path, []count{
		{"requests", r.Requests}, {"admitted", r.Admitted}, {"rejected", r.Rejected},
		{"admitted_cost", r.AdmittedCost}, {"rejected_cost", r.RejectedCost},
		{"disagree", r.Disagree}, {"over", r.Over}, {"under", r.Under},
		{"keys", r.Keys}, {"keys_disagree", r.KeysDisagree}, {"keys_over", r.KeysOver}, {"keys_under", r.KeysUnder},
	})
	if v.err != nil {
		return
	}
	t := &s.Trace
	v.equal(f("requests"), r.Requests, "trace.requests", t.Requests)
	v.equal(f("keys"), r.Keys, "trace.keys", t.Keys)
	if n, ok := v.sum(f("admitted + rejected"), r.Admitted, r.Rejected); ok {
		v.equal(f("admitted + rejected"), n, "requests", r.Requests)
	}
	if n, ok := v.sum(f("admitted_cost + rejected_cost"), r.AdmittedCost, r.RejectedCost); ok {
		v.equal(f("admitted_cost + rejected_cost"), n, "trace.cost", t.Cost)
	}
	if r.AdmittedCost < r.Admitted {
		v.fail(f("admitted_cost"), "%d is less than admitted, %d (every request costs at least 1)", r.AdmittedCost, r.Admitted)
	}
	if r.RejectedCost < r.Rejected {
		v.fail(f("rejected_cost"), "%d is less than rejected, %d (every request costs at least 1)", r.RejectedCost, r.Rejected)
	}
	if n, ok := v.sum(f("over + under"), r.Over, r.Under); ok {
		v.equal(f("disagree"), r.Disagree, "over + under", n)
	}
	v.atMost(f("over"), r.Over, f("admitted"), r.Admitted)
	v.atMost(f("under"), r.Under, f("rejected"), r.Rejected)
	v.atMost(f("keys_disagree"), r.KeysDisagree, f("keys"), r.Keys)
	v.atMost(f("keys_over"), r.KeysOver, f("keys_disagree"), r.KeysDisagree)
	v.atMost(f("keys_under"), r.KeysUnder, f("keys_disagree"), r.KeysDisagree)
	v.atMost(f("keys_over"), r.KeysOver, f("over"), r.Over)
	v.atMost(f("keys_under"), r.KeysUnder, f("under"), r.Under)
	if n, ok := v.sum(f("keys_over + keys_under"), r.KeysOver, r.KeysUnder); ok && r.KeysDisagree > n {
		v.fail(f("keys_disagree"), "%d is more than keys_over + keys_under, %d", r.KeysDisagree, n)
	}
	v.rate(f("disagree_rate"), r.DisagreeRate, "disagree", r.Disagree, r.Requests)
	v.rate(f("over_rate"), r.OverRate, "over", r.Over, r.Requests)
	v.rate(f("under_rate"), r.UnderRate, "under", r.Under, r.Requests)
	v.logTerms(path, r, s)
	if v.err != nil {
		return
	}
	rules, err := algorithms.ParseRules(r.Rule)
	if err != nil {
		return // config.rules holds it, and was checked
	}
	v.runParts(path, r, c.TopKeys, algorithms.PrimaryRule(rules))
}

// runParts checks the parts of run r that have their own sections.
func (v *validator) runParts(path string, r *Run, topKeys int, rule algorithms.Rule) {
	f := func(name string) string { return path + "." + name }
	if b := r.Burst; b != nil {
		v.nonNegative(f("burst.max"), b.Max)
		v.finite(f("burst.ratio"), b.Ratio, true)
		v.nonNegative(f("burst.keys_over_l"), b.KeysOverL)
		v.atMost(f("burst.keys_over_l"), b.KeysOverL, f("keys"), r.Keys)
	}
	if b := r.Bound; b != nil {
		if b.B < 1 {
			v.fail(f("token_bound.b"), "%d is not a positive capacity", b.B)
		}
		v.nonNegative(f("token_bound.violations"), b.Violations)
		v.atMost(f("token_bound.violations"), b.Violations, f("admitted"), r.Admitted)
	}
	v.timeline(f("timeline"), &r.Timeline, r, rule)
	v.phase(f("phase"), &r.Phase, r)
	if e := r.RateError; e != nil {
		v.rateError(f("rate_error"), e, r)
	}
	v.memory(f("memory"), &r.Memory, r)
	if p := r.Peer; p != nil {
		v.peer(f("peer"), p)
	}
	if c := r.Client; c != nil {
		v.clientSide(f("client"), c, r)
	}
	if d := r.VsToken; d != nil {
		v.disagreement(f("vs_token"), *d, r.Requests)
	}
	if p := r.Product; p != nil {
		v.product(f("product"), p, r.Requests)
	}
	v.atMost(f("top_keys"), int64(len(r.TopKeys)), "config.top_keys", int64(topKeys))
	for i, k := range r.TopKeys {
		p := fmt.Sprintf("%s.top_keys[%d]", path, i)
		v.nonNegative(p+".requests", k.Requests)
		v.nonNegative(p+".over", k.Over)
		v.nonNegative(p+".under", k.Under)
		if n, ok := v.sum(p+".over + under", k.Over, k.Under); ok {
			v.equal(p+".disagree", k.Disagree, "over + under", n)
		}
		v.atMost(p+".disagree", k.Disagree, p+".requests", k.Requests)
		v.atMost(p+".requests", k.Requests, f("requests"), r.Requests)
		v.atMost(p+".over", k.Over, f("over"), r.Over)
		v.atMost(p+".under", k.Under, f("under"), r.Under)
		if k.Burst != nil {
			v.nonNegative(p+".burst", *k.Burst)
		}
	}
}

// timeline checks that the timeline's bins are the rule's window times a
// power of two, its series are as long as each other (memory at most as
// long), at most MaxTimelineBins, and add up to the run's counts.
func (v *validator) timeline(path string, t *Timeline, r *Run, rule algorithms.Rule) {
	if t.WidthNS <= 0 || (t.WidthNS != 1<<62 && (t.WidthNS%rule.W != 0 || bits.OnesCount64(uint64(t.WidthNS/rule.W)) != 1)) {
		v.fail(path+".width_ns", "%d is not the window of rule %s (%d ns) times a power of two", t.WidthNS, r.Rule, rule.W)
		return
	}
	n := len(t.Requests)
	if n > MaxTimelineBins {
		v.fail(path+".requests", "%d bins, more than %d", n, MaxTimelineBins)
	}
	if len(t.Over) != n || len(t.Under) != n {
		v.fail(path, "requests, over and under have %d, %d and %d bins, want the same number", n, len(t.Over), len(t.Under))
	}
	if len(t.Memory) > n {
		v.fail(path+".memory", "%d bins, more than requests' %d", len(t.Memory), n)
	}
	if v.err != nil {
		return
	}
	for _, s := range []struct {
		name   string
		bins   []int64
		total  string
		figure int64
	}{{"requests", t.Requests, "requests", r.Requests}, {"over", t.Over, "over", r.Over}, {"under", t.Under, "under", r.Under}} {
		if sum, ok := v.counts(path+"."+s.name, s.bins); ok && sum != s.figure {
			v.fail(path+"."+s.name, "the bins add up to %d, but the run's %s is %d", sum, s.total, s.figure)
		}
	}
	v.counts(path+".memory", t.Memory)
	for i := range t.Requests {
		if t.Over[i] > t.Requests[i]-t.Under[i] {
			v.fail(fmt.Sprintf("%s.over[%d]", path, i), "over %d and under %d are more than the bin's %d requests", t.Over[i], t.Under[i], t.Requests[i])
			return
		}
	}
}

// phase checks that the phase histograms have the bins they say, within
// MaxPhaseBins, and add up to the run's over- and under-admissions.
func (v *validator) phase(path string, p *Phase, r *Run) {
	if p.Bins < 1 || p.Bins > MaxPhaseBins {
		v.fail(path+".bins", "%d is not a number of bins from 1 to %d", p.Bins, MaxPhaseBins)
		return
	}
	for _, h := range []struct {
		name   string
		bins   []int64
		figure int64
	}{{"over", p.Over, r.Over}, {"under", p.Under, r.Under}} {
		if len(h.bins) != p.Bins {
			v.fail(path+"."+h.name, "%d bins, but bins is %d", len(h.bins), p.Bins)
			return
		}
		if sum, ok := v.counts(path+"."+h.name, h.bins); ok && sum != h.figure {
			v.fail(path+"."+h.name, "the bins add up to %d, but the run's %s is %d", sum, h.name, h.figure)
		}
	}
}

// rateError checks a rate error distribution: one sample per request, its
// fixed bins in range, increasing and adding up to the samples, and its
// figures numbers.
func (v *validator) rateError(path string, e *RateError, r *Run) {
	h := &e.Histogram
	v.equal(path+".samples", e.Samples, "the run's requests", r.Requests)
	v.nonNegative(path+".samples_rel", e.SamplesRel)
	v.atMost(path+".samples_rel", e.SamplesRel, path+".samples", e.Samples)
	if h.Lo != -rateErrSpan || h.Width != 1.0/rateErrPerL {
		v.fail(path+".histogram", "lo %v and width %v, want %v and %v", h.Lo, h.Width, -rateErrSpan, 1.0/rateErrPerL)
	}
	v.nonNegative(path+".histogram.below", h.Below)
	v.nonNegative(path+".histogram.above", h.Above)
	v.nonNegative(path+".histogram.zero", h.Zero)
	if v.err != nil {
		return
	}
	total, ok := v.sum(path+".histogram", h.Below, h.Above)
	var zeroBin int64
	for i, c := range h.Counts {
		p := fmt.Sprintf("%s.histogram.counts[%d]", path, i)
		switch {
		case c[0] < 0 || c[0] >= rateErrBins:
			v.fail(p, "bin %d is not one of 0 to %d", c[0], rateErrBins-1)
		case i > 0 && c[0] <= h.Counts[i-1][0]:
			v.fail(p, "bin %d does not follow bin %d", c[0], h.Counts[i-1][0])
		case c[1] < 1:
			v.fail(p, "bin %d has a count of %d, not positive", c[0], c[1])
		}
		if c[0] == rateErrBins/2 {
			zeroBin = c[1]
		}
		if ok {
			total, ok = v.sum(path+".histogram.counts", total, c[1])
		}
	}
	if ok && v.err == nil && total != e.Samples {
		v.fail(path+".histogram", "its bins, below and above hold %d errors, but samples is %d", total, e.Samples)
	}
	v.atMost(path+".histogram.zero", h.Zero, fmt.Sprintf("%s.histogram's bin %d", path, rateErrBins/2), zeroBin)
	for _, x := range []struct {
		name        string
		value       float64
		nonNegative bool
	}{
		{"mean", e.Mean, false}, {"mean_abs", e.MeanAbs, true}, {"mean_abs_frac_l", e.MeanAbsFrac, true},
		{"mean_rel", e.MeanRel, true}, {"p50", e.P50, true}, {"p50_frac_l", e.P50Frac, true},
		{"p99", e.P99, true}, {"p99_frac_l", e.P99Frac, true}, {"max", e.MaxAbs, true}, {"max_frac_l", e.MaxAbsFrac, true},
	} {
		v.finite(path+"."+x.name, x.value, x.nonNegative)
	}
}

// memory checks that the memory figures are non-negative and agree with
// each other: the mean per key is the sum of peaks over the keys, and the
// peak total the largest of the timeline's memory (0, with no series, when
// not measured).
func (v *validator) memory(path string, m *Memory, r *Run) {
	if m.Model == "" {
		v.fail(path+".model", "missing")
	}
	v.nonNegative(path+".peak_per_key", m.PeakPerKey)
	v.nonNegative(path+".sum_of_peaks", m.SumOfPeaks)
	v.nonNegative(path+".peak_total", m.PeakTotal)
	if v.err != nil {
		return
	}
	mean := 0.0
	if r.Keys > 0 {
		mean = float64(m.SumOfPeaks) / float64(r.Keys)
	}
	if m.MeanPerKey != mean {
		v.fail(path+".mean_per_key", "%v, but sum_of_peaks over keys is %v", m.MeanPerKey, mean)
	}
	if m.TotalNotMeasured {
		if m.PeakTotal != 0 || r.Timeline.Memory != nil {
			v.fail(path+".peak_total", "the total is not measured (peak_total_not_measured), yet peak_total is %d and the timeline has %d bins of memory", m.PeakTotal, len(r.Timeline.Memory))
		}
	} else if peak := slices.Max(append([]int64{0}, r.Timeline.Memory...)); m.PeakTotal != peak {
		v.fail(path+".peak_total", "%d, but the largest of timeline.memory is %d", m.PeakTotal, peak)
	}
	if w := m.Windows; w != nil {
		if w.WidthNS <= 0 {
			v.fail(path+".windows.width_ns", "%d is not positive", w.WidthNS)
		}
		if len(w.Bytes) > MaxMemoryWindows {
			v.fail(path+".windows.bytes", "%d windows, more than %d", len(w.Bytes), MaxMemoryWindows)
		}
		v.counts(path+".windows.bytes", w.Bytes)
	}
}

// peer checks that a peer's flips are split into their kinds and are
// among the decisions checked.
func (v *validator) peer(path string, p *Peer) {
	v.nonNegatives(path, []count{
		{"checked", p.Checked}, {"flips", p.Flips}, {"flips_over", p.FlipsOver}, {"flips_under", p.FlipsUnder},
		{"boundary", p.Boundary}, {"nanosecond", p.Nanosecond}, {"drift", p.Drift},
	})
	if v.err != nil {
		return
	}
	if n, ok := v.sum(path+".flips_over + flips_under", p.FlipsOver, p.FlipsUnder); ok {
		v.equal(path+".flips", p.Flips, "flips_over + flips_under", n)
	}
	if n, ok := v.sum(path+".boundary + nanosecond + drift", p.Boundary, p.Nanosecond, p.Drift); ok {
		v.equal(path+".flips", p.Flips, "boundary + nanosecond + drift", n)
	}
	v.atMost(path+".flips", p.Flips, path+".checked", p.Checked)
	if d := p.VsToken; d != nil {
		v.disagreement(path+".vs_token", *d, p.Checked)
	}
}

// disagreement checks the counts of requests two runs decided otherwise,
// among requests.
func (v *validator) disagreement(path string, d Disagreement, requests int64) {
	v.nonNegative(path+".over", d.Over)
	v.nonNegative(path+".under", d.Under)
	if n, ok := v.sum(path+".over + under", d.Over, d.Under); ok {
		v.atMost(path+".over + under", n, "requests", requests)
	}
}

// product checks a product's analysis: disagreements among the requests,
// shares that are numbers.
func (v *validator) product(path string, p *Product, requests int64) {
	if p.Twin == "" {
		v.fail(path+".twin", "missing")
	}
	v.disagreement(path+".twin_vs_log", p.TwinVsLog, requests)
	v.disagreement(path+".vs_twin", p.VsTwin, requests)
	for i := range p.Deviations {
		d := &p.Deviations[i]
		dp := fmt.Sprintf("%s.deviations[%d]", path, i)
		v.disagreement(dp+".vs_log", d.VsLog, requests)
		v.disagreement(dp+".vs_twin", d.VsTwin, requests)
		v.finite(dp+".share", d.Share, false)
	}
}

// clientSide checks what a run's decisions mean to its clients: counts
// within the run's, each distribution a histogram Add could have built
// whose digest has its samples.
func (v *validator) clientSide(path string, c *ClientSide, r *Run) {
	v.nonNegative(path+".retry_after_never", c.Never)
	v.atMost(path+".retry_after_never", c.Never, "the run's rejected", r.Rejected)
	v.nonNegative(path+".floor_early", c.FloorEarly)
	v.atMost(path+".floor_early", c.FloorEarly, "the run's rejected", r.Rejected)
	v.nonNegative(path+".unrecovered", c.Unrecovered)
	v.atMost(path+".unrecovered", c.Unrecovered, "the run's keys", r.Keys)
	for _, d := range []struct {
		name string
		dist *Distribution
	}{{"retry_after", c.RetryAfter}, {"whole_seconds_extra", c.SecondsExtra}, {"recovery", c.Recovery}, {"delay", c.Delay}} {
		if d.dist != nil {
			v.distribution(path+"."+d.name, d.dist)
		}
	}
}

// distribution checks a histogram of durations and its digest.
func (v *validator) distribution(path string, d *Distribution) {
	if err := d.Histogram.Validate(); err != nil {
		v.fail(path+".histogram", "%v", err)
		return
	}
	v.equal(path+".samples", d.Samples, "histogram.samples", d.Histogram.Samples)
	v.equal(path+".max_ns", d.MaxNS, "histogram.max_ns", d.Histogram.MaxNS)
}
