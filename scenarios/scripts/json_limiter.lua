-- A limiter whose options arrive as JSON and whose state is stored as JSON, in the shape Node
-- limiters ship: cjson.decode reads both, cjson.encode writes the state back, bit.band keeps the
-- stored count in 31 bits.
-- KEYS[1]: the state. ARGV[1]: options, {"limit": N, "window": ms}. ARGV[2]: now (ms).
-- Returns 1 when the request is allowed, 0 when not.
local options = cjson.decode(ARGV[1])
local now = tonumber(ARGV[2])
local raw = redis.call('GET', KEYS[1])
local state = raw and cjson.decode(raw)
if not state or now >= state.reset then
  state = {count = 0, reset = now + options.window}
end
state.count = bit.band(state.count + 1, 0x7fffffff)
redis.call('SET', KEYS[1], cjson.encode(state), 'PX', state.reset - now)
if state.count <= options.limit then
  return 1
end
return 0
