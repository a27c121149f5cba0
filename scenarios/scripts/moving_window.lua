-- A moving window log in a list, newest first, in the shape a Python rate-limit library ships:
-- LINDEX reads the entry `limit` places back; if it is still inside the window the request is
-- refused, otherwise its time is pushed and the list cut to `limit` entries.
-- KEYS[1]: the list. ARGV[1]: limit, ARGV[2]: window (ms), ARGV[3]: now (ms), ARGV[4]: cost.
local limit, window, now, cost =
  tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local oldest = redis.call('LINDEX', KEYS[1], limit - cost)
if oldest and tonumber(oldest) >= now - window then
  return 0
end
local times = {}
for i = 1, cost do times[i] = now end
redis.call('LPUSH', KEYS[1], unpack(times))
redis.call('LTRIM', KEYS[1], 0, limit - 1)
redis.call('PEXPIRE', KEYS[1], window)
return 1
