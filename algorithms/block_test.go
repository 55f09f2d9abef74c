package algorithms_test

import (
	"strings"
	"testing"
	"time"

	"ratebench/algorithms"
)

// A fixed window of 2 per second behind a refusal cache: the third request
// of a window is refused and blocks the key till the window's end (block),
// or for 1.5 s (block=1500ms), over the next window's start.
func TestBlockedRefusesTillTheWindowEnds(t *testing.T) {
	r := algorithms.Rule{L: 2, W: int64(time.Second)}
	ms := int64(time.Millisecond)
	times := []int64{100 * ms, 200 * ms, 300 * ms, 1100 * ms, 1200 * ms, 1700 * ms, 2100 * ms}
	for _, c := range []struct {
		spec, name string
		want       string
	}{
		{"fixed", "fixed", "AARAARA"},
		{"fixed:block", "fixed:block", "AARAARA"},
		{"fixed:block=1500ms", "fixed:block=1500ms", "AARRRRA"},
		{"counter:block", "counter:block", "AARRRRA"},
		{"counter", "counter", "AARRRAA"},
	} {
		l, err := algorithms.New(c.spec, r)
		if err != nil {
			t.Fatal(err)
		}
		if l.Name() != c.name {
			t.Errorf("%s: name %q", c.spec, l.Name())
		}
		l.Grow(1)
		var got strings.Builder
		for _, at := range times {
			if l.Decide(0, at, 1) {
				got.WriteByte('A')
				l.Record(0, at, 1)
			} else {
				got.WriteByte('R')
			}
		}
		if got.String() != c.want {
			t.Errorf("%s: %s, want %s", c.spec, got.String(), c.want)
		}
	}
}

// A block that ends at time 0 is kept (the zero value of the state is no
// block, not a block ending at 0).
func TestBlockedBeforeTheEpoch(t *testing.T) {
	ms := int64(time.Millisecond)
	l, err := algorithms.New("log:block=850ms", algorithms.Rule{L: 1, W: 100 * ms})
	if err != nil {
		t.Fatal(err)
	}
	l.Grow(1)
	if !l.Decide(0, -900*ms, 1) {
		t.Fatal("first request refused")
	}
	l.Record(0, -900*ms, 1)
	if l.Decide(0, -850*ms, 1) {
		t.Fatal("second request in the window admitted")
	}
	if l.Decide(0, -10*ms, 1) {
		t.Error("a key blocked till 0 admitted at -10ms")
	}
	if !l.Decide(0, 0, 1) {
		t.Error("refused at the block's end")
	}
	if b, in := l.Bytes(0), l.(*algorithms.Blocked).Inner().Bytes(0); b != in+8 {
		t.Errorf("bytes %d, want the log's %d and the block's 8", b, in)
	}
}

func TestGenericParametersRefused(t *testing.T) {
	r := algorithms.Rule{L: 10, W: int64(time.Minute)}
	for spec, want := range map[string]string{
		"counter:without=clock": "not a product",
		"fixed:block=0s":        "not a positive duration",
		"fixed:block:block":     "block given twice",
		"counter:without=":      "without=NAME",
		"counter:block=":        `algorithm "counter:block=": block= needs a duration`,
		"log:block=":            `algorithm "log:block=": block= needs a duration`,
		"fixed: block= ":        "block= needs a duration",
	} {
		_, err := algorithms.New(spec, r)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", spec, err, want)
		}
	}
}
