package algorithms_test

import (
	"fmt"
	"time"

	"ratebench/algorithms"
)

// A rule and an algorithm spec, parsed, then one key's requests decided and
// recorded as a deployment would (each admitted request is counted): the
// sliding window counter at 3 per 10 s lets three requests through at the
// start of a window, and at 12 s still weighs them at 8/10, so it refuses.
func ExampleNew() {
	rule, err := algorithms.ParseRule("3/10s")
	if err != nil {
		fmt.Println(err)
		return
	}
	lim, err := algorithms.New("counter", rule)
	if err != nil {
		fmt.Println(err)
		return
	}
	lim.Grow(1) // one key, id 0
	for _, at := range []time.Duration{0, time.Second, 2 * time.Second, 12 * time.Second, 19 * time.Second} {
		t := int64(at)
		admit := lim.Decide(0, t, 1)
		if admit {
			lim.Record(0, t, 1)
		}
		fmt.Printf("%s at %v: %v\n", lim.Name(), at, admit)
	}
	// Output:
	// counter at 0s: true
	// counter at 1s: true
	// counter at 2s: true
	// counter at 12s: false
	// counter at 19s: true
}

// ParseSpecs reads a comma-separated list of algorithms against a rule,
// in their canonical spelling, and says what is wrong with a bad one.
func ExampleParseSpecs() {
	rule, _ := algorithms.ParseRule("5/1m")
	specs, err := algorithms.ParseSpecs("log,counter,token:B=10,buckets:4", rule)
	fmt.Println(specs.Names, err)
	_, err = algorithms.ParseSpecs("counter,bucket", rule)
	fmt.Println(err != nil)
	// Output:
	// [log counter token:B=10 buckets:4] <nil>
	// true
}

// Layered rules: every layer must admit. The burst and timelines of
// layered rules are measured on the primary layer, the longest window
// and, of several layers of that window, the smallest limit, the one that
// binds there.
func ExampleParseRules() {
	rules, err := algorithms.ParseRules("2/1s+10/1m+20/1m")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(rules), "layers:", algorithms.FormatRules(rules))
	fmt.Println("primary:", algorithms.PrimaryRule(rules))
	// Output:
	// 3 layers: 2/1s+10/1m+20/1m
	// primary: 10/1m
}
