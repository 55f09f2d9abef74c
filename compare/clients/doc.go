// Package clients replays a trace through one rate limiter with closed-loop
// clients: clients that re-send what the limiter refuses.
//
// # Model
//
// The trace's requests are the clients' first attempts (the originals). A
// Sim runs one algorithm (a spec for algorithms.New) under one rule with one
// retry Policy. Every attempt the limiter refuses is re-sent by its client,
// as a new request of the same key and cost at a time the policy computes
// from the refusal (a fixed gap, a jittered exponential backoff, or the
// Retry-After the limiter would send). A retry that is refused again is
// re-sent again, up to the policy's maximum number of retries; when the last
// one is refused the client gives up on that original.
//
// Retries enter the replay in time order among the trace's requests. Keys
// never interact, so only the order within one key matters: each key has a
// min-heap of its pending retries (by send time, then by the order they were
// scheduled), and before a trace request of the key at t every pending retry
// of the key due at or before t is sent, in that order (a retry due at t goes
// before the trace request at t). Finish sends every retry still pending,
// and the retries they cause, until none is left.
//
// The limiter records what it admits (independent mode, --count accepted):
// retries take capacity from later originals, which is the point of the
// exercise. To measure that, the Sim also feeds the trace alone to a second
// instance of the same limiter (the open-loop baseline, recording its own
// admissions); extra_rejections is the number of originals refused at their
// first attempt with retries in play minus the number the baseline refuses.
//
// Everything a Sim reports is a count, a maximum or a fixed-bin histogram
// (summary.Durations) summed over keys, and each key's retries depend only
// on the key's own requests (the backoff jitter comes from a generator
// seeded from the seed and the key's bytes). So the Result does not depend
// on the order in which keys are interleaved, and
// summary.MergeClientsResults of Sims over disjoint sets of keys gives
// exactly, byte for byte in JSON, what one Sim over all of them gives.
//
// Decisions are exact (integer nanoseconds, as in package algorithms);
// amplification and the means are reported as float64, computed from exact
// integer counts and sums, so that they too are reproducible.
package clients
