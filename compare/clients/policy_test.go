package clients

import "testing"

func TestParsePolicy(t *testing.T) {
	for in, want := range map[string]string{
		"immediate":                        "immediate:gap=10ms,max=10",
		" immediate:max=3 ":                "immediate:gap=10ms,max=3",
		"immediate:gap=250us,max=0":        "immediate:gap=250us,max=0",
		"backoff":                          "backoff:base=100ms,cap=1m,max=10",
		"backoff:base=100ms,max=8":         "backoff:base=100ms,cap=1m,max=8",
		"backoff:cap=5s,base=1s":           "backoff:base=1s,cap=5s,max=10",
		"honor":                            "honor:round=1s,max=10",
		"honor:round=1ns":                  "honor:round=1ns,max=10",
		"backoff:base=100ms,cap=1m,max=10": "backoff:base=100ms,cap=1m,max=10",
	} {
		p, err := ParsePolicy(in)
		if err != nil {
			t.Errorf("%q: %v", in, err)
			continue
		}
		if p.String() != want {
			t.Errorf("%q: %q, want %q", in, p.String(), want)
		}
		if q, err := ParsePolicy(p.String()); err != nil || q != p {
			t.Errorf("%q: canonical form %q reads back as %+v, %v", in, p.String(), q, err)
		}
	}
	for _, bad := range []string{"", "retry", "immediate:", "immediate:base=1s", "backoff:base=0s", "backoff:base=-1s",
		"backoff:base=2s,cap=1s", "honor:max=-1", "honor:max=x", "immediate:max=1,max=2", "immediate:gap"} {
		if p, err := ParsePolicy(bad); err == nil {
			t.Errorf("%q accepted as %v", bad, p)
		}
	}
	// A hand-built policy takes the default durations and its own Max.
	if s := (Policy{Kind: Backoff}).String(); s != "backoff:base=100ms,cap=1m,max=0" {
		t.Errorf("zero backoff policy: %q", s)
	}
}
