package algorithms_test

import (
	"encoding/json"
	"os"
	"testing"

	"ratebench/algorithms"
)

// seedVectors is testdata/seed-vectors.json: the worked examples of the
// seed documents as decision vectors.
type seedVectors struct {
	Vectors []struct {
		Name      string `json:"name"`
		Source    string `json:"source"`
		Rule      string `json:"rule"`
		Algorithm string `json:"algorithm"`
		Count     string `json:"count"`
		Requests  []struct {
			T   int64  `json:"t"`
			Key string `json:"key"`
		} `json:"requests"`
		Expect []bool `json:"expect"`
		Note   string `json:"note"`
	} `json:"vectors"`
}

func TestSeedVectors(t *testing.T) {
	data, err := os.ReadFile("testdata/seed-vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	var sv seedVectors
	if err := json.Unmarshal(data, &sv); err != nil {
		t.Fatal(err)
	}
	if len(sv.Vectors) < 10 {
		t.Fatalf("only %d vectors", len(sv.Vectors))
	}
	for _, v := range sv.Vectors {
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
					t.Errorf("%s: request %d at %dns: admit=%v, want %v (%s)", v.Source, i, rq.T, got, v.Expect[i], v.Note)
				}
			}
		})
	}
}
