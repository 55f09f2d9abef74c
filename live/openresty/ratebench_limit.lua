-- Written by ratebench live lua-resty-limit-traffic: the handler that
-- replays a trace through resty.limit.req or resty.limit.count, on the
-- trace's clock.
--
-- nginx's cached time (ngx_cached_time, which ngx_timeofday() returns) is
-- what ngx.now() and the shared dict's expiry read. The handler sets its
-- seconds and milliseconds to the request's trace time (the query's s and
-- ms) before calling incoming: both modules then decide on the trace's
-- clock. nginx sets its own time again when its event loop next wakes.
local ffi = require "ffi"

ffi.cdef [[
typedef struct {
    long            sec;    /* time_t */
    unsigned long   msec;   /* ngx_uint_t */
    long            gmtoff; /* ngx_int_t */
} ratebench_ngx_time_t;
extern ratebench_ngx_time_t *ngx_cached_time;
]]

local C = ffi.C
local _M = {}
local lim, module_name

-- init makes the limiter, new(dict, a, b), of the module name ("req" or
-- "count").
function _M.init(name, dict, a, b)
    local mod = require("resty.limit." .. name)
    local l, err = mod.new(dict, a, b)
    if not l then
        error("resty.limit." .. name .. ".new: " .. tostring(err))
    end
    lim, module_name = l, name
end

-- config answers what the limiter keeps, as doubles written exactly, and
-- the versions: the module's and lua-nginx-module's.
function _M.config()
    local a, b
    if module_name == "req" then
        a, b = lim.rate, lim.burst
    else
        a, b = lim.limit, lim.window
    end
    local mod = require("resty.limit." .. module_name)
    ngx.say(string.format("%s %.17g %.17g %s %d", module_name, a, b,
                          mod._VERSION, ngx.config.ngx_lua_version))
end

-- decide sets nginx's clock to the trace's time, calls incoming(key, true)
-- and answers 200 (admitted) or 429 (rejected), with the ngx.now() the
-- module read in X-Ratebench-Now.
function _M.decide()
    local args = ngx.req.get_uri_args()
    local tp = C.ngx_cached_time
    tp.sec = tonumber(args.s)
    tp.msec = tonumber(args.ms)
    local key = ngx.req.get_headers()["X-Ratebench-Key"]
    local delay, err = lim:incoming(key, true)
    ngx.header["X-Ratebench-Now"] = string.format("%.17g", ngx.now())
    if not delay then
        if err ~= "rejected" then
            error("incoming: " .. tostring(err))
        end
        ngx.status = 429
    else
        ngx.status = 200
    end
    ngx.say(tostring(err))
end

return _M
