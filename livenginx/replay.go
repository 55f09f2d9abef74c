package livenginx

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"ratebench/algorithms"
)

// Config is a live replay.
type Config struct {
	// Rule is the trace's rule, L/W.
	Rule algorithms.Rule
	// SpeedNum/SpeedDen is the speed S: the trace is sent S times as fast
	// (time t at (t - first)/S) and nginx's rate is L*S/W, so that its
	// decisions are the ones the rule takes on the trace's own times.
	SpeedNum, SpeedDen int64
	Clients            int
	// Burst is limit_req's burst; -1 for the default, L-1 (a bucket of L).
	Burst   int64
	NoDelay bool
	Delay   int64
	// Listen is the loopback host:port nginx listens on; "" for a free
	// port on 127.0.0.1.
	Listen string
	// Binary is the nginx program ("" for nginx from $PATH).
	Binary string
	Log    func(format string, args ...any)
	// Started, if set, is told of the server once it runs.
	Started func(*Server)
}

// Scaled returns the rule nginx is configured with: L*S/W, as a rule with
// the trace's limit L (the burst does not scale) and window W/S.
func (c Config) Scaled() (rate string, err error) {
	num := new(big.Int).Mul(big.NewInt(c.Rule.L), big.NewInt(c.SpeedNum))
	den := new(big.Int).Mul(big.NewInt(c.Rule.W), big.NewInt(c.SpeedDen))
	g := new(big.Int).GCD(nil, nil, num, den)
	num.Quo(num, g)
	den.Quo(den, g)
	if !num.IsInt64() || !den.IsInt64() {
		return "", fmt.Errorf("rule %s at speed %s: the rate is out of range", c.Rule, c.SpeedString())
	}
	rate, err = algorithms.NginxRate(algorithms.Rule{L: num.Int64(), W: den.Int64()})
	if err != nil {
		return "", fmt.Errorf("rule %s at speed %s is %s requests per ns, which nginx cannot express (its rate is a whole number of requests per second or per minute); the speeds that work are the multiples of %s", c.Rule, c.SpeedString(), new(big.Rat).SetFrac(num, den).RatString(), SpeedStep(c.Rule))
	}
	return rate, nil
}

// SpeedStep returns the smallest speed at which nginx can express rule
// r's rate, W/(L*1m) in lowest terms: every speed that works is a whole
// multiple of it.
func SpeedStep(r algorithms.Rule) string {
	return new(big.Rat).SetFrac(big.NewInt(r.W), new(big.Int).Mul(big.NewInt(r.L), big.NewInt(60e9))).RatString()
}

// SpeedString is the speed as a fraction or a whole number.
func (c Config) SpeedString() string {
	return new(big.Rat).SetFrac64(c.SpeedNum, c.SpeedDen).RatString()
}

// burst returns the burst nginx is configured with.
func (c Config) burst() int64 {
	if c.Burst >= 0 {
		return c.Burst
	}
	return c.Rule.L - 1
}

// offset returns the time, after the start, at which the request at
// trace time t is sent: (t - first)*den/num.
func (c Config) offset(t, first int64) time.Duration {
	v := new(big.Int).Mul(big.NewInt(t-first), big.NewInt(c.SpeedDen))
	v.Quo(v, big.NewInt(c.SpeedNum))
	if !v.IsInt64() {
		return time.Duration(1<<63 - 1)
	}
	return time.Duration(v.Int64())
}

// Sent is what the client saw of one request: when it was due, sent and
// answered, on the monotonic clock nginx reads, in ns, and the status.
type Sent struct {
	Due, Send, Recv int64
	Status          int
	Conn            int // the client's connection, 0..Clients-1
}

// Logged is one line of nginx's access log.
type Logged struct {
	ID     int
	Status int
	MsecMS int64 // $msec in ms: the wall clock
	Conn   int64 // $connection
	ConnMS int64 // $connection_time in ms: ngx_current_msec - the connection's start
	Line   int   // the line number, 1-based: nginx's order of decision
}

// Raw is what a replay gathered, before analysis.
type Raw struct {
	Trace   *Trace
	Sent    []Sent
	Logged  []Logged // in the log's order
	Version string
	Rate    string
	Start   int64 // the monotonic time of the first due request
}

// Replay starts nginx, replays tr to it and returns what the client saw
// and nginx logged. nginx is stopped before Replay returns, whether the
// replay ended, failed or ctx was cancelled.
func Replay(ctx context.Context, cfg Config, tr *Trace) (*Raw, error) {
	if cfg.Clients < 1 || cfg.SpeedNum < 1 || cfg.SpeedDen < 1 {
		return nil, errors.New("live replay: clients and speed must be positive")
	}
	rate, err := cfg.Scaled()
	if err != nil {
		return nil, err
	}
	logf := cfg.Log
	if logf == nil {
		logf = func(string, ...any) {}
	}
	lim := Limit{Rate: rate, Burst: cfg.burst(), NoDelay: cfg.NoDelay, Delay: cfg.Delay, ZoneBytes: int64(tr.Keys) * 512}
	srv, err := startOn(ctx, cfg.Binary, cfg.Listen, lim)
	if err != nil {
		return nil, err
	}
	defer srv.Stop()
	if cfg.Started != nil {
		cfg.Started(srv)
	}
	logf("started %s at %s (rate=%s burst=%d)", srv.Version, srv.Addr, rate, lim.Burst)

	clock, err := newMonoClock()
	if err != nil {
		return nil, err
	}
	raw := &Raw{Trace: tr, Sent: make([]Sent, len(tr.T)), Version: srv.Version, Rate: rate}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// nginx dying ends the replay at once.
	go func() {
		select {
		case <-srv.Exited():
			cancel()
		case <-ctx.Done():
		}
	}()
	conns := make([]*conn, cfg.Clients)
	for i := range conns {
		c, err := dial(ctx, srv.Addr)
		if err != nil {
			return nil, err
		}
		conns[i] = c
		defer c.close()
	}
	// Closing the connections unblocks a worker waiting for an answer.
	stop := context.AfterFunc(ctx, func() {
		for _, c := range conns {
			c.close()
		}
	})
	defer stop()

	jobs := make(chan int)
	var wg sync.WaitGroup
	var firstErr error
	var errOnce sync.Once
	fail := func(err error) {
		errOnce.Do(func() { firstErr = err; cancel() })
	}
	for ci, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				s := &raw.Sent[i]
				s.Conn = ci
				s.Send = clock.now()
				status, err := c.do(i, tr.Key[i])
				s.Recv = clock.now()
				if err != nil {
					if ctx.Err() == nil {
						fail(fmt.Errorf("request %d to nginx at %s: %w", i+1, srv.Addr, err))
					}
					return
				}
				s.Status = status
			}
		}()
	}

	// The replay starts on a millisecond boundary of nginx's clock, so
	// that the trace's scaled times fall in nginx's milliseconds as they
	// fall in the model's (whose clock's phase is 0).
	start := time.Now().Add(20 * time.Millisecond)
	start = start.Add(-time.Duration(clock.at(start) % 1e6))
	raw.Start = clock.at(start)
	first := tr.T[0]
dispatch:
	for i, t := range tr.T {
		// nginx decides on whole milliseconds of its clock: a request is
		// sent at the start of the millisecond it is due in, which leaves
		// it the most time to be decided within that millisecond.
		due := start.Add(cfg.offset(t, first).Truncate(time.Millisecond))
		raw.Sent[i].Due = clock.at(due)
		// A timer wakes up to a millisecond late: sleep until shortly
		// before the due time, then spin.
		if d := time.Until(due) - spin; d > 0 {
			timer := time.NewTimer(d)
			select {
			case <-timer.C:
			case <-ctx.Done():
				timer.Stop()
				break dispatch
			}
		}
		for time.Now().Before(due) {
		}
		select {
		case jobs <- i:
		case <-ctx.Done():
			break dispatch
		}
	}
	close(jobs)
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	select {
	case <-srv.Exited():
		return nil, fmt.Errorf("nginx exited during the replay: %s", strings.TrimSpace(srv.errorLog()))
	default:
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// nginx writes a request's log line after its answer: wait for all.
	deadline := time.Now().Add(5 * time.Second)
	for {
		raw.Logged, err = ParseLog(srv.AccessLog())
		if err != nil {
			return nil, err
		}
		if len(raw.Logged) >= len(tr.T) || time.Now().After(deadline) {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	if len(raw.Logged) != len(tr.T) {
		return nil, fmt.Errorf("nginx logged %d requests of %d", len(raw.Logged), len(tr.T))
	}
	return raw, nil
}

// spin is how long before a request's due time the dispatcher stops
// sleeping and waits in a loop.
const spin = 1500 * time.Microsecond

// startOn starts nginx on listen (loopback only), or a free port.
func startOn(ctx context.Context, binary, listen string, l Limit) (*Server, error) {
	if listen == "" {
		return Start(ctx, binary, l)
	}
	host, port, err := net.SplitHostPort(listen)
	if err != nil {
		return nil, fmt.Errorf("-addr %q: want host:port", listen)
	}
	ip := net.ParseIP(host)
	if host == "localhost" {
		ip = net.IPv4(127, 0, 0, 1)
	}
	if ip == nil || !ip.IsLoopback() || ip.To4() == nil {
		return nil, fmt.Errorf("-addr %q: a live replay sends only to an IPv4 loopback address (127.x.x.x)", listen)
	}
	p, err := strconv.Atoi(port)
	if err != nil || p < 1 || p > 65535 {
		return nil, fmt.Errorf("-addr %q: bad port", listen)
	}
	return startAt(ctx, binary, ip.String(), p, l)
}

// conn is one keep-alive HTTP/1.1 connection.
type conn struct {
	mu  sync.Mutex
	nc  net.Conn
	br  *bufio.Reader
	buf []byte
}

func dial(ctx context.Context, addr string) (*conn, error) {
	var d net.Dialer
	nc, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	if tc, ok := nc.(*net.TCPConn); ok {
		tc.SetNoDelay(true)
	}
	return &conn{nc: nc, br: bufio.NewReaderSize(nc, 4096)}, nil
}

func (c *conn) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.nc.Close()
}

// do sends request id for key and reads the answer's status.
func (c *conn) do(id int, key int32) (int, error) {
	c.buf = c.buf[:0]
	c.buf = append(c.buf, "GET /ok HTTP/1.1\r\nHost: ratebench\r\n"+KeyHeader+": k"...)
	c.buf = strconv.AppendInt(c.buf, int64(key), 10)
	c.buf = append(c.buf, "\r\n"+IDHeader+": "...)
	c.buf = strconv.AppendInt(c.buf, int64(id), 10)
	c.buf = append(c.buf, "\r\n\r\n"...)
	if _, err := c.nc.Write(c.buf); err != nil {
		return 0, err
	}
	resp, err := http.ReadResponse(c.br, nil)
	if err != nil {
		return 0, err
	}
	_, err = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if err != nil {
		return 0, err
	}
	if resp.Close {
		return 0, errors.New("nginx closed the connection")
	}
	return resp.StatusCode, nil
}

// monoClock maps Go's time (whose monotonic reading is CLOCK_MONOTONIC)
// onto CLOCK_MONOTONIC's ns, anchored once.
type monoClock struct {
	t0 time.Time
	m0 int64
}

func newMonoClock() (monoClock, error) {
	a := time.Now()
	m, err := monotonicNS()
	b := time.Now()
	if err != nil {
		return monoClock{}, err
	}
	return monoClock{t0: a.Add(b.Sub(a) / 2), m0: m}, nil
}

func (c monoClock) at(t time.Time) int64 { return c.m0 + int64(t.Sub(c.t0)) }
func (c monoClock) now() int64           { return c.at(time.Now()) }

// ParseLog reads nginx's access log of logFormat; a last line not yet
// ended (being written) is left out.
func ParseLog(path string) ([]Logged, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if i := strings.LastIndexByte(string(data), '\n'); i >= 0 {
		data = data[:i+1]
	} else {
		data = nil
	}
	var out []Logged
	for n, text := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		if text == "" && len(data) == 0 {
			break
		}
		line := n + 1
		fs := strings.Fields(text)
		if len(fs) != 7 {
			return nil, fmt.Errorf("%s:%d: want 7 fields, got %q", path, line, text)
		}
		var l Logged
		var errs [5]error
		l.Line = line
		l.ID, errs[0] = strconv.Atoi(fs[0])
		l.Status, errs[1] = strconv.Atoi(fs[1])
		l.MsecMS, errs[2] = parseMS(fs[2])
		l.Conn, errs[3] = strconv.ParseInt(fs[3], 10, 64)
		l.ConnMS, errs[4] = parseMS(fs[5])
		if err := errors.Join(errs[:]...); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, line, err)
		}
		out = append(out, l)
	}
	return out, nil
}

// parseMS reads nginx's "S.mmm" as whole ms.
func parseMS(s string) (int64, error) {
	sec, ms, ok := strings.Cut(s, ".")
	if !ok || len(ms) != 3 {
		return 0, fmt.Errorf("time %q: want seconds with three decimals", s)
	}
	a, err1 := strconv.ParseInt(sec, 10, 64)
	b, err2 := strconv.ParseInt(ms, 10, 64)
	if err1 != nil || err2 != nil || a < 0 {
		return 0, fmt.Errorf("time %q: want seconds with three decimals", s)
	}
	return a*1000 + b, nil
}
