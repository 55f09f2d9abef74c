package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func TestProgressLine(t *testing.T) {
	p := &progress{total: 1000}
	if got := p.line(250, 2*time.Second); got != "250 of 1000 requests (25%), 0.00M/s, 6s left" {
		t.Errorf("line = %q", got)
	}
	p.total = 0
	if got := p.line(3_000_000, time.Second); got != "3000000 requests, 3.00M/s" {
		t.Errorf("line = %q", got)
	}
}

// Not a terminal: nothing is drawn, and Stop returns at once.
func TestProgressSilentWhenNotATerminal(t *testing.T) {
	var buf bytes.Buffer
	p := startProgress(&buf, 10, func() int64 { return 5 })
	p.Stop()
	p.Stop()
	if buf.Len() != 0 || strings.Contains(buf.String(), "requests") {
		t.Errorf("drew %q on a buffer", buf.String())
	}
}
