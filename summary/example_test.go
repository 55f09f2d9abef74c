package summary_test

import (
	"fmt"
	"log"
	"strings"

	"ratebench/summary"
)

// ReadSummaryFile reads and validates a results folder's summary.json;
// each run is one algorithm under one rule, count policy and mode, its
// disagreement with the exact log counted request by request.
func ExampleReadSummaryFile() {
	s, err := summary.ReadSummaryFile("testdata/small.summary.json")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s: %d requests of %d keys\n", s.Trace.Path, s.Trace.Requests, s.Trace.Keys)
	for _, r := range s.Runs {
		fmt.Printf("%-7s %s %-11s admitted %d, over %d, under %d\n", r.Algorithm, r.Rule, r.Mode, r.Admitted, r.Over, r.Under)
	}
	// Output:
	// t.csv: 7 requests of 2 keys
	// log     2/2s independent admitted 5, over 0, under 0
	// counter 2/2s independent admitted 4, over 0, under 1
	// token   2/2s independent admitted 6, over 1, under 0
	// log     2/2s shadow      admitted 5, over 0, under 0
	// counter 2/2s shadow      admitted 4, over 0, under 1
	// token   2/2s shadow      admitted 6, over 1, under 0
}

// ReadSummary reads from any reader and refuses what no replay writes,
// naming the field.
func ExampleReadSummary() {
	_, err := summary.ReadSummary(strings.NewReader(`{"schema": "ratebench.summary/v1", "config": {}, "runs": []}`))
	fmt.Println(err)
	// Output:
	// summary: trace: missing
}
