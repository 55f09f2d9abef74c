package algorithms_test

import (
	"testing"
	"time"

	"ratebench/algorithms"
)

func TestParseRule(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want algorithms.Rule
		str  string
	}{
		{"5/30s", algorithms.Rule{L: 5, W: int64(30 * time.Second)}, "5/30s"},
		{"100/1m", algorithms.Rule{L: 100, W: int64(time.Minute)}, "100/1m"},
		{"1000000/24h", algorithms.Rule{L: 1000000, W: int64(24 * time.Hour)}, "1000000/24h"},
		{"3/1.5s", algorithms.Rule{L: 3, W: int64(1500 * time.Millisecond)}, "3/1500ms"},
		{" 7/90s ", algorithms.Rule{L: 7, W: int64(90 * time.Second)}, "7/90s"},
		{"2/7ns", algorithms.Rule{L: 2, W: 7}, "2/7ns"},
	} {
		got, err := algorithms.ParseRule(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("ParseRule(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
			continue
		}
		if got.String() != tc.str {
			t.Errorf("%q.String() = %q, want %q", tc.in, got.String(), tc.str)
		}
	}
	for _, bad := range []string{"", "5", "0/1s", "-1/1s", "x/1s", "5/0s", "5/-1s", "5/abc", "5/30"} {
		if _, err := algorithms.ParseRule(bad); err == nil {
			t.Errorf("ParseRule(%q) accepted", bad)
		}
	}
}

func TestNewSpecs(t *testing.T) {
	r := algorithms.Rule{L: 10, W: int64(time.Second)}
	for spec, name := range map[string]string{
		"log": "log", "counter": "counter", "counter-lt": "counter-lt", "counter-floor": "counter-floor",
		"fixed": "fixed", "token": "token", "token:B=20": "token:B=20", "token:B=10": "token:B=10",
		"gcra": "gcra", "gcra:B=3": "gcra:B=3", "buckets:1": "buckets:1", "buckets:16": "buckets:16",
	} {
		l, err := algorithms.New(spec, r)
		if err != nil || l.Name() != name {
			t.Errorf("New(%q) = %v, %v; want name %q", spec, l, err, name)
		}
	}
	for _, bad := range []string{"", "nope", "log:3", "token:B=0", "token:20", "buckets", "buckets:0", "buckets:x", "gcra:B=-1"} {
		if _, err := algorithms.New(bad, r); err == nil {
			t.Errorf("New(%q) accepted", bad)
		}
	}
	got, err := algorithms.ParseSpecs("counter, log,counter,buckets:2", r)
	if err != nil || len(got.Names) != 3 || got.Names[0] != "counter" || got.Names[1] != "log" || got.Names[2] != "buckets:2" || got.Skipped != nil {
		t.Errorf("ParseSpecs = %v, %v", got, err)
	}
}
