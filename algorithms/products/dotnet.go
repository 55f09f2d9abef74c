package products

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"ratebench/algorithms"
)

func init() {
	algorithms.Register(algorithms.Kind{Spec: "dotnet[:limiter=fixed|sliding|token][:segments=N]", Place: 32, About: ".NET System.Threading.RateLimiting, a PartitionedRateLimiter of one limiter per key, model only: FixedWindowRateLimiter{PermitLimit: L, Window: W} (default), SlidingWindowRateLimiter{PermitLimit: L, Window: W, SegmentsPerWindow: N (default 3)} or TokenBucketRateLimiter{TokenLimit: L, TokensPerPeriod: L, ReplenishmentPeriod: W}, replenished by the partitioned limiter's 100 ms heartbeat from the key's limiter's creation, a limiter idle over 10 s dropped",
		Build: buildDotnet})
}

// dotnetSegments is the sliding window's SegmentsPerWindow when the spec
// gives none: the one of the worked example of ASP.NET Core's rate
// limiting documentation (a 30 s window of 3 segments).
const dotnetSegments = 3

// buildDotnet reads dotnet's parameters: limiter=fixed (the default),
// sliding or token, and segments=N with the sliding window.
func buildDotnet(c algorithms.Call, r algorithms.Rule) (algorithms.Limiter, error) {
	bad := fmt.Errorf("algorithm %q: want dotnet, dotnet:limiter=fixed, dotnet:limiter=sliding[:segments=N] (N a positive integer, default %d) or dotnet:limiter=token", c.Spec, dotnetSegments)
	limiter, named, segs, segNamed := "fixed", false, int64(dotnetSegments), false
	if c.HasArg {
		for _, f := range strings.Split(c.Arg, ":") {
			k, v, _ := strings.Cut(strings.TrimSpace(f), "=")
			switch k {
			case "limiter":
				if v != "fixed" && v != "sliding" && v != "token" {
					return nil, bad
				}
				limiter, named = v, true
			case "segments":
				n, err := strconv.ParseInt(v, 10, 64)
				if err != nil || n < 1 {
					return nil, bad
				}
				segs, segNamed = n, true
			default:
				return nil, bad
			}
		}
	}
	if segNamed && limiter != "sliding" {
		return nil, fmt.Errorf("algorithm %q: segments=N is the sliding window's SegmentsPerWindow: give it with limiter=sliding", c.Spec)
	}
	if limiter != "fixed" && r.W < dotnetTick100ns {
		return nil, fmt.Errorf("algorithm %q: a TimeSpan counts 100 ns ticks, and the window must be at least one: not %s", c.Spec, algorithms.FormatWindow(r.W))
	}
	switch limiter {
	case "sliding":
		return NewDotnetSliding(r, segs, segNamed)
	case "token":
		return NewDotnetToken(r), nil
	}
	return NewDotnet(r, named), nil
}

// Dotnet is .NET's System.Threading.RateLimiting as ASP.NET Core's rate
// limiting middleware partitions it per key:
// PartitionedRateLimiter.Create(ctx => RateLimitPartition.
// GetFixedWindowLimiter(key, _ => new FixedWindowRateLimiterOptions
// { PermitLimit = L, Window = W })), AttemptAcquire(key, cost). Modelled
// from dotnet/runtime, src/libraries/System.Threading.RateLimiting/src/
// System/Threading/RateLimiting/, FixedWindowRateLimiter.cs (commit
// 0aeb43fe165d5440b4e56b3c1d8fa9481292b852) and
// DefaultPartitionedRateLimiter.cs (commit
// 0956064a9e2e39a2a30eafa560d657f2ea399194), and RateLimitPartition.cs.
// No .NET runtime runs here: the model is the source's. The
// partitioned limiter's other limiters, dotnet:limiter=sliding and
// dotnet:limiter=token, are DotnetSliding and DotnetToken.
//
// # The partitioned limiter (DefaultPartitionedRateLimiter.cs)
//
// A key's limiter is made by its partition's factory the first time the
// key is asked for (GetRateLimiter): its first request, refused or not.
// RateLimitPartition.GetFixedWindowLimiter sets AutoReplenishment = false
// (one timer for all, not one per limiter), and the partitioned limiter's
// own timer, every 100 ms (the TimerAwaitable of its constructor), runs
// Heartbeat: for each limiter, if its IdleDuration exceeds 10 s
// (_idleTimeLimit) it is removed (the next request of its key makes a new
// one), else TryReplenish is called on it.
//
// # The fixed window (FixedWindowRateLimiter.cs)
//
// It starts with _permitCount = PermitLimit and _idleSince =
// _lastReplenishmentTick = now (the constructor). AttemptAcquireCore(n)
// throws for n > PermitLimit (refused, in the model), and leases iff
// _permitCount >= n (TryLeaseUnsynchronized, with no queue), taking n
// permits and clearing _idleSince; a refused request takes nothing.
// ReplenishInternal(now) returns while now − _lastReplenishmentTick is
// below Window; otherwise _lastReplenishmentTick = now, and if permits
// were taken, _permitCount = PermitLimit and _idleSince = now (with no
// queue, the count is full again).
//
// So a key's windows start at its limiter's creation, and each ends at the
// first heartbeat at least W after the last renewal: the windows drift
// onto the heartbeat's 100 ms grid and last at least W. A limiter whose
// window was renewed full and which takes nothing for over 10 s is
// dropped at a heartbeat, and the key's next request starts a new window
// at its own time.
//
// # What the model assumes
//
//   - The heartbeat falls on the epoch's multiples of 100 ms (its phase is
//     the partitioned limiter's creation, which a replay cannot know); a
//     heartbeat at t runs before a request at t. Stopwatch ticks are the
//     trace's nanoseconds (Linux's Stopwatch.Frequency is 10^9); the
//     double conversion of IdleDuration and of the window test
//     (TickFrequency 0.01) is taken as exact.
//   - The fixed window doubles the rate at its boundary, as every fixed
//     window does: the twin does too.
//
// # Deviations from fixed
//
//   - anchor: a window starts at the creation of the key's limiter (its
//     first request, or its first after the limiter was dropped idle over
//     10 s), not at the epoch's multiples of W.
//   - heartbeat: a window ends at the first 100 ms heartbeat at least W
//     after it started, not W after (and an idle limiter is dropped at a
//     heartbeat).
//
// Memory: the permits, the last renewal and the idle time, 24 bytes per
// key.
type Dotnet struct {
	algorithms.DeviationSet
	rule  algorithms.Rule
	named bool
	st    algorithms.PerKey[dotnetState]
}

// dotnetState is one key's limiter: made (exists), its permits taken in
// the window (used), its last renewal and since when it is idle (idle,
// valid when idleSet).
type dotnetState struct {
	exists, idleSet bool
	used            int64
	last, idle      int64
}

const (
	dotnetAnchor = iota
	dotnetHeartbeat
)

// The partitioned limiter's timer and idle limit
// (DefaultPartitionedRateLimiter.cs), and a TimeSpan's tick.
const (
	dotnetHeartbeatEvery = int64(100 * time.Millisecond)
	dotnetIdleLimit      = int64(10 * time.Second)
	dotnetTick100ns      = int64(100)
)

// dotnetTick returns the first heartbeat at or after t, when the
// heartbeat deviation is on; t itself when it is off.
func dotnetTick(on bool, t int64) int64 {
	if !on {
		return t
	}
	return -algorithms.FloorDiv(-t, dotnetHeartbeatEvery) * dotnetHeartbeatEvery
}

// NewDotnet returns the partitioned FixedWindowRateLimiter for rule r;
// named keeps ":limiter=fixed" in its name.
func NewDotnet(r algorithms.Rule, named bool) *Dotnet {
	d := &Dotnet{rule: r, named: named}
	d.SetDeviations(
		algorithms.Deviation{Name: "anchor", About: "starts a window at the creation of the key's limiter: its first request, or its first after the limiter was dropped idle over 10 s"},
		algorithms.Deviation{Name: "heartbeat", About: "ends a window at the first 100 ms heartbeat at least W after its start, not at W"},
	)
	return d
}

func (d *Dotnet) Name() string {
	name := "dotnet"
	if d.named {
		name += ":limiter=fixed"
	}
	return name + d.Suffix()
}

func (*Dotnet) Twin() string                { return "fixed" }
func (d *Dotnet) Grow(n int)                { d.st.Grow(n) }
func (*Dotnet) Bytes(int32) int64           { return 24 }
func (*Dotnet) FixedSize() bool             { return true }
func (*Dotnet) CountsRejected() bool        { return true }
func (d *Dotnet) Place(b *algorithms.Block) { d.st.Place(b) }
func (d *Dotnet) Warm(id int32) uint64      { return uint64(d.st.At(id).last) }
func (d *Dotnet) Release(id int32)          { *d.st.At(id) = dotnetState{} }
func (d *Dotnet) Estimate(id int32, _ int64) algorithms.Rational {
	return algorithms.Whole(d.st.At(id).used)
}

// tick returns the first heartbeat at or after t (heartbeat), or t.
func (d *Dotnet) tick(t int64) int64 { return dotnetTick(d.OnAt(dotnetHeartbeat), t) }

// create makes the key's limiter at t: full, idle since t, its window
// from t (anchor) or from the epoch's window of t.
func (d *Dotnet) create(s *dotnetState, t int64) {
	start := t
	if !d.OnAt(dotnetAnchor) {
		start = algorithms.FloorDiv(t, d.rule.W) * d.rule.W
	}
	*s = dotnetState{exists: true, idleSet: true, last: start, idle: t}
}

// advance runs the heartbeats up to t: renewals of the window, and the
// drop of a limiter idle over 10 s (checked first, as Heartbeat does).
func (d *Dotnet) advance(s *dotnetState, t int64) {
	for s.exists {
		renew := d.tick(algorithms.SatAdd(s.last, d.rule.W))
		drop := int64(1<<63 - 1)
		if s.idleSet && d.OnAt(dotnetAnchor) {
			// the first heartbeat h with h − idle > 10 s
			drop = d.tick(algorithms.SatAdd(s.idle, dotnetIdleLimit+1))
		}
		if min(renew, drop) > t {
			return
		}
		if drop <= renew {
			*s = dotnetState{}
			return
		}
		if s.used > 0 {
			s.last, s.used, s.idleSet, s.idle = renew, 0, true, renew
			continue
		}
		// Nothing taken: the renewals only move last on, up to t (in one
		// step when the windows are whole heartbeats).
		if k := (t - s.last) / d.rule.W; d.rule.W%dotnetHeartbeatEvery == 0 && s.last%dotnetHeartbeatEvery == 0 && k > 1 && drop > t {
			s.last += (k - 1) * d.rule.W
			continue
		}
		s.last = renew
	}
}

func (d *Dotnet) at(id int32, t int64) *dotnetState {
	s := d.st.At(id)
	d.advance(s, t)
	if !s.exists {
		d.create(s, t)
	}
	return s
}

// Decide admits iff the window's permits left hold the cost (a cost
// above L throws: refused).
func (d *Dotnet) Decide(id int32, t, cost int64) bool {
	return cost <= d.rule.L-d.at(id, t).used
}

// Record takes cost permits; the limiter is no longer idle.
func (d *Dotnet) Record(id int32, t, cost int64) {
	s := d.at(id, t)
	s.used = algorithms.SatAdd(s.used, cost)
	s.idleSet = false
}

// Idle: the key's limiter was dropped by t (a kept one, even full, has a
// window of its own).
func (d *Dotnet) Idle(id int32, t int64) bool {
	s := d.st.At(id)
	d.advance(s, t)
	return !s.exists
}
