-- Token bucket rate limiter in the style of API gateways' request rate limiters: two keys in one
-- hash slot (rl:{user:42}:tokens and rl:{user:42}:ts, the lesson's hash tags), the caller's clock
-- in ARGV, and a reply that says both whether the request passed and how many tokens are left.
--
-- KEYS[1]  tokens left
-- KEYS[2]  time of the last refill, in milliseconds
-- ARGV[1]  refill rate, tokens per second
-- ARGV[2]  capacity (the largest burst)
-- ARGV[3]  now, Unix time in milliseconds
-- ARGV[4]  tokens this request costs
--
-- Returns {allowed (1 or 0), tokens left (rounded down)}.
local rate = tonumber(ARGV[1])
local capacity = tonumber(ARGV[2])
local now_ms = tonumber(ARGV[3])
local cost = tonumber(ARGV[4])

local tokens = tonumber(redis.call('GET', KEYS[1]))
if tokens == nil then
  tokens = capacity
end
local last_ms = tonumber(redis.call('GET', KEYS[2]))
if last_ms == nil then
  last_ms = now_ms
end

local elapsed_ms = math.max(0, now_ms - last_ms)
tokens = math.min(capacity, tokens + elapsed_ms * rate / 1000)

local allowed = 0
if tokens >= cost then
  tokens = tokens - cost
  allowed = 1
end

-- Both keys live as long as an empty bucket takes to fill up, and at least a second.
local ttl_ms = math.max(1000, math.ceil(capacity / rate * 1000))
redis.call('SET', KEYS[1], tokens, 'PX', ttl_ms)
redis.call('SET', KEYS[2], math.max(now_ms, last_ms), 'PX', ttl_ms)
return {allowed, tokens}
