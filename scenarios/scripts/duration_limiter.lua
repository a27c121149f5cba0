-- A duration limiter kept in one hash, in the shape PHP frameworks ship: HMSET opens a period
-- (start, end, count), HINCRBY counts inside it; a request after the period's end opens the next.
-- KEYS[1]: the hash. ARGV[1]: now (ms), ARGV[2]: the period (ms), ARGV[3]: requests per period.
-- Returns {acquired (1 or 0), end of the period, remaining}.
local now, period, max = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])

local function open_period()
  redis.call('HMSET', KEYS[1], 'start', now, 'end', now + period, 'count', 1)
  redis.call('PEXPIRE', KEYS[1], period * 2)
  return {1, now + period, max - 1}
end

if redis.call('EXISTS', KEYS[1]) == 0 then
  return open_period()
end
local bounds = redis.call('HMGET', KEYS[1], 'start', 'end')
if now >= tonumber(bounds[1]) and now <= tonumber(bounds[2]) then
  local count = redis.call('HINCRBY', KEYS[1], 'count', 1)
  return {count <= max and 1 or 0, tonumber(bounds[2]), math.max(max - count, 0)}
end
return open_period()
