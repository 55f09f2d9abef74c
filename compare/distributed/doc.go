// Package distributed simulates a rate limiter deployed on several nodes
// that share one limit through a store they synchronise with periodically
// (as some systems keep a local bucket on each server and only sync
// with the shared store periodically, trading a little accuracy for lower
// latency: docs/definitions.md §15), and measures what that costs against the exact sliding log of
// one central process.
//
// # Model
//
// A Sim runs one algorithm (log, counter, counter-lt, counter-floor, fixed
// or buckets:N) under one rule L/W on N nodes (Config.Nodes) behind a load
// balancer. Requests are fed in trace order (Add); t is the true time in
// integer nanoseconds. All state is per key and keys never interact.
//
// Routing (Config.Route). The i-th request of a key (i = 0, 1, ... counted
// per key) goes to node:
//
//   - random: uniform in [0, N), drawn (Lemire's unbiased
//     multiply-and-reject) from a math/rand/v2 PCG seeded with
//     (mix(seed ^ h), mix(h + mix(i))), where h = mix(FNV-1a-64(key)) and
//     mix is SplitMix64's finaliser. The node of a request is thus a
//     function of the seed, the key's bytes and the key's request index
//     only: results do not depend on how keys are split among workers or
//     interleaved in the trace.
//   - hash: h mod N for every request of the key (a sticky client, as a
//     consistent-hash balancer would place it). The seed plays no part.
//   - roundrobin: (h mod N + i) mod N: the key's requests cycle over the
//     nodes from the node hash places it on. A global round robin (the
//     balancer's own counter over all keys) would make a key's nodes depend
//     on every other key's traffic, hence on how keys are split among
//     workers, and could not be merged; cycling per key is what one client
//     sees of a round-robin balancer when its requests are the only ones.
//
// Synchronisation (Config.Sync = D, true time). Every node exchanges its
// counts with the shared store at the instants k*D, k = 1, 2, ..., all nodes
// at the same instants. The sync at k*D commits every request recorded at a
// true time t < k*D; a request at exactly k*D belongs to the interval
// [k*D, (k+1)*D) and is committed at (k+1)*D. A node deciding at true time t
// in interval floor(t/D) sees the committed state (every node's records of
// the earlier intervals) plus its own records of the current interval; the
// other nodes' records of the current interval are invisible to it. D = 0
// is a central store: every record is committed at once and every decision
// sees everything (with no skew, the deployment then decides exactly as the
// plain algorithm of package algorithms). The Sim implements this lazily
// per key: when a key's request falls in a later interval than the key's
// previous request, everything the key recorded before is committed.
//
// Clock skew (Config.Skew = S >= 0). Node j's clock reads
// c_j(t) = max(0, t + skew_j): times before the epoch are clamped to 0 (and
// a sum past the largest int64 saturates there). The offsets are
//
//   - spread (default): skew_j = S*(2j/(N-1) - 1), evenly spaced over
//     [-S, +S], computed exactly as sign(a)*floor(S*|a|/(N-1)) with
//     a = 2j-(N-1) (so the offsets are symmetric); 0 for N = 1;
//   - random (Config.SkewRandom): skew_j uniform in [-S, S], the j-th draw
//     of a PCG seeded from the seed alone (the same for every key).
//
// A node works on its own clock only: at true time t node j uses
// t' = c_j(t), w = floor(t'/W), e = t' - w*W, and it stamps what it records
// with t' (log) or counts it in its window w (window algorithms). The
// store merges records as they are: counts by window index, log entries by
// stamp. The sync schedule is on true time.
//
// # Algorithms
//
// On node j at true time t, with t' = c_j(t) and "visible" meaning
// committed or recorded by j itself:
//
//   - log: A = the cost of the visible entries stamped in (t'-W, t'] (an
//     entry stamped after t' by a node whose clock runs ahead is not
//     counted yet). Admit iff A + cost <= L.
//   - counter (docs/definitions.md §5): prev = visible cost counted in window w-1, curr =
//     in window w. Admit iff prev*(W-e) + (curr+cost)*W <= L*W, compared on
//     exact 128-bit products.
//   - counter-lt (§5.1): admit iff prev*(W-e) + curr*W < L*W.
//   - counter-floor (§5.2): admit iff floor(prev*(W-e)/W) + curr + cost
//     <= L.
//   - fixed (§6): admit iff curr + cost <= L.
//   - buckets:N (§9): counts per sub-window s = floor(t'*N/W) of the
//     node's clock, with rem = t'*N - s*W; sum = visible cost in
//     s-N+1..s, old = in s-N. Admit iff (sum+cost)*W + old*(W-rem) <= L*W.
//
// A node records a request (on its own clock, at its node) when it admits
// it (count accepted, the default) or always (Config.CountAll, --count
// all). The algorithms that are not windows (token, gcra, leaky, xrate)
// are refused with an error.
//
// # Comparison
//
// The reference is the exact sliding log on true time of one central
// process: an algorithms.Log fed every request in trace order, recording
// what it admits (or, under CountAll, every request, as the compare
// engine's reference does). Per request: over = the deployment admits and
// the reference refuses, under = the reverse; their rates are over the
// number of requests. burst_max is the largest cost the deployment admitted
// for one key in any true-time span (t-W, t] (measured with a per-key
// algorithms.WindowSum of its admissions), and burst_ratio = burst_max/L.
// The deployment and the reference each record what they themselves admit
// (independent mode, docs/definitions.md §3), so on a saturated key a decision that
// differs once shifts which later requests each lets through: over and
// under then count those shifts too and grow together. What the deployment
// lets through in excess is admitted - reference_admitted (net) and, per
// window, burst_ratio.
//
// # State and merging
//
// Per key the Sim keeps: for the window algorithms, the committed counts of
// the windows some node may still read (from floor(c_min(t)/W) - 1, where
// c_min(t) is the clock of the node furthest behind, up to the newest
// window any node counted in) and each node's uncommitted counts; for the
// log, each node's entries not yet expired on every node's clock (stamp >
// c_min(t) - W), in stamp order with prefix sums, so that a decision costs
// two binary searches per node; plus the reference log and the burst
// window. Everything a Sim reports is a count or a maximum over keys, and a
// key's decisions depend only on its own requests, the configuration and
// the seed: summary.MergeDistributedResults of Sims over disjoint key sets
// gives exactly, byte for byte in JSON, the Result of one Sim over all of
// them.
package distributed
