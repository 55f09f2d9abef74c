package products

import (
	"fmt"

	"ratebench/algorithms"
)

// DotnetSliding is dotnet:limiter=sliding, .NET's SlidingWindowRateLimiter
// partitioned per key: PartitionedRateLimiter.Create(ctx =>
// RateLimitPartition.GetSlidingWindowLimiter(key, _ => new
// SlidingWindowRateLimiterOptions { PermitLimit = L, Window = W,
// SegmentsPerWindow = S })), AttemptAcquire(key, cost). Modelled from
// dotnet/runtime, src/libraries/System.Threading.RateLimiting/src/System/
// Threading/RateLimiting/SlidingWindowRateLimiter.cs (commit
// d649022bfcb34a1aa3612cdce3cfd30729e07d8a: the constructor,
// TryLeaseUnsynchronized and ReplenishInternal; the later text, with
// AttemptAcquireCore and the statistics, does the same arithmetic when
// AutoReplenishment is false) and RateLimitPartition.cs (commit
// 097c754d39888cb47a09ef6cb85ece0ef8d01b9d, GetSlidingWindowLimiter), over
// the partitioned limiter of Dotnet (its heartbeat every 100 ms, its drop
// of a limiter idle over 10 s). No .NET runtime runs here: the model is the
// source's.
//
// S is SegmentsPerWindow, which has no default: the spec's segments=N,
// else 3, the worked example of ASP.NET Core's rate limiting
// documentation (dotnet/AspNetCore.Docs, aspnetcore/performance/
// rate-limit.md, commit 9c2d5ef: "a 30-second window, three segments per
// window, and a limit of 100 requests").
//
// # The sliding window (SlidingWindowRateLimiter.cs)
//
// GetSlidingWindowLimiter sets AutoReplenishment = false, so only the
// heartbeat's TryReplenish moves the window. The limiter starts with
// _permitCount = L, S segment counts of 0, the current segment 0, and
// _idleSince = _lastReplenishmentTick = now. A request of cost n above L
// throws (refused, in the model); otherwise it leases iff _permitCount >=
// n (no queue), adding n to the current segment's count, taking n
// permits, and clearing _idleSince; a refused request takes nothing.
// ReplenishmentPeriod is new TimeSpan(Window.Ticks / SegmentsPerWindow):
// P = W/S cut to whole 100 ns ticks. ReplenishInternal(now) returns while
// now − _lastReplenishmentTick is below P; otherwise it sets
// _lastReplenishmentTick = now, moves to the next segment (the oldest),
// and gives its count back to the permits; if that makes the permits L
// again, _idleSince = now.
//
// So a request is admitted iff the permits taken in the current segment
// and the S − 1 before it, plus its cost, are at most L. The window slides
// one segment per heartbeat at most: a segment ends at the first
// heartbeat at least P after the last slide, so it lasts a whole number of
// heartbeats, at least P. At 1/1s with S = 3 a segment lasts 400 ms and
// the window 1.2 s; with P under 100 ms the window is S heartbeats.
//
// # What the model assumes
//
// As Dotnet: heartbeats on the epoch's multiples of 100 ms, a heartbeat
// at t before a request at t, Stopwatch ticks the trace's nanoseconds, the
// double conversions taken as exact, a limiter dropped at the first
// heartbeat more than 10 s after it was last idle (made, or given all its
// permits back), the key's next request making a new one.
//
// # Deviations from buckets:S
//
//   - anchor: the segments count from the creation of the key's limiter
//     (its first request, or its first after the limiter was dropped), not
//     from the epoch's multiples of W/S.
//   - heartbeat: a segment ends at the first 100 ms heartbeat at least P
//     after the last slide, P = W/S cut to whole 100 ns ticks, not exactly
//     W/S after its start (and an idle limiter is dropped at a heartbeat).
//   - unweighted: the window holds its S segments whole and forgets the
//     one leaving it; buckets:S also counts that one, weighted by the share
//     of it still inside the window (off: the old segment's count times
//     the share of the current segment still to run, as buckets:S).
//
// Memory: the S segment counts, the permits, the current segment, the last
// slide and the idle time, 8·S + 32 bytes per key.
type DotnetSliding struct {
	algorithms.DeviationSet
	rule   algorithms.Rule
	segs   int64 // S
	named  bool  // segments given in the spec
	period int64 // P: W/S cut to whole 100 ns ticks, in ns
	st     algorithms.PerKey[dotnetSlidingState]
	counts algorithms.PerKey[int64] // S per key: each segment's permits, by slot
}

// dotnetSlidingState is one key's limiter: made (exists), idle since idle
// (valid when idleSet: exactly when it has all its permits), the slot of
// its current segment, the permits its segments hold (sum, L −
// _permitCount), those of the segment its last slide gave back (old), and
// where its segments are. With the heartbeat, last is the time of the
// last slide (at first, of the creation) and idle a time; without it, the
// segments are k = floor((t − anchor)·S/W) and last and idle are segment
// numbers (idle: the segment whose start made the limiter idle).
type dotnetSlidingState struct {
	exists, idleSet bool
	cur             int64
	sum, old        int64
	last, anchor    int64
	idle            int64
}

const (
	dotnetSlidingAnchor = iota
	dotnetSlidingHeartbeat
	dotnetSlidingUnweighted
)

// NewDotnetSliding returns the partitioned SlidingWindowRateLimiter of
// segs segments for rule r; named keeps ":segments=N" in its name. S must
// be at most W in 100 ns ticks (P at least one tick) and at most
// algorithms.MaxBuckets.
func NewDotnetSliding(r algorithms.Rule, segs int64, named bool) (*DotnetSliding, error) {
	ticks := r.W / dotnetTick100ns
	if segs > ticks || segs > algorithms.MaxBuckets {
		return nil, fmt.Errorf("algorithm \"dotnet:limiter=sliding:segments=%d\": a segment is W/N in whole 100 ns ticks, at least one, and N at most %d: give at most %d segments under %s", segs, algorithms.MaxBuckets, min(ticks, algorithms.MaxBuckets), algorithms.FormatWindow(r.W))
	}
	d := &DotnetSliding{rule: r, segs: segs, named: named, period: ticks / segs * dotnetTick100ns, counts: algorithms.NewPerKey[int64](int(segs))}
	d.SetDeviations(
		algorithms.Deviation{Name: "anchor", About: "counts the segments from the creation of the key's limiter: its first request, or its first after the limiter was dropped idle over 10 s"},
		algorithms.Deviation{Name: "heartbeat", About: "ends a segment at the first 100 ms heartbeat at least W/S (in whole 100 ns ticks) after the last slide, not at W/S"},
		algorithms.Deviation{Name: "unweighted", About: "forgets the segment leaving the window whole, where buckets:S counts it weighted by its share still inside the window"},
	)
	return d, nil
}

func (d *DotnetSliding) Name() string {
	name := "dotnet:limiter=sliding"
	if d.named {
		name += ":segments=" + itoa(d.segs)
	}
	return name + d.Suffix()
}

// Twin is buckets:S, the sliding window over S sub-windows.
func (d *DotnetSliding) Twin() string { return "buckets:" + itoa(d.segs) }

func (d *DotnetSliding) Grow(n int) {
	d.st.Grow(n)
	d.counts.Grow(n)
}

func (d *DotnetSliding) Bytes(int32) int64  { return 8*d.segs + 32 }
func (*DotnetSliding) FixedSize() bool      { return true }
func (*DotnetSliding) CountsRejected() bool { return true }

func (d *DotnetSliding) Place(b *algorithms.Block) {
	d.st.Place(b)
	d.counts.Place(b)
}

func (d *DotnetSliding) Warm(id int32) uint64 { return uint64(d.st.At(id).last) }

func (d *DotnetSliding) Release(id int32) {
	*d.st.At(id) = dotnetSlidingState{}
	clear(d.counts.Row(id))
}

// segment returns the segment k of t from s's anchor, without the
// heartbeat, and the remainder (t − anchor)·S − k·W in [0, W).
func (d *DotnetSliding) segment(s *dotnetSlidingState, t int64) (k, rem int64) {
	k, rem, _ = algorithms.DivMod(t-s.anchor, d.segs, d.rule.W) // 0 <= t − anchor < 2^63 and S <= W: fits
	return k, rem
}

// create makes the key's limiter at t: all its permits, idle since t, its
// segments from t (anchor) or from the epoch's.
func (d *DotnetSliding) create(id int32, s *dotnetSlidingState, t int64) {
	*s = dotnetSlidingState{exists: true, idleSet: true}
	clear(d.counts.Row(id))
	switch {
	case d.OnAt(dotnetSlidingHeartbeat) && d.OnAt(dotnetSlidingAnchor):
		s.last, s.idle = t, t
	case d.OnAt(dotnetSlidingHeartbeat):
		s.last, s.idle = algorithms.FloorDiv(t, d.period)*d.period, t
	case d.OnAt(dotnetSlidingAnchor):
		s.anchor = t // segment 0 starts at t: last and idle 0
	default:
		s.last, _ = d.segment(s, t)
	}
}

// slide moves s to its next segment, at (a time or a segment number, as
// last): the oldest segment gives its permits back, and if that gives the
// limiter all its permits, it is idle from then.
func (d *DotnetSliding) slide(id int32, s *dotnetSlidingState, at int64) {
	row := d.counts.Row(id)
	s.last = at
	s.cur = (s.cur + 1) % d.segs
	s.old, row[s.cur] = row[s.cur], 0
	if s.old > 0 {
		if s.sum -= s.old; s.sum == 0 {
			s.idleSet, s.idle = true, at
		}
	}
}

// advance runs the heartbeats up to t (or, without them, the slides):
// the drop of a limiter idle over 10 s (checked first, as Heartbeat does)
// and the slides. An idle limiter holds no permit (sum 0): its slides only
// move the current segment on, in one step.
func (d *DotnetSliding) advance(id int32, s *dotnetSlidingState, t int64) {
	if !d.OnAt(dotnetSlidingHeartbeat) {
		d.advanceExact(id, s, t)
		return
	}
	for s.exists {
		next := dotnetTick(true, algorithms.SatAdd(s.last, d.period))
		drop := int64(1<<63 - 1)
		if s.idleSet && d.OnAt(dotnetSlidingAnchor) {
			drop = dotnetTick(true, algorithms.SatAdd(s.idle, dotnetIdleLimit+1))
		}
		if min(next, drop) > t {
			return
		}
		if drop <= next {
			d.Release(id)
			return
		}
		if s.sum == 0 && s.last%dotnetHeartbeatEvery == 0 {
			// From a slide on the heartbeat, the slides are step apart.
			step := next - s.last
			if k := (min(t, drop-1) - s.last) / step; k > 0 {
				s.last += k * step
				s.cur = (s.cur + k%d.segs) % d.segs
				s.old = 0
				continue
			}
		}
		d.slide(id, s, next)
	}
}

// advanceExact is advance without the heartbeat: a slide at each start of
// a segment, exactly, and the drop the first instant more than 10 s after
// the start of the segment that made the limiter idle.
func (d *DotnetSliding) advanceExact(id int32, s *dotnetSlidingState, t int64) {
	for s.exists {
		if s.idleSet && d.OnAt(dotnetSlidingAnchor) && d.idleOver(s, t) {
			d.Release(id)
			return
		}
		k, _ := d.segment(s, t)
		if k <= s.last {
			return
		}
		if s.sum == 0 {
			s.cur = (s.cur + (k-s.last)%d.segs) % d.segs
			s.last, s.old = k, 0
			return
		}
		d.slide(id, s, s.last+1)
	}
}

// idleOver reports whether t is more than 10 s after the start of segment
// s.idle, anchor + idle·W/S, exactly: (t − anchor − 10 s)·S > idle·W.
func (d *DotnetSliding) idleOver(s *dotnetSlidingState, t int64) bool {
	over := t - s.anchor - dotnetIdleLimit
	if over <= 0 {
		return false
	}
	return algorithms.Mul(s.idle, d.rule.W).Lt(algorithms.Mul(over, d.segs))
}

func (d *DotnetSliding) at(id int32, t int64) *dotnetSlidingState {
	s := d.st.At(id)
	d.advance(id, s, t)
	if !s.exists {
		d.create(id, s, t)
	}
	return s
}

// elapsed returns how far t is into s's current segment and the
// segment's length: with the heartbeat, the time since the last slide
// (at most P) and P; without it, the remainder of segment and W (the
// share elapsed being e/len either way).
func (d *DotnetSliding) elapsed(s *dotnetSlidingState, t int64) (e, length int64) {
	if d.OnAt(dotnetSlidingHeartbeat) {
		return min(t-s.last, d.period), d.period
	}
	_, rem := d.segment(s, t)
	return rem, d.rule.W
}

// Decide admits iff the permits left hold the cost (a cost above L
// throws: refused); unweighted off, iff the permits taken plus the cost
// plus the old segment's weighted share are at most L.
func (d *DotnetSliding) Decide(id int32, t, cost int64) bool {
	s := d.at(id, t)
	if d.OnAt(dotnetSlidingUnweighted) {
		return cost <= d.rule.L-s.sum
	}
	e, length := d.elapsed(s, t)
	return algorithms.CounterLE(s.old, s.sum, e, cost, d.rule.L, length)
}

// Record adds the cost to the current segment; the limiter is no longer
// idle.
func (d *DotnetSliding) Record(id int32, t, cost int64) {
	s := d.at(id, t)
	row := d.counts.Row(id)
	row[s.cur] = algorithms.SatAdd(row[s.cur], cost)
	s.sum = algorithms.SatAdd(s.sum, cost)
	s.idleSet = false
}

// Estimate is the permits taken in the window, with the old segment's
// weighted share when unweighted is off.
func (d *DotnetSliding) Estimate(id int32, t int64) algorithms.Rational {
	s := d.at(id, t)
	if d.OnAt(dotnetSlidingUnweighted) {
		return algorithms.Whole(s.sum)
	}
	e, length := d.elapsed(s, t)
	q, r, _ := algorithms.DivMod(s.old, length-e, length) // q <= old: fits
	return algorithms.Rational{Whole: uint64(s.sum) + uint64(q), Frac: r, Den: length}
}

// Idle: the key's limiter was dropped by t.
func (d *DotnetSliding) Idle(id int32, t int64) bool {
	s := d.st.At(id)
	d.advance(id, s, t)
	return !s.exists
}
