package livenginx

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"time"

	"ratebench/algorithms"
	"ratebench/algorithms/products"
	"ratebench/internal/pass"
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

	// answered, if set (tests), is told of each request answered, by its
	// index, from the client that sent it.
	answered func(i int)
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
	rate, err = products.NginxRate(algorithms.Rule{L: num.Int64(), W: den.Int64()})
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
//
// Its steps: start nginx with the scaled rate; open one keep-alive
// connection per client; hand the requests, each at its due time, to the
// first free client, which sends it and reads the answer (a pass of
// package pass: the first error, nginx's exit or ctx ends it); then read
// nginx's access log once it holds a line for every request.
func Replay(ctx context.Context, cfg Config, tr *Trace) (*Raw, error) {
	rate, err := cfg.check()
	if err != nil {
		return nil, err
	}
	srv, err := cfg.start(ctx, rate, tr.Keys)
	if err != nil {
		return nil, err
	}
	defer srv.Stop()
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
	conns, err := dialAll(ctx, srv.Addr, cfg.Clients)
	defer closeAll(conns)
	if err != nil {
		return nil, err
	}
	clients := pass.Start(ctx, len(conns), 0, func(_ context.Context, w int, i *int) error {
		if err := raw.send(conns[w], w, *i, clock, cfg.answered); err != nil {
			return fmt.Errorf("request %d to nginx at %s: %w", *i+1, srv.Addr, err)
		}
		return nil
	})
	// Closing the connections unblocks a client waiting for an answer.
	stop := context.AfterFunc(clients.Context(), func() { closeAll(conns) })
	defer stop()
	dispatch(clients, cfg, clock, raw)
	if _, err := clients.Finish(nil); err != nil && ctx.Err() == nil {
		return nil, err // a client's
	}
	select {
	case <-srv.Exited():
		return nil, fmt.Errorf("nginx exited during the replay: %s", strings.TrimSpace(srv.errorLog()))
	default:
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if raw.Logged, err = waitForLog(srv, len(tr.T)); err != nil {
		return nil, err
	}
	return raw, nil
}

// check validates the configuration and returns the rate nginx is
// configured with.
func (c Config) check() (rate string, err error) {
	if c.Clients < 1 || c.SpeedNum < 1 || c.SpeedDen < 1 {
		return "", errors.New("live replay: clients and speed must be positive")
	}
	return c.Scaled()
}

// start starts nginx at the scaled rate, with a zone for keys keys, and
// tells Started and Log of it.
func (c Config) start(ctx context.Context, rate string, keys int) (*Server, error) {
	lim := Limit{Rate: rate, Burst: c.burst(), NoDelay: c.NoDelay, Delay: c.Delay, ZoneBytes: int64(keys) * 512}
	srv, err := startOn(ctx, c.Binary, c.Listen, lim)
	if err != nil {
		return nil, err
	}
	if c.Started != nil {
		c.Started(srv)
	}
	if c.Log != nil {
		c.Log("started %s at %s (rate=%s burst=%d)", srv.Version, srv.Addr, rate, lim.Burst)
	}
	return srv, nil
}

// send sends request i on the client w's connection c and records when it
// went and its answer came, on nginx's clock, and the status; answered,
// if set, is told of the answer.
func (raw *Raw) send(c *conn, w, i int, clock monoClock, answered func(int)) error {
	s := &raw.Sent[i]
	s.Conn = w
	s.Send = clock.now()
	status, err := c.do(i, raw.Trace.Key[i])
	s.Recv = clock.now()
	if err != nil {
		return err
	}
	s.Status = status
	if answered != nil {
		answered(i)
	}
	return nil
}

// dispatch hands the requests to the clients, each at its due time, until
// the last or the pass's end, and records the due times in raw.
//
// The replay starts on a millisecond boundary of nginx's clock, so that
// the trace's scaled times fall in nginx's milliseconds as they fall in
// the model's (whose clock's phase is 0). nginx decides on whole
// milliseconds of its clock: a request is sent at the start of the
// millisecond it is due in, which leaves it the most time to be decided
// within that millisecond. A timer wakes up to a millisecond late: the
// dispatcher sleeps until shortly before the due time (spin), then spins.
func dispatch(clients *pass.Clients[int], cfg Config, clock monoClock, raw *Raw) {
	done := clients.Context().Done()
	start := time.Now().Add(20 * time.Millisecond)
	start = start.Add(-time.Duration(clock.at(start) % 1e6))
	raw.Start = clock.at(start)
	first := raw.Trace.T[0]
	timer := time.NewTimer(0)
	defer timer.Stop()
	for i, t := range raw.Trace.T {
		due := start.Add(cfg.offset(t, first).Truncate(time.Millisecond))
		raw.Sent[i].Due = clock.at(due)
		if d := time.Until(due) - spin; d > 0 {
			timer.Reset(d)
			select {
			case <-timer.C:
			case <-done:
				return
			}
		}
		for time.Now().Before(due) {
		}
		if !clients.Send(i) {
			return
		}
	}
}

// waitForLog reads nginx's access log once it holds the n requests: nginx
// writes a request's line after its answer, so the last lines may come
// shortly after the last answer (up to 5 s are given).
func waitForLog(srv *Server, n int) ([]Logged, error) {
	deadline := time.Now().Add(5 * time.Second)
	for {
		logged, err := ParseLog(srv.AccessLog())
		if err != nil {
			return nil, err
		}
		if len(logged) >= n || time.Now().After(deadline) {
			if len(logged) != n {
				return nil, fmt.Errorf("nginx logged %d requests of %d", len(logged), n)
			}
			return logged, nil
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// spin is how long before a request's due time the dispatcher stops
// sleeping and waits in a loop.
const spin = 1500 * time.Microsecond

// startOn starts nginx on listen (loopback only), or a free port.
func startOn(ctx context.Context, binary, listen string, l Limit) (*Server, error) {
	if listen == "" {
		return Start(ctx, binary, l)
	}
	ip, p, err := listenAddr(listen)
	if err != nil {
		return nil, err
	}
	return startAt(ctx, binary, ip, p, l)
}
