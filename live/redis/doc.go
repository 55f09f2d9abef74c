// Package redis registers the live targets whose real software is a Lua
// script (or a sequence of commands) in a real redis-server: every
// textbook algorithm as a script of ratebench's, and the products' own
// Redis code, each set beside its in-process model, request by request.
//
// # The targets
//
//   - redis:SCRIPT runs, on the trace's clock (driven), one of log,
//     counter, counter-nonatomic, fixed, token[:B=N] (Algorithms) or a
//     product's code: upstash, upstash-fixed, envoy, kong, spring-gateway,
//     tyk, flask-limiter:strategy=moving:storage=redis (Products; see
//     products.go for the sources).
//   - redis:redis_rate[:burst=N] and redis:express-rate-limit:store=redis
//     run the scripts that read Redis's own clock (TIME, PTTL), in real
//     time at the trace's pace times the speed, under the rule's window
//     divided by the speed; each answer carries the time the script read,
//     which the model is fed, in the order Redis ran them (by TIME).
//
// A session starts a redis-server of its own on a free loopback port
// (Start; persistence off), or uses the running server Options.Addr
// names, whose other keys it leaves alone: its own keys carry a
// namespace of the replay's, and are deleted (UNLINK) when it closes.
//
// # The textbook scripts
//
// Each algorithm is implemented the way a deployment would: as a Lua
// script run atomically by Redis (log, counter, fixed, token), or, for a
// common Redis snippet, as two round trips with the decision in between
// on the client (counter-nonatomic). Each script takes the request's
// trace time, not the server's clock, so a replay is deterministic.
// Redis's Lua numbers are doubles: every integer a script sees is kept
// below 2^52 (MaxExact) by rebasing times to the start of the trace's
// first window and by refusing rules and traces that would exceed it, and
// products that could exceed it are compared without being formed
// (lua/common.lua). Decisions are thus exact (docs/definitions.md §2).
//
//   - log: a sorted set per client, one member per admitted request
//     ("<time>:<index>", unique), scored by its time; ZREMRANGEBYSCORE
//     drops what is W old, ZCARD counts, ZADD records, PEXPIRE collects.
//     Cost 1 only (a trace with other costs is refused).
//   - counter: one integer key per client and fixed window; the script
//     reads the previous and current windows and admits iff
//     prev*(W-e) + (curr+cost)*W <= L*W (docs/definitions.md §5), then
//     INCRBY, PEXPIRE.
//   - counter-nonatomic: the common Redis snippet: both windows read in
//     one pipelined round trip, the same rule decided in Go, INCRBY and
//     PEXPIRE in a second round trip. Concurrent clients race between the
//     two: what it admits beyond its model (the counter's, in the trace's
//     order) at -clients N is the race's cost.
//   - fixed: one integer key per client and window; admit iff
//     curr+cost <= L (docs/definitions.md §6).
//   - token: a hash per client holding tokens*W/gcd(L,W) and the time of
//     the last refill, as integers (docs/definitions.md §7).
//
// With one client, Redis sees the trace's order and every script and
// product agrees with its model on every decision (the tests require it,
// and the replay notes a disagreement). With several (live.Run's
// clients, each sending one request and waiting for its answer before
// taking the next), up to that many requests are in flight at once: the
// atomic scripts then decide on a slightly different order than their
// model, fed the trace's, and a read-then-increment (counter-nonatomic,
// Kong's) lets concurrent requests read the same counts.
//
// # Memory
//
// After the replay, before any key expires, Analyze measures the
// replay's keys: MEMORY USAGE key SAMPLES 0 of the keys SCAN finds (all,
// or an evenly spaced, deterministic sample of them), per key, per
// encoding and, for the sorted sets, per entry, beside the harness's
// analytic model (algorithms.Limiter.Bytes).
package redis
