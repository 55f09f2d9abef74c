package algorithms_test

import (
	"encoding/json"
	"os"
	"testing"

	"ratebench/algorithms"
)

// workedExamples is testdata/worked-examples.json: the worked examples of
// docs/definitions.md §17, each a small trace and the decision expected on
// each of its requests.
type workedExamples struct {
	Examples []struct {
		Name      string `json:"name"`
		Checks    string `json:"checks"` // what the example shows, and its section
		Rule      string `json:"rule"`
		Algorithm string `json:"algorithm"`
		Count     string `json:"count"`
		Requests  []struct {
			T   int64  `json:"t"`
			Key string `json:"key"`
		} `json:"requests"`
		Expect []bool `json:"expect"`
		Note   string `json:"note"`
	} `json:"examples"`
}

// The worked examples decide as worked out by hand, request by request.
func TestWorkedExamples(t *testing.T) {
	data, err := os.ReadFile("testdata/worked-examples.json")
	if err != nil {
		t.Fatal(err)
	}
	var we workedExamples
	if err := json.Unmarshal(data, &we); err != nil {
		t.Fatal(err)
	}
	if len(we.Examples) < 10 {
		t.Fatalf("only %d worked examples", len(we.Examples))
	}
	for _, v := range we.Examples {
		t.Run(v.Name, func(t *testing.T) {
			rule, err := algorithms.ParseRule(v.Rule)
			if err != nil {
				t.Fatal(err)
			}
			lim, err := algorithms.New(v.Algorithm, rule)
			if err != nil {
				t.Fatal(err)
			}
			ids := map[string]int32{}
			for i, rq := range v.Requests {
				id, ok := ids[rq.Key]
				if !ok {
					id = int32(len(ids))
					ids[rq.Key] = id
					lim.Grow(len(ids))
				}
				got := lim.Decide(id, rq.T, 1)
				if got || v.Count == "all" {
					lim.Record(id, rq.T, 1)
				}
				if got != v.Expect[i] {
					t.Errorf("%s: request %d at %dns: admit=%v, want %v (%s)", v.Checks, i, rq.T, got, v.Expect[i], v.Note)
				}
			}
		})
	}
}
