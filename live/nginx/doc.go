// Package nginx is the live target of nginx's limit_req: a real nginx
// that the replay starts, whose decisions it sets beside its model's and
// the exact log's.
//
// # What it starts
//
// Start starts one nginx process of its own (StartServer: master_process
// off, daemon off, one worker loop) on a free port of 127.0.0.1 (or the
// loopback address Options.Addr names), its configuration, logs and
// temporary files in a fresh directory removed by Stop. The
// configuration (ConfFile) has one limit_req zone keyed by the KeyHeader
// request header (the trace's key as a dense id), at the scaled rate and
// the variant's burst (default L-1, a bucket of L), with nodelay or
// delay=N, refusing with 429, and a location that answers 200 with an
// empty static file, in the content phase, after limit_req. Its access
// log writes a line per request (logFormat): the IDHeader that maps the
// line back to its request, the status, $msec and the connection's number
// and $connection_time. nginx is stopped when the session closes, whether
// the replay ended, failed or was cancelled, and the kernel kills it if
// the harness dies.
//
// # The clock nginx decides on
//
// limit_req reads ngx_current_msec: whole milliseconds of CLOCK_MONOTONIC
// on Linux, taken when the event loop wakes, not when a request is read.
// Each client records when its request was sent and answered on the same
// clock (live.MonoClock), and Settle reconstructs nginx's clock at each
// decision from the log: per connection, ngx_current_msec is the
// connection's start plus $connection_time, and the start is the offset
// that puts the most decisions inside their request's send..answer
// bracket (the result's decision clock counts those outside it). $msec is
// the wall clock of the same moment, kept as a second view.
//
// # How the replay is timed
//
// A trace time t is sent at (t - first)/S after the start, S the speed,
// and nginx's rate is the rule's L/W times S (Scaled: a whole number of
// requests per second or per minute, which only some speeds give;
// SpeedStep names them), so that its decisions are the ones the rule
// takes on the trace's own times: the model runs under the trace's rule,
// its spec holding the scaled rate (Target.Scale). The target's Tick is a
// millisecond: live.Run starts the replay on a millisecond boundary of
// nginx's clock and sends each request at the start of the millisecond it
// is due in, to the first free one of the clients, each on a keep-alive
// connection of its own (conn).
//
// # How it is compared
//
// live.Run drives nginx's model (ModelSpec: algorithms' nginx with the
// zone's expiry of idle keys, at the scaled rate) in nginx's order of
// decision (the log's) on nginx's reconstructed clock, on which they must
// agree but for the classes listed, and on the trace's times scaled; and
// the exact sliding-window log on the trace's own times and rule.
// Analyze adds the model fed $msec, and classifies each disagreement with
// the model by its likely cause (a decision outside its bracket, a
// millisecond boundary, reordering among connections, an earlier
// disagreement of its key, lateness).
package nginx
