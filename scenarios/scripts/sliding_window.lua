-- A sliding window counter with two keys, in the shape a Python rate-limit library ships: the
-- current window's counter lives two windows; once less than one window of it is left, RENAME
-- makes it the previous window's (its TTL moves with it) and a fresh counter starts. The count is
-- the previous counter weighted by the part of it still in the window, plus the current one.
-- KEYS[1]: previous counter, KEYS[2]: current counter (one hash tag).
-- ARGV[1]: limit, ARGV[2]: window (ms), ARGV[3]: cost. Returns {allowed, weighted count}.
local limit, window, cost = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local current_ttl = redis.call('PTTL', KEYS[2])
if current_ttl > 0 and current_ttl < window then
  redis.call('RENAME', KEYS[2], KEYS[1])
  redis.call('SET', KEYS[2], 0, 'PX', current_ttl + window)
end
local previous = tonumber(redis.call('GET', KEYS[1]) or '0')
local previous_ttl = math.max(redis.call('PTTL', KEYS[1]), 0)
local current = tonumber(redis.call('GET', KEYS[2]) or '0')
local weighted = math.floor(previous * previous_ttl / window) + current
if weighted + cost > limit then
  return {0, weighted}
end
if redis.call('EXISTS', KEYS[2]) == 1 then
  redis.call('INCRBY', KEYS[2], cost)
else
  redis.call('SET', KEYS[2], cost, 'PX', window * 2)
end
return {1, weighted + cost}
