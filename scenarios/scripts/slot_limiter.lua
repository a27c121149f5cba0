-- A slot-taking concurrency limiter, in the shape PHP frameworks ship: each KEY is one slot; the
-- first free one is taken for a lease and its name returned, or nil when every slot is taken
-- (measured with allow_if "reply != nil"). Slots are never released here: each lease ends when
-- its key expires.
-- KEYS: the slots (one hash tag). ARGV[1]: the owner's name, ARGV[2]: the lease (ms).
for index, value in pairs(redis.call('MGET', unpack(KEYS))) do
  if not value then
    redis.call('SET', KEYS[index], ARGV[1], 'PX', ARGV[2])
    return ARGV[1] .. index
  end
end
