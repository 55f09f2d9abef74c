package summary

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// remove, as an edit's value, deletes the field.
var remove = new(int)

// edited returns testdata/small.summary.json with each edit applied, as a
// hand edit would: path "runs.1.over" names the field, value its new JSON
// value (a number as a string of digits is a number).
func edited(t *testing.T, edits map[string]any) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "small.summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		t.Fatal(err)
	}
	for path, value := range edits {
		steps := strings.Split(path, ".")
		node := doc
		for i, step := range steps {
			last := i == len(steps)-1
			switch n := node.(type) {
			case map[string]any:
				if last {
					if value == remove {
						delete(n, step)
					} else {
						n[step] = value
					}
				}
				node = n[step]
			case []any:
				j, err := strconv.Atoi(step)
				if err != nil || j >= len(n) {
					t.Fatalf("edit %s: no element %s", path, step)
				}
				if last {
					n[j] = value
				}
				node = n[j]
			default:
				t.Fatalf("edit %s: %s is not in an object or array", path, step)
			}
		}
	}
	out, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func num(s string) json.Number { return json.Number(s) }

// Every summary committed under results/ is one Validate accepts (and so
// is the test data the report and the commands read).
func TestCommittedSummariesValidate(t *testing.T) {
	var paths []string
	for _, pattern := range []string{"../results/*/summary.json", "../results/*/*/summary.json", "../report/testdata/*.summary.json", "../cmd/ratebench/testdata/*.summary.json", "testdata/*.summary.json"} {
		m, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		paths = append(paths, m...)
	}
	checked := 0
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var head struct{ Schema string }
		if err := json.Unmarshal(data, &head); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if head.Schema == "" {
			continue // a search of Cloudflare's mechanism, another format (CloudflareSearch)
		}
		if _, err := ReadSummaryFile(p); err != nil {
			t.Error(err)
		}
		checked++
	}
	if checked < 15 {
		t.Errorf("%d summaries checked among %d files: the committed results are not where this test looks", checked, len(paths))
	}
}

// A hand-edited summary that no replay writes is refused when it is read,
// the error naming the field at fault.
func TestValidateRefuses(t *testing.T) {
	for _, c := range []struct {
		name  string
		edits map[string]any
		want  string
	}{
		{"a negative count", map[string]any{"runs.3.over": num("-1")}, "runs[3].over: -1 is negative"},
		{"over beyond requests", map[string]any{"runs.2.over": num("8"), "runs.2.disagree": num("8")}, "runs[2].over: 8 is more than runs[2].admitted, 6"},
		{"over beyond admitted", map[string]any{"runs.1.over": num("5"), "runs.1.disagree": num("6")}, "runs[1].over: 5 is more than runs[1].admitted, 4"},
		{"disagree not over + under", map[string]any{"runs.1.disagree": num("2")}, "runs[1].disagree: 2, but over + under is 1"},
		{"admitted and rejected not the requests", map[string]any{"runs.0.admitted": num("9223372036854775807")}, "runs[0].admitted + rejected: the sum overflows"},
		{"admitted beyond requests", map[string]any{"runs.0.admitted": num("6")}, "runs[0].admitted + rejected: 8, but requests is 7"},
		{"requests not the trace's", map[string]any{"runs.0.requests": num("6")}, "runs[0].requests: 6, but trace.requests is 7"},
		{"keys beyond requests", map[string]any{"trace.keys": num("8")}, "trace.keys: 8 is more than trace.requests, 7"},
		{"keys_over beyond keys_disagree", map[string]any{"runs.2.keys_over": num("2")}, "runs[2].keys_over: 2 is more than runs[2].keys_disagree, 1"},
		{"no trace", map[string]any{"trace": remove}, "trace: missing"},
		{"no config", map[string]any{"config": remove}, "config: missing"},
		{"no runs", map[string]any{"runs": remove}, "runs: missing"},
		{"null runs", map[string]any{"runs": nil}, "runs: missing"},
		{"empty runs", map[string]any{"runs": []any{}}, "runs: missing"},
		{"no rules", map[string]any{"config.rules": []any{}}, "config.rules: missing"},
		{"a rule that does not parse", map[string]any{"config.rules.0": "10/1x"}, `config.rules[0]: rules "10/1x": rule "10/1x": window "1x" is not a positive duration`},
		{"a run of a rule not configured", map[string]any{"runs.0.rule": "2/3s"}, `runs[0].rule: "2/3s" is not in config.rules`},
		{"an unknown count policy", map[string]any{"config.counts.0": "some"}, `config.counts[0]: "some", want one of accepted, all`},
		{"an unknown mode", map[string]any{"config.modes.1": "ghost"}, `config.modes[1]: "ghost", want one of independent, shadow`},
		{"negative phase bins", map[string]any{"runs.0.phase.bins": num("-1")}, "runs[0].phase.bins: -1 is not a number of bins from 1 to 1000"},
		{"too many phase bins", map[string]any{"runs.0.phase.bins": num("1000000")}, "runs[0].phase.bins: 1000000 is not a number of bins from 1 to 1000"},
		{"phase bins and their arrays", map[string]any{"runs.0.phase.bins": num("21")}, "runs[0].phase.over: 20 bins, but bins is 21"},
		{"phase not adding up", map[string]any{"runs.1.phase.under": []any{num("2")}, "runs.1.phase.bins": num("1"), "runs.1.phase.over": []any{num("0")}}, "runs[1].phase.under: the bins add up to 2, but the run's under is 1"},
		{"a rate beyond 1", map[string]any{"runs.1.disagree_rate": num("7.5")}, "runs[1].disagree_rate: 7.5 is more than 1"},
		{"a rate not its count's", map[string]any{"runs.1.under_rate": num("0.5")}, "runs[1].under_rate: 0.5, but under over requests is 0.14285714285714285"},
		{"a negative rate", map[string]any{"runs.1.over_rate": num("-0.1")}, "runs[1].over_rate: -0.1 is negative"},
		{"timeline arrays of different lengths", map[string]any{"runs.0.timeline.over": []any{num("0")}}, "runs[0].timeline: requests, over and under have 3, 1 and 3 bins"},
		{"timeline not adding up", map[string]any{"runs.0.timeline.requests.0": num("5")}, "runs[0].timeline.requests: the bins add up to 9, but the run's requests is 7"},
		{"timeline width not the window's", map[string]any{"runs.0.timeline.width_ns": num("3000000000")}, "runs[0].timeline.width_ns: 3000000000 is not the window of rule 2/2s"},
		{"timeline memory longer than its bins", map[string]any{"runs.0.timeline.memory": []any{num("1"), num("1"), num("1"), num("1")}}, "runs[0].timeline.memory: 4 bins, more than requests' 3"},
		{"a peak total not the timeline's", map[string]any{"runs.0.memory.peak_total": num("1")}, "runs[0].memory.peak_total: 1, but the largest of timeline.memory is"},
		{"a mean per key not its sum's", map[string]any{"runs.0.memory.mean_per_key": num("1")}, "runs[0].memory.mean_per_key: 1, but sum_of_peaks over keys is"},
		{"rate error samples not the requests", map[string]any{"runs.4.rate_error.samples": num("8")}, "runs[4].rate_error.samples: 8, but the run's requests is 7"},
		{"rate error bin out of range", map[string]any{"runs.4.rate_error.histogram.counts.0.0": num("4000")}, "runs[4].rate_error.histogram.counts[0]: bin 4000 is not one of 0 to 3999"},
		{"rate error histogram not the samples", map[string]any{"runs.4.rate_error.histogram.below": num("1")}, "runs[4].rate_error.histogram: its bins, below and above hold 8 errors, but samples is 7"},
		{"a top key beyond its run", map[string]any{"runs.1.top_keys.0.under": num("2"), "runs.1.top_keys.0.disagree": num("2")}, "runs[1].top_keys[0].under: 2 is more than runs[1].under, 1"},
		{"a client distribution that does not add up", map[string]any{"runs.1.client.recovery.histogram.samples": num("5")}, "runs[1].client.recovery.histogram: durations: bins hold"},
		{"a token bound with no capacity", map[string]any{"runs.2.token_bound.b": num("0")}, "runs[2].token_bound.b: 0 is not a positive capacity"},
		{"a cost below the requests", map[string]any{"trace.cost": num("6")}, "trace.cost: 6 is less than trace.requests, 7"},
		{"a budget beyond 1", map[string]any{"config.budget": map[string]any{"max_over": num("2")}}, "config.budget.max_over: 2 is more than 1"},
		{"a shard outside its count", map[string]any{"shard": map[string]any{"index": num("2"), "count": num("2")}}, "shard: 2/2 is not one of n shards"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ReadSummary(bytes.NewReader(edited(t, c.edits)))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want an error with %q", err, c.want)
			}
		})
	}
	if _, err := ReadSummary(bytes.NewReader(edited(t, nil))); err != nil {
		t.Errorf("unedited: %v", err)
	}
}

// The error of a file's summary begins with the file's path, then the
// field's.
func TestReadSummaryFileNamesFileAndField(t *testing.T) {
	path := filepath.Join(t.TempDir(), "summary.json")
	if err := os.WriteFile(path, edited(t, map[string]any{"runs.3.over": num("-1")}), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := ReadSummaryFile(path)
	if want := path + ": runs[3].over: -1 is negative"; err == nil || err.Error() != want {
		t.Errorf("got %v, want %q", err, want)
	}
}

// replayed reads the summary of a real replay, cmd/ratebench's test data:
// 2,000 requests of 20 keys under 5/30s and 10/1m, counts accepted and
// all, both modes, the log and seven algorithms; 48 runs, 4 bindings.
func replayed(t *testing.T) *Summary {
	t.Helper()
	s, err := ReadSummaryFile(filepath.Join("..", "cmd", "ratebench", "testdata", "small.summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Runs) != 48 || len(s.Bindings) != 4 || s.Trace.Keys != 20 || s.Bindings[0].LogRefused != s.Runs[0].Rejected {
		t.Fatalf("the test data is no longer the replay this test tampers with: %d runs, %d bindings, %d keys", len(s.Runs), len(s.Bindings), s.Trace.Keys)
	}
	return s
}

// acceptedOnly makes s the summary of the same replay under count accepted
// alone: its runs, bindings and verdict.
func acceptedOnly(s *Summary) {
	s.Config.Counts = []string{"accepted"}
	s.Runs = slices.DeleteFunc(s.Runs, func(r Run) bool { return r.Count != "accepted" })
	s.Bindings = slices.DeleteFunc(s.Bindings, func(b Binding) bool { return b.Count != "accepted" })
	s.Verdict = VerdictOf(s, s.Config.Budget)
}

// A replay's summary tampered with, its runs and bindings each still whole
// on its own, is refused: a run or a binding deleted, copied twice or not
// of the configured grid, a binding at odds with the trace or the log's
// runs. The error names what is wrong.
func TestValidateRefusesATamperedGrid(t *testing.T) {
	for _, c := range []struct {
		name   string
		tamper func(s *Summary)
		want   string
	}{
		{"untouched", func(s *Summary) {}, ""},
		{"count accepted alone", acceptedOnly, ""},
		{"keys refused beyond the trace's keys", func(s *Summary) { s.Bindings[0].KeysRefused = 21 },
			"bindings[0].keys_refused: 21 is more than trace.keys, 20"},
		{"log refused not the log run's", func(s *Summary) { s.Bindings[0].LogRefused = 800 },
			"bindings[0].log_refused: 800, but the log run's rejected (runs[0]) is 832"},
		{"a binding of a rule not configured", func(s *Summary) {
			b := s.Bindings[0]
			b.Rule = "7/30s"
			s.Bindings = append(s.Bindings, b)
		}, `bindings[4].rule: "7/30s" is not in config.rules`},
		{"a binding twice", func(s *Summary) { s.Bindings = append(s.Bindings, s.Bindings[2]) },
			"bindings[4]: a second binding of 10/1m under count accepted (bindings[2] is the first)"},
		{"a binding of count all when only count accepted ran", func(s *Summary) {
			all := s.Bindings[1]
			acceptedOnly(s)
			s.Bindings = append(s.Bindings, all)
		}, `bindings[2].count: "all" is not in config.counts`},
		{"a binding deleted", func(s *Summary) { s.Bindings = s.Bindings[:3] },
			"bindings: none of 10/1m under count all, which config lists"},
		{"a run deleted", func(s *Summary) { s.Runs = slices.Delete(s.Runs, 14, 15) },
			"runs: no run of gcra under 5/30s, count accepted, shadow mode, which config lists"},
		{"the log's run deleted", func(s *Summary) { s.Runs = slices.Delete(s.Runs, 32, 33) },
			"runs: no run of log under 10/1m, count accepted, shadow mode, which config lists"},
		{"a run twice", func(s *Summary) { s.Runs = append(s.Runs, s.Runs[6]) },
			"runs[48]: a second run of gcra under 5/30s, count accepted, independent mode (runs[6] is the first)"},
		{"a run under count all in a second mode", func(s *Summary) {
			r := s.Runs[22]
			r.Mode = "shadow"
			s.Runs = append(s.Runs, r)
		}, `runs[48].mode: "shadow", but runs[16], of 5/30s under count all too, is in independent mode`},
		{"an algorithm listed twice", func(s *Summary) { s.Config.Algorithms = append(s.Config.Algorithms, "gcra") },
			`config.algorithms[8]: "gcra" is listed twice (config.algorithms[6])`},
		{"the log deleted", func(s *Summary) {
			s.Config.Algorithms = s.Config.Algorithms[1:]
			s.Runs = slices.DeleteFunc(s.Runs, func(r Run) bool { return r.Algorithm == "log" })
		}, "config.algorithms: lacks the log"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := replayed(t)
			c.tamper(s)
			err := s.Validate()
			switch {
			case c.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Errorf("got %v, want an error with %q", err, c.want)
			}
		})
	}
}
