package summary

import (
	"fmt"
	"strings"
	"time"

	"ratebench/algorithms"
	"ratebench/internal/numfmt"
)

// SpreadInfo records that the requests of the trace were spread before
// the replay (compare -spread): each placed uniformly at random inside
// its timestamp's unit [t, t+resolution), by a generator of this seed, a
// key's requests kept in their order. The figures are then those of the
// spread times; trace.resolution_ns and trace.same_time_as_previous stay
// those of the times as read.
type SpreadInfo struct {
	Seed uint64 `json:"seed"`
}

// sameSpread reports whether two parts spread their requests alike (or
// neither did).
func sameSpread(a, b *SpreadInfo) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// mergeResolution merges the resolution figures of part t into out: the
// gcd of the units and the sum of the same-time counts, the figures of
// disjoint keys (a spread part's are those of its keys' times as read).
func mergeResolution(out *TraceInfo, t TraceInfo, add *sums) {
	if t.ResolutionNS > 0 {
		out.ResolutionNS = algorithms.GCD(out.ResolutionNS, t.ResolutionNS)
	}
	add.add("trace.same_time_as_previous", &out.SameTime, t.SameTime)
}

// resolution checks the resolution figures: a unit of at least 1 ns that
// divides the first and last times, and no more requests at their key's
// previous time than requests after a key's first.
func (v *validator) resolution(t *TraceInfo) {
	v.nonNegative("trace.resolution_ns", t.ResolutionNS)
	v.nonNegative("trace.same_time_as_previous", t.SameTime)
	if u := t.ResolutionNS; u > 0 && t.Requests > 0 && t.Spread == nil && (t.StartNS%u != 0 || t.EndNS%u != 0) {
		v.fail("trace.resolution_ns", "%d does not divide trace.start_ns, %d, and trace.end_ns, %d", u, t.StartNS, t.EndNS)
	}
	v.atMost("trace.same_time_as_previous", t.SameTime, "trace.requests - trace.keys", t.Requests-t.Keys)
	if t.SameTime > 0 && t.ResolutionNS == 0 {
		v.fail("trace.same_time_as_previous", "%d without trace.resolution_ns", t.SameTime)
	}
}

// SameTimeShare is the share of the trace's requests at the same time as
// their key's previous request, in [0, 1]; 0 for no request.
func (t TraceInfo) SameTimeShare() float64 {
	if t.Requests == 0 {
		return 0
	}
	return float64(t.SameTime) / float64(t.Requests)
}

// Resolution returns the trace's timestamp unit as a duration, e.g. 1s,
// 1m0s, 1ms; "" when it was not measured.
func (t TraceInfo) Resolution() string {
	if t.ResolutionNS <= 0 {
		return ""
	}
	return time.Duration(t.ResolutionNS).String()
}

// ClockTooCoarse tells whether the trace's timestamp unit is coarser than
// the gap W/L between the requests of a layer of one of rules at its
// limit, or than a hundredth of its window: where the figures must hold
// wherever inside each unit the requests arrived (placements).
func ClockTooCoarse(t TraceInfo, rules []string) bool {
	_, _, coarse := coarseLayer(t.ResolutionNS, rules)
	return coarse
}

// coarseLayer returns the first layer of rules that a unit of u ns is too
// coarse for, whether for its gap W/L (else for a hundredth of its
// window), and whether there is one.
func coarseLayer(u int64, rules []string) (layer algorithms.Rule, gap, ok bool) {
	if u <= 1 {
		return layer, false, false
	}
	for _, r := range rules {
		for _, l := range strings.Split(r, "+") {
			rule, err := algorithms.ParseRule(l)
			if err != nil || rule.L <= 0 || rule.W <= 0 {
				continue
			}
			// In integers, u > W/L (floored) is exactly u·L > W, without overflow.
			if gap := u > rule.W/rule.L; gap || u > rule.W/100 {
				return rule, gap, true
			}
		}
	}
	return layer, false, false
}

// resolutionWarning says, for the rules given ("L/W" or layered
// "L/W+L/W"), when the trace's timestamp unit is coarser than the gap
// W/L between a rule's requests at its limit, or than a hundredth of its
// window, what that does to the figures; "" when it is fine for all of
// them. The rule named is the first layer the unit is too coarse for.
func resolutionWarning(t TraceInfo, rules []string) string {
	rule, gap, coarse := coarseLayer(t.ResolutionNS, rules)
	if !coarse {
		return ""
	}
	why := fmt.Sprintf("coarser than a hundredth of the %s window of %s", time.Duration(rule.W), rule)
	if gap {
		why = fmt.Sprintf("coarser than %s, the gap between requests at the limit of %s", time.Duration(rule.W/rule.L), rule)
	}
	if pl := t.Placements; pl != nil {
		return fmt.Sprintf("the timestamps are whole multiples of %s, %s (%s of the requests share their key's previous timestamp): "+
			"the trace cannot tell where inside its %s each request arrived, so the figures are those of %d placements of every request at random inside its %s "+
			"(seeds %d to %d, each key's requests in their order): the median, with the range where the placements differ; the choice holds in every placement",
			t.Resolution(), why, numfmt.PercentOf(t.SameTime, t.Requests), t.Resolution(), pl.Count, t.Resolution(), pl.Seed, pl.Seed+uint64(pl.Count)-1)
	}
	msg := fmt.Sprintf("the timestamps are whole multiples of %s, %s (%s of the requests share their key's previous timestamp): "+
		"the requests that share a timestamp are decided in trace order at one instant, so every algorithm's view of the gaps between them is lost, "+
		"and part of the disagreement is an artefact of the clock, not of the algorithm",
		t.Resolution(), why, numfmt.PercentOf(t.SameTime, t.Requests))
	if t.Spread != nil {
		msg += fmt.Sprintf("; the times were spread at random inside their %s (-spread), so these figures show the disagreement without the clock's; compare them with a replay without -spread", t.Resolution())
	} else {
		msg += "; compare replays it with each request placed at random inside the unit of its timestamp (5 placements unless -placements says otherwise; -placements 0 keeps the recorded clock), to see how much of it the clock makes"
	}
	return msg
}
