// Package generators produces synthetic request traces: seeded,
// deterministic (same parameters, same requests, byte for byte) and
// streaming in global time order, so that a trace of any length is never
// held in memory.
//
// Each key is a source with its own random stream, seeded from the trace
// seed and the key's index; a heap merges the sources in time order (ties
// broken by key index). A source's requests therefore do not depend on how
// many other sources there are or in which order they are drawn.
package generators
