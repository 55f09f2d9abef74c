package livenginx

import "ratebench/live"

// Trace is a trace as the live replay sends it: times in ns and dense key
// ids in order of first appearance (live.Load reads it).
type Trace = live.Trace
