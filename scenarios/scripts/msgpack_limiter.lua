-- A decaying-sum limiter whose whole state is one MessagePack string, in the shape of
-- liner_add_value_ist.lua in github.com/dong77/tida: the key holds cmsgpack.pack({ts, sum}); a
-- request scales the sum down by the part of the window that passed since ts, is refused when
-- its cost would take the sum over the limit, and otherwise adds its cost and packs the state
-- back with the window as TTL.
-- KEYS[1]: the state. ARGV[1]: window (ms). ARGV[2]: now (ms). ARGV[3]: cost. ARGV[4]: limit.
-- Returns the new sum (an integer in the reply: Redis truncates it), or -1 when refused.
local window = tonumber(ARGV[1])
local now = tonumber(ARGV[2])
local cost = tonumber(ARGV[3])
local limit = tonumber(ARGV[4])
local sum = 0
local raw = redis.call('GET', KEYS[1])
if raw then
  local state = cmsgpack.unpack(raw)
  local elapsed = math.min(window, now - state[1])
  sum = math.max(0, state[2] * (window - elapsed) / window)
end
if sum + cost > limit then
  return -1
end
sum = sum + cost
redis.call('SET', KEYS[1], cmsgpack.pack({now, sum}), 'PX', window)
return sum
