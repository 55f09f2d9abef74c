package nginx

import (
	"context"
	"fmt"
	"math/big"
	"net/http"
	"strings"
	"time"

	"ratebench/algorithms"
	"ratebench/algorithms/products"
	"ratebench/live"
)

// Requires says what to install.
const Requires = "nginx, the Debian package nginx (apt-get install -y nginx)"

func init() { live.Register(Target) }

// Target is nginx's live target.
var Target = live.Target{
	Name:     "nginx",
	About:    "nginx's limit_req (a zone keyed by a request header, refusing with 429), one nginx process on a loopback port, on its own millisecond clock",
	Requires: Requires,
	Clients:  true,
	Tick:     time.Millisecond,
	Variants: []string{"", "burst=N", "delay=N", "burst=N:delay=N"},
	Version:  Version,
	Scale:    func(r algorithms.Rule, _ *big.Rat) (algorithms.Rule, error) { return r, nil },
	Model:    Model,
	Start:    Start,
}

// Version returns what nginx -v prints, "nginx/1.22.1".
func Version(ctx context.Context, o live.Options) (string, error) {
	path, err := LookPath(o.Binary)
	if err != nil {
		return "", err
	}
	return nginxVersion(ctx, path)
}

// Model is the spec of the model of the nginx a replay configures for
// the trace's rule r at o.Speed (nginx's rate is a rate, which the spec
// holds at the speed: the model runs under r itself), and refuses a
// listen address off the loopback.
func Model(r algorithms.Rule, o live.Options) (string, error) {
	if o.Addr != "" {
		if _, _, err := listenAddr(o.Addr); err != nil {
			return "", err
		}
	}
	l, err := limitOf(r, o)
	if err != nil {
		return "", err
	}
	return ModelSpec(l.Rate, l.Burst), nil
}

// ModelSpec is the model of the nginx a replay configures: the scaled
// rate, the burst, and the zone's expiry of idle nodes (which real nginx
// always does).
func ModelSpec(rate string, burst int64) string {
	return fmt.Sprintf("nginx:rate=%s:burst=%d:zone", rate, burst)
}

// Scaled returns the rate nginx is configured with for rule r at speed
// s: L*s/W, a whole number of requests per second or per minute, which
// only some speeds give (SpeedStep).
func Scaled(r algorithms.Rule, s *big.Rat) (rate string, err error) {
	if s == nil {
		s = big.NewRat(1, 1)
	}
	q := new(big.Rat).Mul(big.NewRat(r.L, r.W), s)
	if !q.Num().IsInt64() || !q.Denom().IsInt64() {
		return "", fmt.Errorf("rule %s at speed %s: the rate is out of range", r, s.RatString())
	}
	rate, err = products.NginxRate(algorithms.Rule{L: q.Num().Int64(), W: q.Denom().Int64()})
	if err != nil {
		return "", fmt.Errorf("rule %s at speed %s is %s requests per ns, which nginx cannot express (its rate is a whole number of requests per second or per minute); the speeds that work are the multiples of %s", r, s.RatString(), q.RatString(), SpeedStep(r))
	}
	return rate, nil
}

// SpeedStep returns the smallest speed at which nginx can express rule
// r's rate, W/(L*1m) in lowest terms: every speed that works is a whole
// multiple of it.
func SpeedStep(r algorithms.Rule) string {
	return new(big.Rat).SetFrac(big.NewInt(r.W), new(big.Int).Mul(big.NewInt(r.L), big.NewInt(60e9))).RatString()
}

// Start starts nginx for the trace's rule r at o.Speed and o.Variant,
// with a zone for tr's keys, on o.Addr or a free loopback port, and opens
// a keep-alive connection for each of o's clients.
func Start(ctx context.Context, r algorithms.Rule, tr *live.Trace, o live.Options) (live.Session, error) {
	l, err := limitOf(r, o)
	if err != nil {
		return nil, err
	}
	l.ZoneBytes = int64(tr.Keys) * 512
	clock, err := live.NewMonoClock()
	if err != nil {
		return nil, err
	}
	srv, err := startOn(ctx, o.Binary, o.Addr, l)
	if err != nil {
		return nil, err
	}
	o.Logf("started %s at %s (rate=%s burst=%d)", srv.Version, srv.Addr, l.Rate, l.Burst)
	s := &session{srv: srv, clock: clock, limit: l, sent: make([]sent, len(tr.T))}
	if s.conns, err = dialAll(ctx, srv.Addr, max(o.Clients, 1)); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// sent is what a client saw of one request: when it was sent and
// answered, on the monotonic clock nginx reads, in ns, the status, and the
// client's connection.
type sent struct {
	Send, Recv int64
	Status     int
	Conn       int
}

// session is one nginx and a keep-alive connection per client.
type session struct {
	srv   *Server
	conns []*conn
	clock live.MonoClock
	limit Limit
	sent  []sent
	// What Settle reads of the access log: nginx's clock at each decision
	// (ms, reconstructed), $msec (ns), and how the clocks relate.
	nginxMS []int64
	wall    []int64
	ci      *clockInfo
}

// Decide sends q on its client's connection and reads nginx's answer,
// recording when it went and came on nginx's clock; its time and order
// come from the access log (Settle).
func (s *session) Decide(ctx context.Context, q live.Request) (live.Decision, error) {
	c := s.conns[q.Client]
	// Ctrl-C, or another client's error, unblocks one waiting for its
	// answer.
	stop := context.AfterFunc(ctx, func() { c.nc.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	rec := &s.sent[q.Index]
	rec.Conn = q.Client
	rec.Send = s.clock.Now()
	status, err := c.do(q.Index, q.ID)
	rec.Recv = s.clock.Now()
	if err != nil {
		select {
		case <-s.srv.Exited():
			return live.Decision{}, fmt.Errorf("nginx exited during the replay: %s", strings.TrimSpace(s.srv.errorLog()))
		default:
		}
		if ctx.Err() != nil {
			return live.Decision{}, ctx.Err()
		}
		return live.Decision{}, fmt.Errorf("nginx at %s: %w", s.srv.Addr, err)
	}
	rec.Status = status
	return live.Decision{Admit: status == http.StatusOK}, nil
}

// Close closes the connections and stops nginx.
func (s *session) Close() error {
	closeAll(s.conns)
	return s.srv.Stop()
}
