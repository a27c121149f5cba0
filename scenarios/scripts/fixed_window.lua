-- Fixed window rate limiter, as many production services write it.
--
-- KEYS[1]  the counter for this key and window, e.g. rl:user:42:29167200
-- ARGV[1]  the limit (requests per window)
-- ARGV[2]  the window length in milliseconds (the counter's TTL)
--
-- Returns 1 when the request is allowed, 0 when it is over the limit.
-- INCR and PEXPIRE run in one script, so a counter never lives without a TTL.
local current = redis.call('INCR', KEYS[1])
if current == 1 then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
if current > tonumber(ARGV[1]) then
  return 0
end
return 1
