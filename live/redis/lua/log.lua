-- log: the sliding window log (SPEC 3.1) on a sorted set, cost 1 only.
-- KEYS[1]  the client's sorted set: one member per admitted request, scored
--          by its time
-- ARGV     t (ns, rebased), cost (must be 1), L, W (ns), member (unique per
--          request), ttl (ms)
-- Returns 1 (admit) or 0 (reject). The window is (t-W, t]: a request exactly
-- W old has expired.
local t, cost, L, W = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
if cost ~= 1 then return redis.error_reply('ratebench log script: cost must be 1') end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', int(t - W))
if redis.call('ZCARD', KEYS[1]) + cost > L then return 0 end
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[5])
redis.call('PEXPIRE', KEYS[1], ARGV[6])
return 1
