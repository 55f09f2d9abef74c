// Package redisreplay replays a request trace against a real Redis server
// and compares every decision Redis makes with the in-process algorithm of
// package algorithms (docs/definitions.md), decision by decision.
//
// # Model
//
// Each algorithm is implemented the way a deployment would: as a Lua script
// run atomically by Redis (log, counter, fixed, token), or, for a common Redis
// snippet, as two round trips with the decision in between on the client
// (counter-nonatomic). Each script takes the request's trace time, not the
// server's clock, so a replay is deterministic. Redis's Lua numbers are
// doubles: every integer a script sees is kept below 2^52 (MaxExact) by
// rebasing times to the start of the trace's first window and by refusing
// rules and traces that would exceed it, and products that could exceed it
// are compared without being formed (lua/common.lua). Decisions are thus
// exact (docs/definitions.md §2).
//
//   - log: a sorted set per client, one member per admitted request
//     ("<time>:<index>", unique), scored by its time; ZREMRANGEBYSCORE
//     drops what is W old, ZCARD counts, ZADD records, PEXPIRE collects.
//     Cost 1 only (Run refuses a trace with other costs for the log).
//   - counter: one integer key per client and fixed window; the script
//     reads the previous and current windows and admits iff
//     prev*(W-e) + (curr+cost)*W <= L*W (docs/definitions.md §5), then INCRBY, PEXPIRE.
//   - counter-nonatomic: the common Redis snippet: both windows read in one
//     pipelined round trip, the same rule decided in Go, INCRBY and PEXPIRE
//     in a second round trip. Concurrent clients race between the two.
//   - fixed: one integer key per client and window; admit iff
//     curr+cost <= L (docs/definitions.md §6).
//   - token: a hash per client holding tokens*W/gcd(L,W) and the time of
//     the last refill, as integers (docs/definitions.md §7).
//
// # Products
//
// The products' own Redis code is replayed the same way against their
// models (Products; see products.go for the sources): Upstash's sliding-
// and fixed-window scripts verbatim, on the trace's time in ms, with the
// ephemeral cache on the client; Envoy's pipelined INCRBY + EXPIRE, decided
// on the count returned; Kong's read of the usage, then its increment in a
// second round trip; Spring Cloud Gateway's token bucket script and
// Tyk's sliding log script (a sorted set per key, scored by the trace's
// time in ns) verbatim; limits' moving-window script (Flask-Limiter on
// Redis) on time.time() at the trace's time; and redis_rate's script,
// which reads Redis TIME, and rate-limit-redis's
// (express-rate-limit:store=redis), whose keys expire on Redis's clock:
// both are replayed live (at Config.Speed times the trace's pace, under
// the rule's window divided by the speed), their models fed the times the
// scripts read in the order Redis decided. With one client each agrees
// with its model on
// every request (the tests require it). With several, Kong's
// read-then-increment admits beyond its model; the others, atomic in Redis,
// only decide overlapping requests in another order.
//
// Run reads the trace once (to a temporary spool file), then replays it
// once per algorithm and number of clients. The requests are handed out in
// trace order to the clients, each of which sends one request, waits for
// its answer and takes the next. The in-process algorithm is driven in
// trace order with the same timestamps, recording what it admits
// (independent mode). With one client, Redis sees the trace's order and
// the atomic scripts agree with it on every decision (the tests require
// it). With C clients, up to C requests are in flight at once: the atomic
// scripts then decide on a slightly different order, and the non-atomic
// counter lets concurrent requests read the same counts. The race's cost is
// reported as the admissions of the non-atomic counter beyond those of the
// atomic counter script on the same trace with the same clients.
//
// # Measurements
//
// Per algorithm and number of clients: decisions, admitted, agreement with
// the in-process model (count and fraction, and which way the others go),
// operations per second, latency per decision (p50, p99, max; see Timing),
// and Redis memory after the replay, before any key expires: MEMORY USAGE
// key SAMPLES 0 of the keys found by SCAN (all, or an evenly spaced,
// deterministic sample of them), per key, per encoding and, for the log,
// per sorted-set entry, beside the harness's analytic model
// (algorithms.Limiter.Bytes). Server starts a private redis-server for a
// replay (and for tests: StartForTest).
package redisreplay
