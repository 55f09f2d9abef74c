// Package livenginx replays a trace through a real nginx and sets its
// limit_req decisions beside its model's and the exact log's.
//
// # What it starts
//
// Replay starts one nginx process of its own (Start: master_process off,
// daemon off, one worker loop) on a free port of 127.0.0.1 (or a loopback
// address the caller names), its configuration, logs and temporary files
// in a fresh directory removed by Stop. The configuration (ConfFile) has
// one limit_req zone keyed by the KeyHeader request header (the trace's
// key as a dense id), at the scaled rate and the configured burst, with
// nodelay or delay=N, refusing with 429, and a location that answers 200
// with an empty static file, in the content phase, after limit_req. Its
// access log writes a line per request (logFormat): the IDHeader that
// maps the line back to its request, the status, $msec and the
// connection's number and $connection_time. nginx is stopped before
// Replay returns, whether the replay ended, failed or was cancelled, and
// the kernel kills it if the harness dies.
//
// # The clock nginx decides on
//
// limit_req reads ngx_current_msec: whole milliseconds of CLOCK_MONOTONIC
// on Linux, taken when the event loop wakes, not when a request is read.
// The client records when each request was due, sent and answered on the
// same clock (monoClock), and Analyze reconstructs nginx's clock at each
// decision from the log: per connection, ngx_current_msec is the
// connection's start plus $connection_time, and the start is the offset
// that puts the most decisions inside their request's send..answer
// bracket (ClockInfo counts those outside it). $msec is the wall clock
// of the same moment, kept as a second view.
//
// # How the replay is timed
//
// A trace time t is sent at (t - first)/S after the start, S the speed
// (SpeedNum/SpeedDen), and nginx's rate is the rule's L/W times S (Scaled:
// a whole number of requests per second or per minute, which only some
// speeds give; SpeedStep names them), so that its decisions are the ones
// the rule takes on the trace's own times. The replay starts on a
// millisecond boundary of nginx's clock and each request is sent at the
// start of the millisecond it is due in; the dispatcher sleeps until
// shortly before, then spins, and hands it to the first free one of
// Clients keep-alive connections, each sending one request and reading
// its answer before taking the next (a pass of the concurrent clients of
// internal/pass: the first error, nginx's exit or the caller's
// cancellation ends it). Lateness and latency are reported (Timing).
//
// # How it is compared
//
// Analyze drives nginx's model (ModelSpec: algorithms' nginx with the
// zone's expiry of idle keys, at the scaled rate) in nginx's order of
// decision (the log's) with three clocks: nginx's reconstructed clock
// (on which they must agree but for the classes listed), $msec, and the
// trace's times scaled; and the exact sliding-window log on the trace's
// own times and rule. Each disagreement with the model is classified by
// its likely cause (a decision outside its bracket, a millisecond
// boundary, reordering among connections, an earlier disagreement of its
// key, lateness), and each disagreement with the log as nginx's algorithm
// (its model on the trace's times decides as nginx did) or the replay's
// timing (its model agrees with the log).
package livenginx
