// Package algorithms implements the rate limiters that ratebench compares:
// the exact sliding log (the reference) and its cheaper candidates.
//
// # Model
//
// A rule L/W allows at most L cost units per window of W nanoseconds. Every
// limiter keeps one state per key; keys never interact. Keys are dense
// integer ids (interned by the caller), and each limiter keeps its per-key
// state indexed by id (PerKey), so that a decision allocates nothing: in
// slices of its own, or, placed by a caller that replays many limiters
// side by side (Placer), in that caller's Block, where each key's states
// of every limiter sit together. The textbook limiters keep a state in a
// cell of the size its values need (cells.go), a sliding log its entries
// in a ring of the length its limit needs (KeyEntries), each with an exact wide form beside it
// for what outgrows them.
//
// Time is always an argument: t is an int64 count of nanoseconds, t >= 0,
// and for one key successive calls never go back in time. No limiter reads a
// clock. w(t) = floor(t/W) is the fixed window holding t (windows are aligned
// to t = 0) and e = t - w(t)*W the time elapsed in it.
//
// # Decide and record
//
// Every limiter splits a request into two steps:
//
//   - Decide(id, t, cost) reads the state and answers admit or reject. It may
//     advance the key's state to time t (expire old log entries, roll a
//     window over, refill a bucket); advancing never changes any later
//     decision.
//   - Record(id, t, cost) counts the request in the key's state. It is
//     called after Decide with the same t.
//
// The caller chooses when to record, and that choice is the counting policy
// and comparison mode: record what the limiter itself admitted (a real
// deployment), what the reference admitted (shadow mode), or every request
// (--count all).
//
// # Exactness
//
// Decisions are exact: integer nanoseconds, rational comparisons by
// cross-multiplication, with 128-bit products wherever L*W, prev*(W-e) or
// dt*L may exceed int64. No floating-point value ever takes part in a
// decision. Estimates reported for measurement (Estimator) are the exact
// rationals the decisions compare.
package algorithms
