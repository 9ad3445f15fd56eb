-- Every operation of the tier in one script body, so each is one round trip and atomic in Redis.
-- KEYS[1]: the prefix. ARGV: op, namespace, key, a, b, stream length, apply limit.
-- No `#!lua` first line (Redis 7's flags): the script runs on Redis 6.0 and later and on
-- Valkey, and behaves the same on all of them at `maxmemory` under `noeviction`. Redis then
-- refuses a command that may grow memory only when it is the script's first write (a later
-- one must run, or the script would stop halfway). So the reading operations (get, ttl,
-- generation, sync) run; set, add, replace, incr, cas, flush and init fail at their first
-- write, before anything changed (an OOM error: src/tier/mod.rs returns false for them and
-- keeps the request's trust); delete's DEL comes first (a write that frees memory), so its
-- invalidation is published with it.
-- A data key carries the generation of everything ('' in the hash) and of its namespace, so a
-- flush is one HINCRBY; the keys it retires stay until their TTL or Redis' eviction.
local P = KEYS[1]
local op, ns, key, a, b, maxlen = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6]
local S = P .. 'inval'

local function last_id()
  local r = redis.call('XREVRANGE', S, '+', '-', 'COUNT', 1)
  if r[1] then return r[1][1] end
  return '0-0'
end

local function data_key()
  local g = redis.call('HMGET', P .. 'gen', '', ns)
  return P .. 'd:' .. (g[1] or '0') .. ':' .. (g[2] or '0') .. ':' .. #ns .. ':' .. ns .. key
end

local function invalidate_key()
  return redis.call('XADD', S, 'MAXLEN', '~', maxlen, '*', 't', 'k', 'n', ns, 'k', key)
end

if op == 'get' then
  local k = data_key()
  local v = redis.call('GET', k)
  if not v then return {false, 0, last_id()} end
  return {v, redis.call('PTTL', k), last_id()}
elseif op == 'ttl' then
  return {redis.call('PTTL', data_key())}
elseif op == 'set' or op == 'add' or op == 'replace' then
  local k = data_key()
  local ttl = tonumber(b)
  if ttl < 0 then
    -- A TTL in the past: the key ends up absent, add and replace keep their answers.
    local existed = redis.call('EXISTS', k) == 1
    if op == 'add' then return {existed and 0 or 1, false} end
    if op == 'replace' and not existed then return {0, false} end
    redis.call('DEL', k)
    return {1, invalidate_key()}
  end
  local cmd = {'SET', k, a}
  if ttl > 0 then cmd[#cmd + 1] = 'PX'; cmd[#cmd + 1] = ttl end
  if op == 'add' then cmd[#cmd + 1] = 'NX' elseif op == 'replace' then cmd[#cmd + 1] = 'XX' end
  -- Its remaining life as Redis counts it, for the writer's own near copy.
  if redis.call(unpack(cmd)) then return {1, invalidate_key(), redis.call('PTTL', k)} end
  return {0, false}
elseif op == 'incr' then
  local k = data_key()
  local v = redis.call('GET', k)
  if not v or not string.match(v, '^-?%d+$') then return {false, false} end
  local ok, err = pcall(redis.call, 'INCRBY', k, a)
  if not ok then
    local message = type(err) == 'table' and err.err or tostring(err)
    -- Out of memory: this was the first write, nothing changed.
    if string.find(message, 'OOM', 1, true) then return redis.error_reply(message) end
    if not string.find(message, 'overflow', 1, true) then return {false, false} end
    -- Past 2^63 the local engine wraps around (two's complement), and so does this, exactly:
    -- Lua's numbers are doubles, so Redis' own 64-bit arithmetic does it, on the key itself
    -- (atomic, nothing in between is seen). 2^63 is not a 64-bit integer: two steps of 2^62
    -- take the value 2^63 toward zero (it had the delta's sign), the delta then fits, and two
    -- more steps finish the 2^64 of the wrap.
    local half = '4611686018427387904'
    local toward = tonumber(a) > 0 and 'DECRBY' or 'INCRBY'
    redis.call(toward, k, half)
    redis.call(toward, k, half)
    redis.call('INCRBY', k, a)
    redis.call(toward, k, half)
    redis.call(toward, k, half)
  end
  -- Read back as a string (Lua numbers are doubles).
  return {redis.call('GET', k), invalidate_key()}
elseif op == 'cas' then
  local k = data_key()
  if redis.call('GET', k) ~= a then return {0, false} end
  redis.call('SET', k, b, 'KEEPTTL')
  return {1, invalidate_key()}
elseif op == 'delete' then
  local n = redis.call('DEL', data_key())
  -- Published even when Redis had nothing: a near copy must never outlive the truth.
  return {n, invalidate_key()}
elseif op == 'flush' then
  redis.call('HINCRBY', P .. 'gen', ns, 1)
  if ns == '' then
    return {1, redis.call('XADD', S, 'MAXLEN', '~', maxlen, '*', 't', 'a')}
  end
  return {1, redis.call('XADD', S, 'MAXLEN', '~', maxlen, '*', 't', 'n', 'n', ns)}
elseif op == 'generation' then
  local g = redis.call('HMGET', P .. 'gen', '', ns)
  local v = g[2] or '0'
  if ns == '' then v = g[1] or '0' end
  return {v, last_id()}
elseif op == 'sync' or op == 'init' then
  -- a: a new random epoch; b: this server's applied position. Only 'init' (run when 'sync'
  -- found no epoch) sets it: 'sync' writes nothing, so a Redis out of memory still syncs.
  -- A new epoch starts the stream with an entry (for "everything", which every server covers
  -- by the reset the new epoch makes it do): the servers' positions are then the ids of
  -- entries, never '0-0' in a stream that exists (see below).
  if op == 'init' and redis.call('SET', P .. 'epoch', a, 'NX') then
    redis.call('XADD', S, 'MAXLEN', '~', maxlen, '*', 't', 'a')
  end
  local epoch = redis.call('GET', P .. 'epoch')
  if not epoch then return {false} end
  -- b is the id of an entry this server applied (or the stream's last entry at its last
  -- reset), '0-0' before any. The stream loses entries only to trimming (MAXLEN ~), oldest
  -- first: while the entry b is still in it, no entry after b is gone. Without it (trimmed,
  -- or the stream removed and made again) entries after b may be lost, and the server starts
  -- over (docs/design.md, "A trimmed stream"). '0-0' with no stream at all missed nothing.
  local entries = redis.call('XRANGE', S, b, '+', 'COUNT', tonumber(ARGV[7]) + 2)
  local complete = 0
  if entries[1] and entries[1][1] == b then
    table.remove(entries, 1)
    complete = 1
  elseif b == '0-0' and redis.call('EXISTS', S) == 0 then
    complete = 1
  end
  -- key: the newest entry past b that this server holds a value of ('' when none). Gone from
  -- the stream (Redis restarted from an older snapshot, an AOF that lost its last second, a
  -- failover to a replica that lagged), Redis lost writes this server has seen: start over.
  if complete == 1 and key ~= '' and not redis.call('XRANGE', S, key, key)[1] then
    complete = 0
  end
  return {epoch, complete, last_id(), entries}
end
return redis.error_reply('shmcache: unknown tier operation')
