package compare

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"ratebench/algorithms"
	"ratebench/compare/spread"
	"ratebench/summary"
	"ratebench/traces"
)

// wholeSecondTrace is 10 minutes of 6 keys at whole-second times from
// 2023-11-14, each key sending 0 to 15 requests in a second (so 10/1s
// binds), with the count of requests at their key's previous time.
func wholeSecondTrace(seed uint64) (reqs []rq, sameTime int64) {
	rng := rand.New(rand.NewPCG(seed, 1))
	const t0 = 1700000000e9
	for s := int64(0); s < 600; s++ {
		for k := range 6 {
			for j := range rng.IntN(16) {
				reqs = append(reqs, rq{key: fmt.Sprintf("k%d", k), t: t0 + s*1e9, cost: 1})
				if j > 0 {
					sameTime++
				}
			}
		}
	}
	return reqs, sameTime
}

func resolutionConfig(t *testing.T) Config {
	return Config{Rules: []algorithms.Rule{mustRule(t, "10/1s")}, Algorithms: []string{"log", "counter", "gcra", "token"}}
}

// A whole-second trace measures a resolution of 1s and the requests at
// their key's previous time, and warns under 10/1s; the workers of one
// replay and the shards of several merge to the same figures.
func TestResolutionOfWholeSeconds(t *testing.T) {
	reqs, same := wholeSecondTrace(1)
	cfg := resolutionConfig(t)
	s, err := replayCSV(t, cfg, csvTrace(reqs))
	if err != nil {
		t.Fatal(err)
	}
	if s.Trace.ResolutionNS != 1e9 || s.Trace.SameTime != same {
		t.Fatalf("resolution %d ns, %d at the same time; want 1e9 and %d", s.Trace.ResolutionNS, s.Trace.SameTime, same)
	}
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	ws := s.Warnings()
	if len(ws) != 1 || !strings.Contains(ws[0], "whole multiples of 1s, coarser than 100ms") || !strings.Contains(ws[0], "placed at random inside the unit of its timestamp") {
		t.Fatalf("warnings %q", ws)
	}

	two := cfg
	two.Workers = 2
	p, err := replayCSV(t, two, csvTrace(reqs))
	if err != nil {
		t.Fatal(err)
	}
	var parts []*summary.Summary
	for i := range 3 {
		c := cfg
		c.Shard = &summary.Shard{Index: i, Count: 3}
		part, err := replayCSV(t, c, csvTrace(reqs))
		if err != nil {
			t.Fatal(err)
		}
		if part.Trace.SameTime == same {
			t.Fatalf("shard %d holds every key", i)
		}
		parts = append(parts, part)
	}
	merged, err := summary.Merge(parts)
	if err != nil {
		t.Fatal(err)
	}
	for name, got := range map[string]*summary.Summary{"2 workers": p, "3 shards merged": merged} {
		if got.Trace.ResolutionNS != 1e9 || got.Trace.SameTime != same {
			t.Errorf("%s: resolution %d ns, %d at the same time; want 1e9 and %d", name, got.Trace.ResolutionNS, got.Trace.SameTime, same)
		}
	}
}

// A trace with nanosecond times measures their gcd and does not warn.
func TestResolutionOfNanoseconds(t *testing.T) {
	reqs, _ := wholeSecondTrace(2)
	rng := rand.New(rand.NewPCG(3, 3))
	var j, second int64   // the request's place in its second (at most 90 in one)
	for i := range reqs { // the requests of a second, spread over it in order
		if reqs[i].t != second {
			j, second = 0, reqs[i].t
		}
		reqs[i].t += j*10e6 + rng.Int64N(1e6)
		j++
	}
	s, err := replayCSV(t, resolutionConfig(t), csvTrace(reqs))
	if err != nil {
		t.Fatal(err)
	}
	if s.Trace.ResolutionNS != 1 {
		t.Errorf("resolution %d ns, want 1", s.Trace.ResolutionNS)
	}
	if ws := s.Warnings(); len(ws) != 0 {
		t.Errorf("warnings %q", ws)
	}
}

// Replayed through the spread reader, a whole-second trace gives other
// figures; the summary records the spread and the figures of the times
// as read, and still warns, saying the times were spread. Without them
// from the caller the engine measures the spread times it replayed.
func TestResolutionOfASpreadTrace(t *testing.T) {
	reqs, same := wholeSecondTrace(1)
	cfg := resolutionConfig(t)
	plain, err := replayCSV(t, cfg, csvTrace(reqs))
	if err != nil {
		t.Fatal(err)
	}
	for _, workers := range []int{1, 2} {
		c := cfg
		c.Workers = workers
		e, sr := replaySpread(t, c, reqs)
		info := summary.TraceInfo{Path: "t.csv", Format: "csv", Spread: &summary.SpreadInfo{Seed: 7}, ResolutionNS: 1e9, SameTime: sr.SameTime()}
		s := e.Summary(info)
		if s.Trace.ResolutionNS != 1e9 || s.Trace.SameTime != same || s.Trace.Spread == nil || s.Trace.Spread.Seed != 7 {
			t.Fatalf("%d workers: trace %+v", workers, s.Trace)
		}
		if err := s.Validate(); err != nil {
			t.Fatal(err)
		}
		ws := s.Warnings()
		if len(ws) != 1 || !strings.Contains(ws[0], "whole multiples of 1s") || !strings.Contains(ws[0], "the times were spread") {
			t.Fatalf("warnings %q", ws)
		}
		if s.Trace.Requests != plain.Trace.Requests || s.Runs[0].Admitted == plain.Runs[0].Admitted && s.Runs[1].Over == plain.Runs[1].Over && s.Runs[1].Under == plain.Runs[1].Under {
			t.Errorf("%d workers: the spread replay gives the figures of the plain one", workers)
		}
	}

	e, _ := replaySpread(t, cfg, reqs)
	if s := e.Summary(summary.TraceInfo{Path: "t.csv", Format: "csv"}); s.Trace.ResolutionNS >= 1e6 || s.Trace.SameTime >= same/100 {
		t.Errorf("the spread times measured as %d ns, %d at the same time", s.Trace.ResolutionNS, s.Trace.SameTime)
	}
}

// replaySpread replays reqs, as a CSV trace, through the spread reader of
// unit 1s and seed 7, returning the engine and the reader.
func replaySpread(t *testing.T, cfg Config, reqs []rq) (*Engine, *spread.Reader) {
	t.Helper()
	e, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	r, err := traces.NewCSVReader(strings.NewReader(csvTrace(reqs)), "t.csv", traces.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sr := spread.New(r, spread.Options{Unit: 1e9, Seed: 7})
	if err := e.Replay(context.Background(), sr); err != nil {
		t.Fatal(err)
	}
	return e, sr
}
