package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"

	"ratebench/algorithms"
	"ratebench/live"
	"ratebench/traces"
)

// readyEnv names the environment variable of the tests' readiness hook:
// set to N, compare and convert say "ready: N requests read" on stderr
// once they have read N requests of the trace, gen "ready: N requests
// written" once it has written N, and live TARGET "ready: N requests
// replayed" once the software has decided N, their signal handlers in
// place; a test sends its signal then, instead of after a delay it
// guesses. Unset (as for every user), nothing is wrapped or said.
const readyEnv = "RATEBENCH_READY_AFTER"

// readyAfter is the N of readyEnv, 0 when unset.
func readyAfter() int64 {
	n, err := strconv.ParseInt(os.Getenv(readyEnv), 10, 64)
	if err != nil || n < 1 {
		return 0
	}
	return n
}

// readyCount says "ready: N requests <done>" on w once it has counted
// after requests.
type readyCount struct {
	w         io.Writer
	done      string
	after, n  int64
	announced bool
}

func (c *readyCount) count(n int64) {
	if c.n += n; !c.announced && c.n >= c.after {
		fmt.Fprintf(c.w, "ready: %d requests %s\n", c.n, c.done)
		c.announced = true
	}
}

// announceReading returns r, told to say on w when it has read the
// requests readyEnv asks for (r itself when it is unset).
func announceReading(r traces.Reader, w io.Writer) traces.Reader {
	n := readyAfter()
	if n == 0 {
		return r
	}
	return &readyReader{Reader: r, readyCount: readyCount{w: w, done: "read", after: n}}
}

type readyReader struct {
	traces.Reader
	readyCount
}

func (r *readyReader) Scan() bool {
	ok := r.Reader.Scan()
	if ok {
		r.count(1)
	}
	return ok
}

// announceWriting returns w, told to say on out when it has written the
// requests readyEnv asks for (w itself when it is unset).
func announceWriting(w traces.Writer, out io.Writer) traces.Writer {
	n := readyAfter()
	if n == 0 {
		return w
	}
	return &readyWriter{Writer: w, readyCount: readyCount{w: out, done: "written", after: n}}
}

type readyWriter struct {
	traces.Writer
	readyCount
}

func (w *readyWriter) Write(r traces.Request) error {
	err := w.Writer.Write(r)
	w.count(1)
	return err
}

func (w *readyWriter) WriteBatch(b *traces.Batch) (int, error) {
	n, err := traces.WriteBatch(w.Writer, b)
	w.count(int64(n))
	return n, err
}

// announceDeciding returns target, its sessions told to say on w when
// the software has decided the requests readyEnv asks for (target itself
// when it is unset).
func announceDeciding(target live.Target, w io.Writer) live.Target {
	n := readyAfter()
	if n == 0 {
		return target
	}
	start := target.Start
	target.Start = func(ctx context.Context, r algorithms.Rule, tr *live.Trace, o live.Options) (live.Session, error) {
		s, err := start(ctx, r, tr, o)
		if err != nil {
			return nil, err
		}
		return &readySession{Session: s, readyCount: readyCount{w: w, done: "replayed", after: n}}, nil
	}
	return target
}

type readySession struct {
	live.Session
	mu sync.Mutex // several clients may decide at once
	readyCount
}

func (s *readySession) Decide(ctx context.Context, q live.Request) (live.Decision, error) {
	d, err := s.Session.Decide(ctx, q)
	if err == nil {
		s.mu.Lock()
		s.count(1)
		s.mu.Unlock()
	}
	return d, err
}
