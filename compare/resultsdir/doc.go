// Package resultsdir is the one way ratebench writes a results folder (a
// compare's summary and report, a merge, a report rewritten, a Cloudflare
// search and its page, a live or Redis replay), so that a folder always
// holds one run's files, whole, and never a mix of two runs' or half of
// one.
//
// The model:
//
//   - Lock. A writer first locks the folder: an exclusive flock on its lock
//     file, .ratebench.lock, which holds the writer's process id. A second
//     writer fails at once, naming that process, rather than after its work.
//     The lock file is removed, while still locked, when the writer closes.
//   - Stage. Every file is written into a staging folder inside,
//     .ratebench-new-*, made when the lock is taken; those of writers that
//     died holding the lock are removed then (the lock says their writer
//     is gone).
//   - Commit. Only once every file is written does Commit move them into
//     place, each by one rename, and remove the files the writer owns that it
//     did not write this time (the stale ones of an earlier run). The
//     report's documents are taken away first and put back last, so that
//     whatever stops a commit part way, no report is left beside a summary
//     that is not its own.
//   - Close. Close, deferred by every writer, removes the staging folder and
//     the lock file, whatever happened: after an error, a failed write or an
//     interrupt, the folder is as it was before, with nothing of the run
//     left in it (a folder the writer made is removed if it stays empty).
//   - Ownership. A writer owns the files it names by an owns function
//     (OwnsCompare: summary.json, perf.json and the report; a search owns
//     its summary.json, plot and page; a live replay live.json and
//     live.md): Commit replaces or removes those and leaves every other file
//     of the folder alone.
//   - Another run's results. Before a writer replays anything, it checks
//     that the folder holds no results of another run it would replace (a
//     compare of another trace: CheckTrace; a folder whose summary.json is
//     of another kind of run: CheckKind). It refuses, saying so, unless the
//     user gave -force.
package resultsdir
