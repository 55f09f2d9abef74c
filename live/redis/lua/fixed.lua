-- fixed: the fixed window (SPEC 3.5), one key per window.
-- KEYS[1]  the client's key prefix; window w(t) is counted in KEYS[1]..':'..w
-- ARGV     t (ns, rebased), cost, L, W (ns), ttl (ms)
-- Admits iff curr + cost <= L.
local t, cost, L, W = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local k = KEYS[1] .. ':' .. int(math.floor(t / W))
local curr = tonumber(redis.call('GET', k) or '0')
if curr + cost > L then return 0 end
redis.call('INCRBY', k, ARGV[2])
redis.call('PEXPIRE', k, ARGV[5])
return 1
