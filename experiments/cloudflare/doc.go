// Package cloudflare reproduces Cloudflare's published accuracy figure for
// the sliding-window counter (400 million requests from 270,000 sources,
// 0.003% decided differently from an exact count, no false positives) on
// a generated population, and searches when the counter is that accurate.
//
// The experiment (Experiment, Prepare) replays a population of Poisson
// sources with Pareto-distributed rates through the exact log and the
// counter, under both counting policies and both modes; its page
// (report.CloudflareREADME) sets the figures beside the published ones,
// and RewriteReadme writes it again from the committed summaries.
//
// The search (Search, ReplayGrid) covers a grid of rules, populations of
// sources and mitigation timeouts: each point replays a generated
// population through the exact log and a candidate (the counter or a
// variant) behind the same timeout, under count all (the engine's runs
// against the reference log:block=D, driven by Engine.Replay, see
// replay.go), and records where their decisions differ. The result does
// not depend on how many points run side by side. A search is long
// (points × requests), so it reports each point done and stops when its
// context is cancelled, keeping the points finished by then in
// PartialFile so that the same search run again replays only the others.
package cloudflare
