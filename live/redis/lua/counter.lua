-- counter: the sliding window counter (SPEC 3.2) on two fixed-window keys.
-- KEYS[1]  the client's key prefix; window w(t) is counted in KEYS[1]..':'..w
-- ARGV     t (ns, rebased), cost, L, W (ns), ttl (ms)
-- Admits iff prev*(W-e) + (curr+cost)*W <= L*W, that is
-- prev*(W-e) <= (L-curr-cost)*W, compared exactly by le.
local t, cost, L, W = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local w = math.floor(t / W)
local e = t - w * W
local ck = KEYS[1] .. ':' .. int(w)
local prev = tonumber(redis.call('GET', KEYS[1] .. ':' .. int(w - 1)) or '0')
local curr = tonumber(redis.call('GET', ck) or '0')
if prev >= 4503599627370496 or curr >= 4503599627370496 then
  return redis.error_reply('ratebench counter script: count above 2^52')
end
local room = L - curr - cost
if room < 0 then return 0 end
if not le(prev, W - e, room, W) then return 0 end
redis.call('INCRBY', ck, ARGV[2])
redis.call('PEXPIRE', ck, ARGV[5])
return 1
