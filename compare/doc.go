// Package compare replays a trace through the exact sliding log (the
// reference) and the candidate algorithms side by side, and measures how
// their decisions diverge (docs/definitions.md §3 and §16).
//
// # Experiments
//
// For every rule and counting policy requested, one reference log decides
// each request; for every comparison mode, each candidate decides it too:
//
//   - independent: a candidate records what it admitted itself, as a
//     deployment would;
//   - shadow: a candidate records what the reference admitted, so that both
//     share one history and the candidate's error does not compound;
//   - under --count all the window algorithms record every request, so for
//     them the two modes coincide; token, gcra, leaky and peers still count
//     only what they admit. The engine runs one mode, independent whenever
//     it is asked for (those record their own admissions), whatever the
//     order of the modes, and says so in the summary's notes.
//
// A run is one rule × count × mode × algorithm. Its metrics are streaming
// accumulators: one call per request, closed at the end into the types of
// package summary (Engine.Summary returns a summary.Summary, the content
// of summary.json); per-key state lives in slices indexed by the interned
// key id, so memory follows the number of keys and never the length of the
// trace. Keys whose state is back to its initial value are released as the
// replay goes (release.go), so it follows the keys active in the window.
//
// # Layout
//
// The Engine coordinates: it checks each request and hands it to a worker
// (worker.go), the only one, or the one its key hashes to; a parallel
// Replay reads and hashes in the calling goroutine and hands the workers
// batches (parallel.go), or, of a reader that splits its requests by key
// itself (traces.Partitioner: its parse goroutines write each request
// into its worker's part), hands each worker its part of every run
// (runs.go). A worker interns keys in an open-addressing table whose 8-byte
// slots point to the key's 64-byte state, which also holds the start of
// its name (keys.go); keys read from a dictionary (a Parquet key column)
// are looked up once per entry, and an entry's id is trusted without
// reading the key while no key has been released since (key_refs.go). Everything else a request
// reads of its key sits in the key's part of the worker's block
// (algorithms.Block): what every run keeps of it (its disagreements and
// state window, and for a run with a history of its own its burst and
// open run of rejections, with its disagreements in the window held apart
// only while it has them: key_rows.go), then the state of every limiter
// that can be placed there (algorithms.Placer: the textbook algorithms,
// the products, the log) and of the metrics that keep one (the token
// bound's check, the offered use), so that a request touches a few
// adjacent cache lines for all its runs, and the reader asks for them a
// few requests ahead. Past its first megabytes the block's chunks come
// from an arena of memory advised for huge pages, outside the Go heap
// (block_memory.go): a new key's part costs a fault per 2 MiB rather than
// per 4 KiB. What a key keeps takes the bits its values need (a run's row
// is one word, the textbook limiters' counts take 32 bits: key_rows.go,
// algorithms' cells.go), a value that outgrows them kept exactly in a
// table beside it. Each run's figures are metrics (run_acc.go's
// runMetric), shown each request in one observation; what is the same in
// every run of a group, the requests per time bin, is counted once.
//
// # Exact merging
//
// Every figure is a sum, a maximum or a top-N over keys, or comes from
// exact sums and fixed-bin histograms that the summary keeps. Keys never
// interact, so a replay splits by key: the workers of a parallel Engine
// (Config.Workers) and the shards of several machines (Config.Shard) each
// replay a disjoint set of keys, and summary.Merge combines their
// summaries into exactly, byte for byte, the summary of one pass (the
// figures that are not plain sums are taken in the forms package summary
// merges: summary.RateErrors, summary.TimelineBins).
//
// # Direction
//
// over = the candidate admits a request the reference rejects (let through:
// a false negative in Cloudflare's words); under = the candidate rejects a
// request the reference admits (a legitimate client refused: a false
// positive). Rates are over all requests of the run.
package compare
