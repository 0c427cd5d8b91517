// The Lua scripts of the Redis store. Each touches keys of one hash tag only, so each runs
// on one node of a cluster; the times they write come from the server's clock (TIME), so
// leases agree across workers whose clocks do not. Milliseconds are written with %.0f: a Lua number would
// otherwise be written in exponent form past 14 digits.

/**
 * Compare-and-append to a run's log. KEYS: log, and the run hash only when it is written (the
 * run's first append, a stop, an end). ARGV: expected length, ttl ms, stop reason | '', ended
 * '1' | '', the entry the caller saw last (at expected length - 1) | '', entries… Accepted: the
 * new length (an integer). Refused: {0, length, truncated 0 | 1, the entries from the expected
 * length on (the whole log when truncated)}.
 *
 * Truncated also answers a log whose entry at the caller's last position is not the one it
 * saw: the log was lost and other processes wrote a new one, at least as long. Its length
 * alone cannot tell (a claim was accepted on a replica missing the new log's first entries,
 * a call in flight among them). The LINDEX is near the tail, O(1) when nobody else wrote.
 *
 * An ordinary call is LLEN, RPUSH and PEXPIRE of one key: every other command is server time
 * on every guarded call. Measured with `INFO commandstats` on redis 7.0 (bench/redis.ts, one
 * entry per append): 7.3 us per append with TIME, HSET 'updated' and a PEXPIRE of the hash on
 * each call; 3.8 us without them; 3.3 us answering an integer instead of a table. The hash's
 * 'updated' is gone: describeRun reads the last change from the log's newest entries.
 */
export const APPEND_RUN_EVENTS = `
local length = redis.call('LLEN', KEYS[1])
local expected = tonumber(ARGV[1])
if length < expected or (expected > 0 and ARGV[5] ~= '' and redis.call('LINDEX', KEYS[1], expected - 1) ~= ARGV[5]) then
  return {0, length, 1, redis.call('LRANGE', KEYS[1], 0, -1)}
end
if length ~= expected then
  return {0, length, 0, redis.call('LRANGE', KEYS[1], expected, -1)}
end
-- unpack() is limited by Lua's C stack (8000): push in slices.
local pushed = length
local i = 6
while i <= #ARGV do
  local last = math.min(i + 999, #ARGV)
  pushed = redis.call('RPUSH', KEYS[1], unpack(ARGV, i, last))
  i = last + 1
end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
if KEYS[2] then
  if expected == 0 then
    local t = redis.call('TIME')
    redis.call('HSETNX', KEYS[2], 'created', string.format('%.0f', tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)))
  end
  if ARGV[3] ~= '' then redis.call('HSET', KEYS[2], 'stop', ARGV[3]) end
  if ARGV[4] ~= '' then redis.call('HSET', KEYS[2], 'ended', '1') end
  redis.call('PEXPIRE', KEYS[2], ARGV[2])
end
return pushed
`;

const NOW = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
`;

/** KEYS: business key hash. ARGV: owner (unique per claim), lease ms, ttl ms, run id. A key already pending under `owner` answers claimed. */
export const CLAIM_BUSINESS_KEY = `${NOW}
local state = redis.call('HGET', KEYS[1], 'state')
if not state then
  redis.call('HSET', KEYS[1], 'state', 'pending', 'owner', ARGV[1], 'claimed', string.format('%.0f', now),
    'lease', string.format('%.0f', now + tonumber(ARGV[2])), 'run', ARGV[4])
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
  return {'claimed'}
end
local f = redis.call('HMGET', KEYS[1], 'owner', 'claimed', 'lease', 'run', 'at', 'result')
-- Owners are unique per claim, so a key pending under this one was claimed by this very call:
-- the same script delivered twice (ioredis resends a command whose reply a dropped connection
-- lost). Answered 'pending', the call was refused by its own claim, and the key stayed held by
-- an owner nobody would settle: refused as in flight, then as of unknown outcome, for its ttl.
if state == 'pending' and f[1] == ARGV[1] then return {'claimed'} end
if state == 'done' then return {'done', f[4] or '', f[5] or '0', f[6] or ''} end
-- A lease that is no number (not written by loopguard) has run out: compared as nil it was a
-- script error, read as a Redis outage, and a fail-open write ran unguarded.
if (tonumber(f[3] or '0') or 0) > now then return {'pending', f[1] or '', f[2] or '0', f[4] or ''} end
return {'expired', f[1] or '', f[2] or '0', f[4] or ''}
`;

/**
 * KEYS: business key hash. ARGV: previous owner (as the claim answered it), owner, lease ms, run id.
 * A key already held by `owner` answers 1 (a take-over delivered twice).
 * A missing owner is read as '', as the claim answers it: compared as nil, a pending key
 * without one (not written by loopguard) could never be taken over, and was refused
 * "another worker has just taken over" for its whole ttl.
 */
export const TAKE_OVER_BUSINESS_KEY = `${NOW}
if redis.call('HGET', KEYS[1], 'state') ~= 'pending' then return 0 end
local holder = redis.call('HGET', KEYS[1], 'owner') or ''
-- Already this caller's: the take-over delivered twice (see CLAIM_BUSINESS_KEY).
if holder == ARGV[2] then return 1 end
if holder ~= ARGV[1] then return 0 end
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
