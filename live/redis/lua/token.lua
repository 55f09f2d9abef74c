-- token: the token bucket with lazy refill (SPEC 3.6), starting full.
-- KEYS[1]  the client's hash: v = tokens*W' (an integer), t = last refill
-- ARGV     t (ns, rebased), cost, B, W', L', min ttl (ms)
-- With g = gcd(L, W), W' = W/g and L' = L/g, the bucket refills L'/W'
-- tokens per ns, so v = tokens*W' refills L' per ns, up to B*W' (< 2^52,
-- checked by the Go side). Admits iff v >= cost*W'; admitting takes
-- cost*W'. A rejection leaves the hash alone (refilling later over the
-- whole gap gives the same state).
local t, cost, B, Wr, Lr = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local cap = B * Wr
local st = redis.call('HMGET', KEYS[1], 'v', 't')
local v, last = cap, t
if st[1] then v, last = tonumber(st[1]), tonumber(st[2]) end
if t > last then
  local need = cap - v
  -- dt*L' >= need iff dt > floor(need/L') or dt*L' = need; below that
  -- dt*L' <= need < 2^52 is exact.
  if need > 0 then
    if t - last > math.floor(need / Lr) then v = cap else v = v + (t - last) * Lr end
  end
  last = t
end
if cost > B or v < cost * Wr then return 0 end
v = v - cost * Wr
redis.call('HSET', KEYS[1], 'v', int(v), 't', int(last))
-- expire once full again: ceil((cap-v)/L') ns, in ms, at least the minimum
local ttl = math.max(math.ceil((cap - v) / Lr / 1e6), tonumber(ARGV[6]))
redis.call('PEXPIRE', KEYS[1], int(ttl))
return 1
