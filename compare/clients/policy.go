package clients

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"ratebench/algorithms"
)

// Kind names a retry policy.
type Kind string

// The retry policies.
const (
	// Immediate re-sends a refused request after a fixed gap (Policy.Gap,
	// the round trip): a client in a retry loop.
	Immediate Kind = "immediate"
	// Backoff re-sends with exponential backoff and full jitter: the k-th
	// retry (k = 0 for the first) waits a uniform integer number of
	// nanoseconds in [0, min(Cap, Base*2^k)).
	Backoff Kind = "backoff"
	// Honor waits what the limiter's Retry-After says, as HTTP sends it:
	// the exact earliest admission time (algorithms.RetryAfterer), the
	// delay rounded up to a whole multiple of Policy.Round (default one
	// second, the delay-seconds of the header: algorithms.RoundUpSeconds).
	// When the limiter cannot say (it does not implement RetryAfterer, or
	// RetryAfter's ok is false: the request can never be admitted) the
	// client gives up.
	Honor Kind = "honor"
)

// Policy defaults.
const (
	DefaultGap   = 10 * int64(time.Millisecond)  // immediate: the round trip
	DefaultBase  = 100 * int64(time.Millisecond) // backoff: first retry's jitter span
	DefaultCap   = 60 * int64(time.Second)       // backoff: largest jitter span
	DefaultRound = int64(time.Second)            // honor: Retry-After in whole seconds
	DefaultMax   = 10                            // every policy: retries per original
	maxRetries   = 1 << 20                       // sanity bound on Max
)

// Policy is how a client retries a refused request. Build it with
// ParsePolicy, or set Kind and the fields it uses: zero durations take the
// defaults, but Max is used as given (a Policy literal without Max never
// retries; ParsePolicy's default is DefaultMax).
type Policy struct {
	Kind Kind
	// Max is the largest number of retries of one original: it is sent at
	// most 1+Max times, and when the last attempt is refused the client
	// gives up. Max = 0 never retries (the open loop).
	Max int
	// Gap (immediate) is the time from a refusal to the retry, ns.
	Gap int64
	// Base and Cap (backoff): retry k waits uniform [0, min(Cap, Base*2^k)) ns.
	Base, Cap int64
	// Round (honor): the Retry-After delay is rounded up to a multiple of
	// Round ns; 1s is HTTP's delay-seconds, 1ns the exact time.
	Round int64
}

// ParsePolicy reads a policy: a kind with optional parameters after a
// colon, comma-separated, durations as Go durations:
//
//	immediate[:gap=10ms,max=10]
//	backoff[:base=100ms,cap=60s,max=10]
//	honor[:round=1s,max=10]
//
// String writes the canonical form, with every parameter.
func ParsePolicy(s string) (Policy, error) {
	name, args, hasArgs := strings.Cut(strings.TrimSpace(s), ":")
	p := Policy{Kind: Kind(name), Max: DefaultMax}
	var allowed []string
	switch p.Kind {
	case Immediate:
		p.Gap, allowed = DefaultGap, []string{"gap", "max"}
	case Backoff:
		p.Base, p.Cap, allowed = DefaultBase, DefaultCap, []string{"base", "cap", "max"}
	case Honor:
		p.Round, allowed = DefaultRound, []string{"round", "max"}
	default:
		return Policy{}, fmt.Errorf("retry policy %q: unknown kind %q (known: immediate, backoff, honor)", s, name)
	}
	if hasArgs {
		seen := map[string]bool{}
		for _, kv := range strings.Split(args, ",") {
			k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
			if !ok || !slices.Contains(allowed, k) {
				return Policy{}, fmt.Errorf("retry policy %q: parameter %q: want one of %s as name=value", s, kv, strings.Join(allowed, ", "))
			}
			if seen[k] {
				return Policy{}, fmt.Errorf("retry policy %q: parameter %s given twice", s, k)
			}
			seen[k] = true
			if k == "max" {
				n, err := strconv.Atoi(v)
				if err != nil || n < 0 || n > maxRetries {
					return Policy{}, fmt.Errorf("retry policy %q: max=%s is not an integer in [0, %d]", s, v, maxRetries)
				}
				p.Max = n
				continue
			}
			d, err := time.ParseDuration(v)
			if err != nil || d <= 0 {
				return Policy{}, fmt.Errorf("retry policy %q: %s=%s is not a positive duration (e.g. 10ms, 1s)", s, k, v)
			}
			switch k {
			case "gap":
				p.Gap = int64(d)
			case "base":
				p.Base = int64(d)
			case "cap":
				p.Cap = int64(d)
			case "round":
				p.Round = int64(d)
			}
		}
	}
	return p, p.check()
}

// withDefaults returns p with its zero duration fields set to the defaults.
func (p Policy) withDefaults() Policy {
	if p.Gap == 0 {
		p.Gap = DefaultGap
	}
	if p.Base == 0 {
		p.Base = DefaultBase
	}
	if p.Cap == 0 {
		p.Cap = DefaultCap
	}
	if p.Round == 0 {
		p.Round = DefaultRound
	}
	switch p.Kind {
	case Immediate:
		p.Base, p.Cap, p.Round = 0, 0, 0
	case Backoff:
		p.Gap, p.Round = 0, 0
	case Honor:
		p.Gap, p.Base, p.Cap = 0, 0, 0
	}
	return p
}

// check reports what is wrong with a policy.
func (p Policy) check() error {
	switch p.Kind {
	case Immediate, Backoff, Honor:
	default:
		return fmt.Errorf("retry policy: unknown kind %q (known: immediate, backoff, honor)", p.Kind)
	}
	if p.Max < 0 || p.Max > maxRetries {
		return fmt.Errorf("retry policy %s: max=%d is not in [0, %d]", p.Kind, p.Max, maxRetries)
	}
	if p.Gap < 0 || p.Base < 0 || p.Cap < 0 || p.Round < 0 {
		return fmt.Errorf("retry policy %s: negative duration", p.Kind)
	}
	if p.Kind == Backoff && p.Cap != 0 && p.Base != 0 && p.Cap < p.Base {
		return fmt.Errorf("retry policy %s: cap %s is below base %s", p.Kind, time.Duration(p.Cap), time.Duration(p.Base))
	}
	return nil
}

// String is the canonical form of the policy, every parameter given, as
// ParsePolicy reads it: "immediate:gap=10ms,max=10",
// "backoff:base=100ms,cap=1m,max=10", "honor:round=1s,max=10".
func (p Policy) String() string {
	p = p.withDefaults()
	m := ",max=" + strconv.Itoa(p.Max)
	switch p.Kind {
	case Immediate:
		return "immediate:gap=" + algorithms.FormatWindow(p.Gap) + m
	case Backoff:
		return "backoff:base=" + algorithms.FormatWindow(p.Base) + ",cap=" + algorithms.FormatWindow(p.Cap) + m
	case Honor:
		return "honor:round=" + algorithms.FormatWindow(p.Round) + m
	}
	return string(p.Kind)
}
