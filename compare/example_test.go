package compare_test

import (
	"fmt"
	"time"

	"ratebench/algorithms"
	"ratebench/compare"
	"ratebench/summary"
)

// A tiny trace through the exact log and the sliding window counter at 5
// per 30 s: key k sends five requests in the first second, then one at
// 33 s. The log admits the last (its window (3 s, 33 s] is empty); the
// counter still charges the five at 27/30 and refuses it: one request
// under-admitted, a legitimate client refused.
func ExampleNew() {
	rule, err := algorithms.ParseRule("5/30s")
	if err != nil {
		fmt.Println(err)
		return
	}
	e, err := compare.New(compare.Config{
		Rules:      []algorithms.Rule{rule},
		Algorithms: []string{"counter"}, // the log, the reference, always runs
		Modes:      []compare.Mode{compare.Independent},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	at := []time.Duration{0, 200 * time.Millisecond, 400 * time.Millisecond, 600 * time.Millisecond, 800 * time.Millisecond, 33 * time.Second}
	for _, t := range at {
		if err := e.Add([]byte("k"), int64(t), 1); err != nil {
			fmt.Println(err)
			return
		}
	}
	s := e.Summary(summary.TraceInfo{Path: "example"})
	for _, r := range s.Runs {
		fmt.Printf("%s: %d of %d admitted, over %d, under %d, peak memory %d B\n", r.Algorithm, r.Admitted, r.Requests, r.Over, r.Under, r.Memory.PeakTotal)
	}
	// Output:
	// log: 6 of 6 admitted, over 0, under 0, peak memory 48 B
	// counter: 5 of 6 admitted, over 0, under 1, peak memory 24 B
}
