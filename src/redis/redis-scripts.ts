// The Lua scripts of the Redis store. Each touches keys of one hash tag only, so each runs
// on one node of a cluster; each reads the server's clock (TIME), so leases and expiry agree
// across workers whose clocks do not. Milliseconds are written with %.0f: a Lua number would
// otherwise be written in exponent form past 14 digits.

/** Compare-and-append to a run's log. KEYS: log, run hash. ARGV: expected length, ttl ms, stop reason | '', ended '1' | '', entries… */
export const APPEND_RUN_EVENTS = `
local length = redis.call('LLEN', KEYS[1])
local expected = tonumber(ARGV[1])
if length ~= expected then
  if length < expected then
    return {0, length, 1, redis.call('LRANGE', KEYS[1], 0, -1)}
  end
  return {0, length, 0, redis.call('LRANGE', KEYS[1], expected, -1)}
end
local count = #ARGV - 4
-- unpack() is limited by Lua's C stack (8000): push in slices.
local i = 5
while i <= #ARGV do
  local last = math.min(i + 999, #ARGV)
  redis.call('RPUSH', KEYS[1], unpack(ARGV, i, last))
  i = last + 1
end
local t = redis.call('TIME')
local now = string.format('%.0f', tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000))
-- Only what changed: 'created' once, 'stop' and 'ended' when given (the entry count is LLEN).
-- Each HSET is server time on every call (bench/redis.ts: 10.0 -> 6.4 us per append).
if expected == 0 then redis.call('HSETNX', KEYS[2], 'created', now) end
redis.call('HSET', KEYS[2], 'updated', now)
if ARGV[3] ~= '' then redis.call('HSET', KEYS[2], 'stop', ARGV[3]) end
if ARGV[4] ~= '' then redis.call('HSET', KEYS[2], 'ended', '1') end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('PEXPIRE', KEYS[2], ARGV[2])
return {1, length + count}
`;

const NOW = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
`;

/** KEYS: business key hash. ARGV: owner, lease ms, ttl ms, run id. */
export const CLAIM_BUSINESS_KEY = `${NOW}
local state = redis.call('HGET', KEYS[1], 'state')
if not state then
  redis.call('HSET', KEYS[1], 'state', 'pending', 'owner', ARGV[1], 'claimed', string.format('%.0f', now),
    'lease', string.format('%.0f', now + tonumber(ARGV[2])), 'run', ARGV[4])
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
  return {'claimed'}
end
local f = redis.call('HMGET', KEYS[1], 'owner', 'claimed', 'lease', 'run', 'at', 'result')
if state == 'done' then return {'done', f[4] or '', f[5] or '0', f[6] or ''} end
if tonumber(f[3] or '0') > now then return {'pending', f[1] or '', f[2] or '0', f[4] or ''} end
return {'expired', f[1] or '', f[2] or '0', f[4] or ''}
`;

/** KEYS: business key hash. ARGV: previous owner, owner, lease ms, run id. */
export const TAKE_OVER_BUSINESS_KEY = `${NOW}
if redis.call('HGET', KEYS[1], 'state') ~= 'pending' or redis.call('HGET', KEYS[1], 'owner') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'owner', ARGV[2], 'claimed', string.format('%.0f', now),
  'lease', string.format('%.0f', now + tonumber(ARGV[3])), 'run', ARGV[4])
return 1
`;

/** KEYS: business key hash. ARGV: owner | '' (settle whoever held it), result fingerprint | '', ttl ms, run id. */
export const COMPLETE_BUSINESS_KEY = `${NOW}
local state = redis.call('HGET', KEYS[1], 'state')
if ARGV[1] ~= '' then
  if state ~= 'pending' or redis.call('HGET', KEYS[1], 'owner') ~= ARGV[1] then return 0 end
end
if not state then redis.call('HSET', KEYS[1], 'run', ARGV[4]) end
redis.call('HSET', KEYS[1], 'state', 'done', 'at', string.format('%.0f', now), 'result', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
`;

/** KEYS: business key hash. ARGV: owner. */
export const RELEASE_BUSINESS_KEY = `
if redis.call('HGET', KEYS[1], 'state') == 'pending' and redis.call('HGET', KEYS[1], 'owner') == ARGV[1] then
  redis.call('DEL', KEYS[1])
  return 1
end
return 0
`;
