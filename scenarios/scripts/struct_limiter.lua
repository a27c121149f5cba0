-- A leaky bucket whose state is one binary string, in the shape of a Python library's script
-- limiter (redbucket, nickgaya/redbucket: its default codec stores (timestamp, level) as
-- struct.pack('<dd', ...) and reads it back with struct.unpack): the level drains at
-- limit / window per ms, a request adds 1, and one that would overflow the bucket is refused
-- without touching the state.
-- KEYS[1]: the state. ARGV[1]: limit. ARGV[2]: window (ms). ARGV[3]: now (ms).
-- Returns 1 when the request is allowed, 0 when not.
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local now = tonumber(ARGV[3])
local rate = limit / window
local t0, level = now, 0
local raw = redis.call('GET', KEYS[1])
-- A value of another shape (not 16 bytes) starts a new bucket.
if raw and #raw == struct.size('<dd') then
  t0, level = struct.unpack('<dd', raw)
end
level = math.max(level - (now - t0) * rate, 0) + 1
if level > limit then
  return 0
end
-- Drained in one window: the key expires then, in whole seconds as SETEX takes them.
redis.call('SETEX', KEYS[1], math.ceil(window / 1000), struct.pack('<dd', now, level))
return 1
