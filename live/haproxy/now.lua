-- Written by ratebench live haproxy: the sample fetch lua.now_ms, HAProxy's
-- internal clock (core.now(): the "now" whose milliseconds are now_ms, the
-- ticks the stick table's rate counters read) in whole milliseconds.
core.register_fetches("now_ms", function(txn)
    local n = core.now()
    return n.sec * 1000 + n.usec // 1000
end)
