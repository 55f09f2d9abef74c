package main

import (
	"fmt"
	"io"
	"os"
	"time"
)

// progress draws a one-line progress report on a terminal while a replay
// runs: requests done, rate and, when the total is known, percent and ETA.
// It draws nothing when stderr is not a terminal, so CI logs stay clean.
type progress struct {
	w     io.Writer
	total int64 // 0 when unknown
	done  func() int64
	stop  chan struct{}
	ended chan struct{}
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// startProgress starts drawing on w if it is a terminal; Stop ends it.
func startProgress(w io.Writer, total int64, done func() int64) *progress {
	p := &progress{w: w, total: total, done: done, stop: make(chan struct{}), ended: make(chan struct{})}
	if !isTerminal(w) {
		close(p.ended)
		return p
	}
	go p.run()
	return p
}

func (p *progress) run() {
	defer close(p.ended)
	began := time.Now()
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-p.stop:
			fmt.Fprint(p.w, "\r\033[K")
			return
		case <-tick.C:
			fmt.Fprint(p.w, "\r\033[K"+p.line(p.done(), time.Since(began)))
		}
	}
}

// line formats the progress after n requests in d.
func (p *progress) line(n int64, d time.Duration) string {
	rate := float64(n) / d.Seconds()
	s := fmt.Sprintf("%d requests, %.2fM/s", n, rate/1e6)
	if p.total > 0 && n <= p.total && rate > 0 {
		eta := time.Duration(float64(p.total-n) / rate * float64(time.Second)).Round(time.Second)
		s = fmt.Sprintf("%d of %d requests (%.0f%%), %.2fM/s, %v left", n, p.total, 100*float64(n)/float64(p.total), rate/1e6, eta)
	}
	return s
}

// Stop ends the display and clears its line.
func (p *progress) Stop() {
	select {
	case <-p.ended:
	default:
		close(p.stop)
		<-p.ended
	}
}
