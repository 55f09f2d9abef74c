package driver

import (
	"context"
	"strings"
	"testing"
	"time"

	"ratebench/live"
)

// lines admits a line whose key is "yes", refuses "no", answers "maybe"
// to any other, and echoes the line it read on standard error.
const lines = `echo ready
while read -r key t cost; do
	echo "$key $t $cost" >&2
	case "$key" in
	yes) echo 1 ;;
	no) echo 0 ;;
	*) echo maybe ;;
	esac
done
`

func lineSession(t *testing.T, costs bool) *LineSession {
	t.Helper()
	p, err := Start(Spec{Name: "the test driver", Program: "/bin/sh", Script: []byte(lines), ScriptName: "lines.sh"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Stop() })
	if line, err := p.Ready(context.Background()); err != nil || line != "ready" {
		t.Fatalf("first line %q, %v", line, err)
	}
	return &LineSession{P: p, Costs: costs}
}

// A line session sends "KEY T" (and the cost, at least 1, with Costs),
// reads 1 as admitted and 0 as refused, at the request's time; it refuses
// a key with a blank before sending it, and every request after an
// answer it cannot read, and after Close.
func TestLineSession(t *testing.T) {
	ctx := context.Background()
	s := lineSession(t, true)
	for _, c := range []struct {
		q     live.Request
		admit bool
	}{{live.Request{Key: "yes", T: 5, Cost: 3}, true}, {live.Request{Key: "no", T: 7}, false}} {
		d, err := s.Decide(ctx, c.q)
		if err != nil || d.Admit != c.admit || d.At != c.q.T {
			t.Errorf("%+v: %+v, %v", c.q, d, err)
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(s.P.Stderr(), "no 7 1") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if e := s.P.Stderr(); !strings.Contains(e, "yes 5 3") || !strings.Contains(e, "no 7 1") {
		t.Errorf("the driver read %q, want the cost, at least 1", e)
	}
	if _, err := s.Decide(ctx, live.Request{Key: "a b", T: 9}); err == nil || !strings.Contains(err.Error(), "without blanks") {
		t.Errorf("a key with a blank: %v", err)
	}
	if _, err := s.Decide(ctx, live.Request{Key: "other", T: 10}); err == nil || !strings.Contains(err.Error(), `answered "maybe"`) {
		t.Errorf("an answer neither 1 nor 0: %v", err)
	}
	if _, err := s.Decide(ctx, live.Request{Key: "yes", T: 11}); err == nil || !strings.Contains(err.Error(), "an earlier request failed") {
		t.Errorf("after a failed request: %v", err)
	}
	plain := lineSession(t, false)
	if d, err := plain.Decide(ctx, live.Request{Key: "yes", T: 1, Cost: 4}); err != nil || !d.Admit {
		t.Fatalf("%+v, %v", d, err)
	}
	if err := plain.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := plain.Decide(ctx, live.Request{Key: "yes", T: 2}); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Errorf("after Close: %v", err)
	}
	if e := plain.P.Stderr(); !strings.Contains(e, "yes 1") || strings.Contains(e, "yes 1 4") {
		t.Errorf("without Costs the driver read %q, want no cost", e)
	}
}
