// Package openresty is the live target of lua-resty-limit-traffic, the
// rate limiting modules of OpenResty (which Kong and APISIX build on):
// resty.limit.req, or resty.limit.count with the variant module=count,
// run by a real nginx with Debian's lua-nginx-module, whose decisions the
// replay sets beside the product's model (algorithms/products'
// lua-resty-limit-traffic) and the exact log's.
//
// # What it starts
//
// Start starts one nginx process of its own (live/nginx's StartConf: no
// master, one worker loop, on a free port of 127.0.0.1), which loads the
// Lua modules from where Debian's libnginx-mod-http-lua installs them
// (Modules), and from its own directory's lua/ the module's files (Files,
// of the installed Release found under LibDirs, each checked against its
// SHA-256) and the handler ratebench_limit.lua (embedded). Its
// configuration (ConfFile) has one lua_shared_dict, Dict, sized for the
// trace's keys so that it never fills (a full dict drops its least
// recently used nodes), and makes the limiter once, at start, as its
// documentation does: req's new(dict, L/W per second, L-1), count's
// new(dict, L, W in seconds). /config answers what the limiter keeps
// (req's rate and burst times 1000, count's limit and window), which
// Start checks against the model's doubles. nginx is stopped when the
// session closes, and the kernel kills it if the harness dies.
//
// # The clock: driven
//
// Both modules read nginx's cached time: req through ngx.now() (sec +
// msec/1000.0, times 1000), count through the shared dict, whose incr
// sets and tests expiries in sec*1000 + msec. That time is
// ngx_cached_time, a pointer nginx exports, which ngx_time_update points
// at a fresh slot each time the event loop wakes. The handler sets the
// slot's sec and msec to the request's trace time (the query's s and ms),
// through LuaJIT's FFI, before it calls incoming(key, true); nothing
// updates the time again before the module has decided. Both modules thus
// decide on the trace's clock (the trace's time read as Unix time, not
// before 1970), and the replay is serial and exact: one request at a time
// in the trace's order, each answered 200 or 429 with the ngx.now() the
// module read (NowHeader), which Decide checks is the trace's. (Replacing
// ngx.now in Lua before the module is loaded, which req keeps as a local,
// would drive req alone: count's expiry is the dict's, in C.)
//
// # How it is compared
//
// The model is lua-resty-limit-traffic (req) or
// lua-resty-limit-traffic:module=count:zone (count, with the dict's sweep
// of expired nodes from its least recently used end, which decides
// whether a window keeps its end millisecond), fed the trace's times: they
// must agree on every request.
package openresty
