//! Tiered mode: Redis holds the truth, this server's region a near copy kept coherent by an
//! invalidation stream. Pure Rust (no PHP), so it is tested against a real redis-server with
//! two regions standing for two servers (`tests/tier.rs`).
//!
//! The protocol (docs/design.md, "Tiered mode"):
//! - every write is one script run in Redis that also appends the key (or namespace, or "all")
//!   to the stream `{prefix}inval` and returns the entry's id S;
//! - the region keeps two stream positions in its coordination words (out of reach of flushes
//!   and of the ring's recycling): `claimed`, raised before an applier deletes, and `applied`,
//!   raised after it has deleted everything up to it; both only ever grow, except that a new
//!   Redis (another epoch) sets `applied` to its own position;
//! - a request's first cache call reads the stream after `applied` (one round trip) and applies
//!   it; until then, and for the whole request if Redis fails, the near copy is not trusted;
//! - a fill (a near miss read from Redis along with the stream's last id Q, or a local write
//!   with Q = S) takes its slot as a pending word (invisible, and cleared by a delete of the
//!   key), then loads `claimed`: above Q, an invalidation newer than the value may already
//!   have been applied, so the fill is withdrawn; otherwise it is published
//!   (`Cache::set_if_current`).

use std::sync::atomic::{fence, AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, TryLockError};
use std::time::Duration;

use redis::{Script, Value};

use crate::engine::{Cache, Namespace, ValueKind, ValueSink};

pub mod clock;
pub mod mark;

/// The namespace of the tier's own entries in the region (the generations). Applications
/// cannot name it: it starts with a NUL byte.
const RESERVED_NS: &[u8] = b"\0shmcache-tier";
/// The region's coordination words the tier uses (`Cache::coordination_words`): the stream
/// positions, and a hash of the epoch of the Redis they belong to (0: none yet).
const CLAIMED: usize = 0;
const APPLIED: usize = 1;
const EPOCH: usize = 2;
// Word 3 is `mark::MARK`: whether tiered processes use the region; word 4 `clock::CLOCK`: the
// clock the near copy's expiries follow.
/// The highest stream position a value in the near copy may come from (a fill's, a local
/// write's), raised before the value is inserted: a sync checks that its entry is still in the
/// stream, or Redis lost writes this server has seen (restarted from an older snapshot, an AOF
/// fsynced every second, a failover to a replica that lagged) and the near copy starts over.
const SEEN: usize = 5;
const GENERATION_PREFIX: &[u8] = b"gen:";
/// A writer's note that it has brought its own server's near copy up to its write's stream
/// entry (key `done:` + the entry's id): that server's next sync then skips the entry
/// instead of deleting the copy the writer just made.
const DONE_PREFIX: &[u8] = b"done:";
/// How long such a note is kept (seconds): a sync normally comes within the second; one that
/// comes later applies the entry as any other server does, which is only a re-read.
const DONE_TTL: i64 = 600;
/// A trusted request renews the region's mark at least this often, whatever its resync
/// interval: well inside the lease (`mark::LEASE_SECONDS`).
const MARK_RENEWAL: Duration = Duration::from_secs(mark::LEASE_SECONDS / 4);
/// The near copy of "Redis has no such key" (a WordPress page asks for many absent keys: each
/// would otherwise cost a round trip on every request). Never stored in Redis, never returned.
pub const ABSENT: ValueKind = ValueKind(0xFE);

#[derive(Clone, Debug)]
pub struct TierConfig {
    /// `unix:///path/to/redis.sock` or `tcp://host:port`.
    pub url: String,
    pub database: i64,
    pub prefix: String,
    pub password: Option<String>,
    pub connect_timeout: Duration,
    pub read_timeout: Duration,
    /// Approximate length the invalidation stream is trimmed to.
    pub stream_length: u64,
    /// More pending invalidations than this at a request's start flush the near copy instead.
    pub max_apply: usize,
    /// A request that synced longer ago than this syncs again at its next call (a long CLI
    /// script is one request); zero: once per request only.
    pub resync_interval: Duration,
    /// Test hook: sleep between reading Redis and filling the near copy (0 in production).
    pub test_fill_delay: Duration,
    /// Test hook: sleep while a fill sits pending in its slot, before its re-check (0 in
    /// production).
    pub test_fill_recheck_delay: Duration,
    /// Test hook: the resolution of a `tcp://` host name takes at least this long (0 in
    /// production).
    pub test_resolve_delay: Duration,
}

impl Default for TierConfig {
    fn default() -> Self {
        TierConfig {
            url: String::new(),
            database: 0,
            prefix: "shmcache:".into(),
            password: None,
            connect_timeout: Duration::from_millis(50),
            read_timeout: Duration::from_millis(100),
            stream_length: 100_000,
            max_apply: 1000,
            test_fill_delay: Duration::ZERO,
            resync_interval: Duration::from_secs(1),
            test_fill_recheck_delay: Duration::ZERO,
            test_resolve_delay: Duration::ZERO,
        }
    }
}

/// Per-process counters of the tier (this worker's view).
#[derive(Clone, Copy, Debug, Default)]
pub struct TierCounters {
    pub round_trips: u64,
    pub near_hits: u64,
    pub near_misses: u64,
    pub redis_errors: u64,
    pub untrusted_requests: u64,
    pub invalidations_applied: u64,
    pub near_flushes: u64,
    pub stale_fills_dropped: u64,
    /// Milliseconds between the newest invalidation applied and its application, last sync.
    pub lag_ms: u64,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Trust {
    /// Not yet synced in this request.
    Unknown,
    Trusted,
    /// Redis failed in this request: nothing near is read, writes fail.
    Untrusted,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum WriteMode {
    Set,
    Add,
    Replace,
}

pub struct Tier {
    config: TierConfig,
    connection: Option<redis::Connection>,
    /// The process that opened `connection`: a forked child opens its own.
    connection_pid: u32,
    /// The tier's script (script.lua), the same on every server version.
    script: Script,
    trust: Trust,
    /// When this request last synced (or tried to), on the coarse monotonic clock.
    synced_at: Duration,
    /// When this process last renewed the region's mark (`mark::renew`), on the same clock.
    marked_at: Duration,
    warning: Option<String>,
    pub counters: TierCounters,
    /// Test hook: the next sync that applies entries panics halfway (`arm_test_panic`).
    test_panic: bool,
    /// Test hook: milliseconds added to this tier's reading of the wall clock
    /// (`set_test_wall_clock_shift`).
    test_wall_shift_ms: i64,
    /// The region's clock word as this process last checked it (`clock::check`): a fill with
    /// an expiry publishes only while it holds.
    clock_seen: u64,
    /// The region's epoch word when this process last sent a call whose reply may fill the near
    /// copy: a fill publishes only while it holds (a reply of a Redis since replaced loses).
    epoch_seen: u64,
}

/// Locks a process's tier, as the PHP side keeps it (None while it is borrowed: no PHP code
/// runs then, so only a re-entry sees that). A panic inside the tier (caught at the PHP
/// boundary) poisons the lock: the tier it left may be halfway through an update (a claim
/// raised and its deletes not made, a reply not read off the connection), so it is recovered
/// (`recover_from_panic`) rather than refused for the rest of the process' life.
pub fn lock(shared: &Mutex<Option<Tier>>) -> Option<MutexGuard<'_, Option<Tier>>> {
    match shared.try_lock() {
        Ok(guard) => Some(guard),
        Err(TryLockError::WouldBlock) => None,
        Err(TryLockError::Poisoned(poisoned)) => {
            let mut guard = poisoned.into_inner();
            if let Some(tier) = guard.as_mut() {
                tier.recover_from_panic();
            }
            shared.clear_poison();
            Some(guard)
        }
    }
}

impl Tier {
    pub fn new(config: TierConfig) -> Result<Tier, String> {
        connection_url(&config.url)?;
        Ok(Tier {
            config,
            connection: None,
            connection_pid: 0,
            script: Script::new(include_str!("script.lua")),
            trust: Trust::Unknown,
            synced_at: Duration::ZERO,
            marked_at: Duration::ZERO,
            warning: None,
            counters: TierCounters::default(),
            test_panic: false,
            test_wall_shift_ms: 0,
            clock_seen: 0,
            epoch_seen: 0,
        })
    }

    /// After a panic inside the tier: nothing it was doing is trusted. The connection goes (a
    /// reply may still be on its way), and the rest of the request does not read the near copy;
    /// the next request syncs on a new connection. The region itself needs nothing: its
    /// positions only grow, and a claim whose deletes were not made only makes fills lose
    /// until the next sync applies the same entries again.
    pub fn recover_from_panic(&mut self) {
        self.drop_connection();
        if self.trust != Trust::Untrusted {
            self.counters.untrusted_requests += 1;
        }
        self.trust = Trust::Untrusted;
    }

    /// Test hook: the next sync that has entries to apply panics after raising `claimed` and
    /// before deleting anything.
    #[doc(hidden)]
    pub fn arm_test_panic(&mut self) {
        self.test_panic = true;
    }

    /// Test hook: this tier reads the wall clock `ms` milliseconds ahead of the machine's (a
    /// negative `ms`: behind); a later call with another value stands for a clock step. The
    /// engine's own reading (entry expiry) is not shifted.
    #[doc(hidden)]
    pub fn set_test_wall_clock_shift(&mut self, ms: i64) {
        self.test_wall_shift_ms = ms;
    }

    /// The wall clock as this tier reads it: Unix milliseconds.
    fn wall_ms(&self) -> u64 {
        now_ms().saturating_add_signed(self.test_wall_shift_ms)
    }

    pub fn config(&self) -> &TierConfig {
        &self.config
    }

    /// Until when (on `coarse_now`'s clock) this request may read the near copy without asking
    /// `trusted` again: None unless it is trusted now.
    #[inline]
    pub fn trusted_until(&self) -> Option<Duration> {
        (self.trust == Trust::Trusted).then(|| {
            // Even with the resync interval off, the request comes back to renew the mark
            // before a process without the tier could take the region over.
            let renew = self.marked_at.saturating_add(MARK_RENEWAL);
            if self.config.resync_interval.is_zero() {
                renew
            } else {
                self.synced_at.saturating_add(self.config.resync_interval).min(renew)
            }
        })
    }

    /// Whether a warning waits for `take_warning`.
    #[inline]
    pub fn has_warning(&self) -> bool {
        self.warning.is_some()
    }

    /// A new request: the near copy is trusted again only after the next sync.
    pub fn begin_request(&mut self) {
        self.trust = Trust::Unknown;
        self.warning = None;
    }

    /// The warning of this request's Redis failure, once.
    pub fn take_warning(&mut self) -> Option<String> {
        self.warning.take()
    }

    /// Whether this request may read the near copy; syncs at the request's first call.
    pub fn trusted(&mut self, cache: &Cache) -> bool {
        let now = coarse_now();
        if self.trust != Trust::Unknown
            && !self.config.resync_interval.is_zero()
            && now.saturating_sub(self.synced_at) >= self.config.resync_interval
        {
            // A long request (a CLI script, a worker loop) catches up with the other servers'
            // writes, or tries Redis again after a failure.
            self.trust = Trust::Unknown;
        }
        if self.trust == Trust::Unknown || now.saturating_sub(self.marked_at) >= MARK_RENEWAL {
            // At every sync (not only at the request's start, which the PHP side marks): a
            // request running past the lease must not let a process without the tier take
            // the region over under it (issue 31). Before the sync loads the epoch (SeqCst).
            mark::renew(cache, mark::unix_now());
            self.marked_at = now;
        }
        if self.trust == Trust::Unknown {
            self.synced_at = now;
            let reused = self.connection.is_some() && self.connection_pid == std::process::id();
            let mut synced = self.sync(cache);
            if synced.is_err() && reused && self.connection.is_none() {
                // A kept connection that Redis (or a restart) closed while this worker was idle:
                // one new connection, before giving up on the request.
                synced = self.sync(cache);
            }
            self.trust = match synced {
                Ok(()) => Trust::Trusted,
                Err(e) => {
                    self.fail(e);
                    Trust::Untrusted
                }
            };
        }
        if self.trust == Trust::Trusted {
            // At every call that reaches the tier (the PHP side's near reads come here when
            // its own cheaper test of the clock fails): a step back of the wall clock must
            // not stretch a near copy's life.
            self.check_clock(cache);
        }
        self.trust == Trust::Trusted
    }

    /// Compares the wall clock with CLOCK_BOOTTIME (`clock`); after a step back, empties the
    /// near copy (one process per step does).
    fn check_clock(&mut self, cache: &Cache) {
        let checked = clock::check(cache, self.wall_ms());
        if checked.stepped_back {
            // Fills made under the old word re-check it (SeqCst, then their pending word is
            // visible): each either sees the new word or is flushed here.
            fence(Ordering::SeqCst);
            cache.flush_all();
            self.counters.near_flushes += 1;
        }
        self.clock_seen = checked.word;
    }

    /// The wall time (Unix ms) a near expiry for a call about to be sent counts from, after
    /// checking the clock: read after the clock word, so a fill either computed its expiry on
    /// the clock the word stands for or finds the word changed at its re-check.
    fn stamp(&mut self, cache: &Cache) -> u64 {
        self.check_clock(cache);
        self.epoch_seen = word(cache, EPOCH).load(Ordering::SeqCst);
        self.wall_ms()
    }

    /// Counts a near hit (the caller read the region itself, without copying through here).
    pub fn count_near_hit(&mut self) {
        self.counters.near_hits += 1;
    }

    /// A near miss: reads Redis and fills the near copy. The value goes into `sink`.
    pub fn fetch<S: ValueSink>(
        &mut self,
        cache: &Cache,
        ns: &Namespace,
        key: &[u8],
        sink: &mut S,
    ) -> Option<ValueKind> {
        self.counters.near_misses += 1;
        let sent_ms = self.stamp(cache);
        let reply = self.call("get", ns, key, b"", b"")?;
        if !self.config.test_fill_delay.is_zero() {
            std::thread::sleep(self.config.test_fill_delay);
        }
        let (value, pttl, last) = match reply.as_slice() {
            [Value::Nil, _, last] => {
                let last = stream_id(last)?;
                self.fill(cache, ns, key, ABSENT, b"", 0, last);
                return None;
            }
            [v, Value::Int(pttl), last] => (bulk(v)?, *pttl, stream_id(last)?),
            _ => return self.protocol_error(),
        };
        let (kind, bytes) = decode_value(&value)?;
        if let Some(expires_at) = near_expiry(sent_ms, pttl, self.wall_ms()) {
            self.fill(cache, ns, key, kind, &bytes, expires_at, last);
        }
        let buf = sink.buffer(kind, bytes.len());
        // SAFETY: ValueSink's contract: `buf` is writable for `bytes.len()` bytes.
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), buf, bytes.len()) };
        Some(kind)
    }

    /// get: near copy first, then Redis. None on a miss or when the request is not trusted.
    pub fn get<S: ValueSink>(
        &mut self,
        cache: &Cache,
        ns: &Namespace,
        key: &[u8],
        sink: &mut S,
    ) -> Option<ValueKind> {
        if !self.trusted(cache) {
            return None;
        }
        if let Ok(Some(kind)) = cache.get_into(ns, key, sink) {
            self.count_near_hit();
            if kind == ABSENT {
                sink.discard();
                return None;
            }
            return Some(kind);
        }
        self.fetch(cache, ns, key, sink)
    }

    pub fn store(
        &mut self,
        cache: &Cache,
        ns: &Namespace,
        key: &[u8],
        kind: ValueKind,
        value: &[u8],
        ttl: i64,
        mode: WriteMode,
    ) -> bool {
        if !self.trusted(cache) {
            return false;
        }
        let op = match mode {
            WriteMode::Set => "set",
            WriteMode::Add => "add",
            WriteMode::Replace => "replace",
        };
        let encoded = encode_value(kind, value);
        let ttl_ms = if ttl < 0 { -1 } else { ttl.saturating_mul(1000) };
        let sent_ms = self.stamp(cache);
        let Some(reply) = self.call(op, ns, key, &encoded, ttl_ms.to_string().as_bytes()) else {
            return false;
        };
        match reply.as_slice() {
            [Value::Int(1), Value::Nil] => true,
            [Value::Int(1), id, rest @ ..] => {
                let Some(id) = stream_id(id) else { return self.protocol_error::<()>().is_some() };
                if !self.config.test_fill_delay.is_zero() {
                    std::thread::sleep(self.config.test_fill_delay);
                }
                // (No PTTL: a TTL in the past deleted the key.)
                let fill = match rest {
                    [Value::Int(pttl)] => near_expiry(sent_ms, *pttl, self.wall_ms())
                        .map(|expires_at| (kind, value, expires_at)),
                    _ => None,
                };
                self.after_write(cache, ns, key, id, fill);
                true
            }
            [Value::Int(0), _] => false,
            _ => self.protocol_error::<()>().is_some(),
        }
    }

    pub fn delete(&mut self, cache: &Cache, ns: &Namespace, key: &[u8]) -> bool {
        if !self.trusted(cache) {
            return false;
        }
        self.epoch_seen = word(cache, EPOCH).load(Ordering::SeqCst);
        let Some(reply) = self.call("delete", ns, key, b"", b"") else { return false };
        match reply.as_slice() {
            [Value::Int(n), id] => match stream_id(id) {
                Some(id) => {
                    // Redis has no such key as of `id`: remembered near, as a read would.
                    self.after_write(cache, ns, key, id, Some((ABSENT, b"", 0)));
                    *n == 1
                }
                None => self.protocol_error::<()>().is_some(),
            },
            _ => self.protocol_error::<()>().is_some(),
        }
    }

    pub fn exists(&mut self, cache: &Cache, ns: &Namespace, key: &[u8]) -> bool {
        let mut scratch = Vec::new();
        self.get(cache, ns, key, &mut scratch).is_some()
    }

    /// Whole seconds `key` has left in Redis (0: no expiry); None when it is missing or the
    /// request is not trusted. Asks Redis, not the near copy, whose expiry is only a bound.
    /// Rounded down so that a rewrite given it dies no later than the original, except under
    /// a second, reported as 1 because 0 would mean "never".
    pub fn ttl(&mut self, cache: &Cache, ns: &Namespace, key: &[u8]) -> Option<i64> {
        if !self.trusted(cache) {
            return None;
        }
        let reply = self.call("ttl", ns, key, b"", b"")?;
        match reply.as_slice() {
            [Value::Int(-1)] => Some(0),
            [Value::Int(pttl)] if *pttl >= 0 => Some((pttl / 1000).max(1)),
            [Value::Int(_)] => None,
            _ => self.protocol_error(),
        }
    }

    /// Adds `delta` to a live integer (wrapping around past 2^63, as the local engine does);
    /// None when missing or not an integer.
    pub fn incr(&mut self, cache: &Cache, ns: &Namespace, key: &[u8], delta: i64) -> Option<i64> {
        if !self.trusted(cache) {
            return None;
        }
        let reply = self.call("incr", ns, key, delta.to_string().as_bytes(), b"")?;
        match reply.as_slice() {
            [Value::Nil, _] => None,
            [v, id] => {
                let n: i64 = std::str::from_utf8(&bulk(v)?).ok()?.parse().ok()?;
                let id = stream_id(id)?;
                // The TTL is Redis' to keep: the near copy is refilled at the next read.
                self.after_write(cache, ns, key, id, None);
                Some(n)
            }
            _ => self.protocol_error(),
        }
    }

    pub fn cas(&mut self, cache: &Cache, ns: &Namespace, key: &[u8], old: i64, new: i64) -> bool {
        if !self.trusted(cache) {
            return false;
        }
        let Some(reply) =
            self.call("cas", ns, key, old.to_string().as_bytes(), new.to_string().as_bytes())
        else {
            return false;
        };
        match reply.as_slice() {
            [Value::Int(1), id] => match stream_id(id) {
                Some(id) => {
                    self.after_write(cache, ns, key, id, None);
                    true
                }
                None => self.protocol_error::<()>().is_some(),
            },
            _ => false,
        }
    }

    /// Flushes a namespace (the root one: everything) on every server.
    pub fn flush(&mut self, cache: &Cache, ns: &Namespace) -> bool {
        if !self.trusted(cache) {
            return false;
        }
        let Some(reply) = self.call("flush", ns, b"", b"", b"") else { return false };
        let Some(id) = reply.get(1).and_then(stream_id) else {
            return self.protocol_error::<()>().is_some();
        };
        // This server's copy goes now (the stream entry reaches it too, harmlessly).
        if ns.is_root() {
            // Everything up to our entry is covered by the flush.
            match word(cache, EPOCH).load(Ordering::SeqCst) {
                0 => self.reset_near(cache, None),
                epoch => self.reset_near(cache, Some((epoch, id))),
            }
        } else {
            raise(cache, CLAIMED, id);
            fence(Ordering::SeqCst);
            cache.flush_namespace(ns);
            if cache.delete(&reserved(), &generation_key(ns)).is_ok() {
                note_done(cache, id, &namespace_tag(ns.name()));
            }
        }
        true
    }

    /// The namespace's generation as all servers see it (Redis'), 0 when not trusted.
    pub fn generation(&mut self, cache: &Cache, ns: &Namespace) -> i64 {
        if !self.trusted(cache) {
            return 0;
        }
        let gen_key = generation_key(ns);
        if let Some(g) = read_int(cache, &reserved(), &gen_key) {
            self.counters.near_hits += 1;
            return g;
        }
        self.counters.near_misses += 1;
        self.epoch_seen = word(cache, EPOCH).load(Ordering::SeqCst);
        let Some(reply) = self.call("generation", ns, b"", b"", b"") else { return 0 };
        let parsed = match reply.as_slice() {
            [g, last] => bulk(g)
                .and_then(|g| std::str::from_utf8(&g).ok()?.parse::<i64>().ok())
                .zip(stream_id(last)),
            _ => None,
        };
        let Some((g, last)) = parsed else { return self.protocol_error().unwrap_or(0) };
        // Generations start at 1, as in the region.
        let g = g + 1;
        self.fill(cache, &reserved(), &gen_key, ValueKind::INT, &g.to_le_bytes(), 0, last);
        g
    }

    /// One round trip: epoch check and the invalidations after `applied`, applied.
    fn sync(&mut self, cache: &Cache) -> Result<(), String> {
        let applied = word(cache, APPLIED).load(Ordering::SeqCst);
        let epoch = word(cache, EPOCH).load(Ordering::SeqCst);
        // Past `applied` only (up to it, the completeness check covers it), and only an id that
        // names one entry exactly.
        let seen = word(cache, SEEN).load(Ordering::SeqCst);
        let seen = if seen > applied && is_exact(seen) { format_id(seen) } else { String::new() };
        // Always a new value: a Redis that lost its data must not be handed back the old one.
        let candidate = random_epoch();
        let position = format_id(applied);
        let max_apply = self.config.max_apply.to_string();
        let mut reply = self.call_raw(
            "sync",
            b"",
            seen.as_bytes(),
            &candidate,
            position.as_bytes(),
            max_apply.as_bytes(),
        )?;
        if let [Value::Nil] = reply.as_slice() {
            // A Redis without an epoch yet (new, or one that lost its data): the writing
            // script sets one, unless another server's did meanwhile.
            reply = self.call_raw(
                "init",
                b"",
                seen.as_bytes(),
                &candidate,
                position.as_bytes(),
                max_apply.as_bytes(),
            )?;
        }
        // `complete`: whether the stream still holds every entry after `applied` (script.lua).
        let [redis_epoch, Value::Int(complete), last, Value::Array(entries)] = reply.as_slice()
        else {
            return Err("unexpected reply to the sync script".into());
        };
        let redis_epoch = epoch_hash(&bulk(redis_epoch).ok_or("no epoch in the sync reply")?);
        let last = stream_id(last).ok_or("bad stream id")?;
        // (A new region has no epoch yet: 0, which no hash is.)
        let fresh =
            epoch == redis_epoch && *complete == 1 && entries.len() <= self.config.max_apply;
        if !fresh {
            // Unknown position, another Redis (a restart that lost the data), missed entries
            // (trimmed) or too many: everything near goes.
            self.reset_near(cache, Some((redis_epoch, last)));
            return Ok(());
        }
        if entries.is_empty() {
            return Ok(());
        }
        let mut parsed = Vec::with_capacity(entries.len());
        for entry in entries {
            parsed.push(parse_entry(entry).ok_or("bad stream entry")?);
        }
        let newest = parsed.last().map_or(0, |e| e.id);
        if parsed.iter().any(|e| matches!(e.target, Target::All)) {
            self.reset_near(cache, Some((redis_epoch, last.max(newest))));
            return Ok(());
        }
        raise(cache, CLAIMED, newest);
        // Dekker with `fill`: our `claimed` store, then our deletes; its insert, then its load
        // of `claimed`. One of the two sees the other.
        fence(Ordering::SeqCst);
        if std::mem::take(&mut self.test_panic) {
            panic!("shmcache test hook: a panic inside the tier's sync");
        }
        // A delete that could not be made leaves `applied` where it was and the request
        // untrusted: the next request applies the same entries again.
        apply_entries(cache, &parsed)?;
        raise(cache, APPLIED, newest);
        self.counters.invalidations_applied += parsed.len() as u64;
        self.counters.lag_ms = now_ms().saturating_sub(newest >> SEQ_BITS);
        Ok(())
    }

    /// Empties the near copy. With `position`, the region then remembers Redis' epoch and that
    /// everything up to the stream's `last` id is applied.
    fn reset_near(&mut self, cache: &Cache, position: Option<(u64, u64)>) {
        // Fills racing with the flush see `claimed` above them: they delete. (`claimed` may
        // already be above `last`, a local write claims its own entry: it never goes down.)
        raise(cache, CLAIMED, position.map_or(0, |(_, last)| last));
        fence(Ordering::SeqCst);
        cache.flush_all();
        // Nothing near is newer than the reset's position now (a lost entry seen before must
        // not make every later sync start over again).
        word(cache, SEEN).store(position.map_or(0, |(_, last)| last), Ordering::SeqCst);
        if let Some((epoch, last)) = position {
            if word(cache, EPOCH).swap(epoch, Ordering::SeqCst) == epoch {
                // `applied` becomes at least `last` only: the flush covers the entries up to
                // it, not the ones between `last` and a claim another worker is still applying.
                raise(cache, APPLIED, last);
            } else {
                // Another Redis: the old position means nothing in its stream.
                word(cache, APPLIED).store(last, Ordering::SeqCst);
                // Fills of the old Redis' replies re-check the epoch: one that loaded it before
                // the swap above made its entry visible (pending) before that load, so this
                // second flush, after the swap, removes it (Dekker, as with `claimed`).
                fence(Ordering::SeqCst);
                cache.flush_all();
            }
        }
        self.counters.near_flushes += 1;
    }

    /// Inserts a value read from Redis (or just written to it) that is current as of stream
    /// position `q`, unless an invalidation after `q` may already have been applied here.
    /// `expires_at`: Unix seconds, 0 = never.
    /// True when the key's near copy is now the value or nothing (false only when the engine
    /// could neither publish nor delete: an older copy may still be there).
    fn fill(
        &mut self,
        cache: &Cache,
        ns: &Namespace,
        key: &[u8],
        kind: ValueKind,
        value: &[u8],
        expires_at: u64,
        q: u64,
    ) -> bool {
        let recheck_delay = self.config.test_fill_recheck_delay;
        // Before the value can be visible: a sync that could let a request read it checks that
        // the entry is still in Redis' stream.
        raise(cache, SEEN, q);
        let clock_seen = self.clock_seen;
        let epoch_seen = self.epoch_seen;
        let mut stale = false;
        let stored = cache.set_if_current_until(ns, key, kind, value, expires_at, || {
            if !recheck_delay.is_zero() {
                std::thread::sleep(recheck_delay);
            }
            // Dekker with the applier: our pending word is visible (a SeqCst CAS), then we load
            // `claimed`; it stores `claimed`, then deletes (which clears pending words). One of
            // the two sees the other. The copy is invisible until this says yes.
            fence(Ordering::SeqCst);
            // An expiry computed before a step back of the wall clock (the word changed) would
            // outlive Redis' copy.
            // A reply of a Redis since replaced (the epoch changed: a reset, whose `claimed` is
            // the new stream's position and may be below `q` when the old Redis' clock was
            // ahead) would outlive the reset.
            stale = fill_is_stale(cache, q)
                || word(cache, EPOCH).load(Ordering::SeqCst) != epoch_seen
                || (expires_at != 0 && !clock::holds(cache, clock_seen));
            !stale
        });
        if stale {
            self.counters.stale_fills_dropped += 1;
        }
        stored.is_ok() || cache.delete(ns, key).is_ok()
    }

    /// After a local write that Redis gave stream id `id`: a concurrent fill of an older value
    /// in this region must lose (so `claimed` reaches `id` first), then the near copy is the new
    /// value or nothing. The request that wrote reads its own write from here on.
    fn after_write(
        &mut self,
        cache: &Cache,
        ns: &Namespace,
        key: &[u8],
        id: u64,
        fill: Option<(ValueKind, &[u8], u64)>,
    ) {
        raise(cache, CLAIMED, id);
        raise(cache, SEEN, id);
        fence(Ordering::SeqCst);
        let up_to_date = match fill {
            Some((kind, value, expires_at)) => {
                self.fill(cache, ns, key, kind, value, expires_at, id)
            }
            None => cache.delete(ns, key).is_ok(),
        };
        if up_to_date {
            note_done(cache, id, &key_tag(ns.name(), key));
        }
    }

    fn call(
        &mut self,
        op: &str,
        ns: &Namespace,
        key: &[u8],
        a: &[u8],
        b: &[u8],
    ) -> Option<Vec<Value>> {
        match self.call_raw(op, ns.name(), key, a, b, b"0") {
            Ok(v) => Some(v),
            Err(CallError::Refused(e)) => {
                self.refused(e);
                None
            }
            Err(CallError::Failed(e)) => {
                self.fail(e);
                None
            }
        }
    }

    fn call_raw(
        &mut self,
        op: &str,
        ns: &[u8],
        key: &[u8],
        a: &[u8],
        b: &[u8],
        limit: &[u8],
    ) -> Result<Vec<Value>, CallError> {
        let stream_length = self.config.stream_length.to_string();
        self.connection().map_err(CallError::Failed)?;
        let mut invocation = self.script.prepare_invoke();
        invocation
            .key(self.config.prefix.as_bytes())
            .arg(op)
            .arg(ns)
            .arg(key)
            .arg(a)
            .arg(b)
            .arg(stream_length.as_bytes())
            .arg(limit);
        self.counters.round_trips += 1;
        let connection = self.connection.as_mut().expect("opened above");
        let result: redis::RedisResult<Value> = invocation.invoke(connection);
        match result {
            Ok(Value::Array(v)) => Ok(v),
            Ok(other) => Err(CallError::Failed(format!("unexpected reply {other:?}"))),
            // Out of memory, Redis refuses a script's first write only (script.lua): nothing
            // happened, and the connection read the whole reply.
            Err(e) if out_of_memory(&e) => Err(CallError::Refused(e.to_string())),
            Err(e) => {
                // After a timeout the reply may still come: the connection is not reused.
                self.connection = None;
                Err(CallError::Failed(e.to_string()))
            }
        }
    }

    /// Closes this process's connection; one inherited across fork is left to its owner.
    fn drop_connection(&mut self) {
        if let Some(connection) = self.connection.take() {
            if self.connection_pid != std::process::id() {
                // The parent's socket stays the parent's.
                std::mem::forget(connection);
            }
        }
    }

    fn connection(&mut self) -> Result<&mut redis::Connection, String> {
        let pid = std::process::id();
        if self.connection_pid != pid {
            self.drop_connection();
        }
        if self.connection.is_none() {
            self.connection = Some(self.connect()?);
            self.connection_pid = pid;
        }
        Ok(self.connection.as_mut().expect("just opened"))
    }

    fn connect(&mut self) -> Result<redis::Connection, String> {
        self.counters.round_trips += 1;
        let started = std::time::Instant::now();
        let timeout = self.config.connect_timeout;
        // The connect timeout covers a host name's resolution too (the client library resolves
        // without a bound): it is resolved here, and its addresses tried in turn.
        let urls = match tcp_host_name(&self.config.url) {
            Some((host, port)) => resolve(host, port, timeout, self.config.test_resolve_delay)?
                .into_iter()
                .map(|address| format!("redis://{address}"))
                .collect(),
            None => vec![connection_url(&self.config.url)?],
        };
        let mut failure = String::new();
        let mut connected = None;
        for url in urls {
            let left = timeout.saturating_sub(started.elapsed());
            if left.is_zero() {
                failure = format!("no connection within the connect timeout ({timeout:?})");
                break;
            }
            let client = redis::Client::open(url).map_err(|e| e.to_string())?;
            match client.get_connection_with_timeout(left) {
                Ok(c) => {
                    connected = Some(c);
                    break;
                }
                Err(e) => failure = e.to_string(),
            }
        }
        let mut c = connected.ok_or(failure)?;
        let timeout = Some(self.config.read_timeout);
        c.set_read_timeout(timeout).map_err(|e| e.to_string())?;
        c.set_write_timeout(timeout).map_err(|e| e.to_string())?;
        if let Some(password) = &self.config.password {
            redis::cmd("AUTH").arg(password).query::<()>(&mut c).map_err(|e| e.to_string())?;
        }
        if self.config.database != 0 {
            redis::cmd("SELECT")
                .arg(self.config.database)
                .query::<()>(&mut c)
                .map_err(|e| e.to_string())?;
        }
        Ok(c)
    }

    fn fail(&mut self, e: String) {
        self.counters.redis_errors += 1;
        if self.trust != Trust::Untrusted {
            self.counters.untrusted_requests += 1;
            self.warning = Some(format!(
                "shmcache: Redis at {} failed ({e}); this request does not use the near cache",
                self.config.url
            ));
        }
        self.trust = Trust::Untrusted;
    }

    /// A write Redis refused without running it (out of memory under `noeviction`): it returns
    /// false, and the request keeps its trust (nothing changed in Redis).
    fn refused(&mut self, e: String) {
        self.counters.redis_errors += 1;
        if self.warning.is_none() && self.trust != Trust::Untrusted {
            self.warning =
                Some(format!("shmcache: Redis at {} refused a write ({e})", self.config.url));
        }
    }

    fn protocol_error<T>(&mut self) -> Option<T> {
        self.connection = None;
        self.fail("unexpected reply from the tier script".into());
        None
    }
}

/// Whether Redis refused the script's first write for memory (`maxmemory` under `noeviction`).
/// Redis 7 and Valkey answer with the command's own OOM error; Redis 6 wraps it in a script
/// error ("ERR Error running script ... OOM command not allowed ...").
fn out_of_memory(e: &redis::RedisError) -> bool {
    e.code() == Some("OOM") || e.to_string().contains("OOM command not allowed")
}

enum CallError {
    /// Redis refused the script's first write (out of memory): nothing changed.
    Refused(String),
    Failed(String),
}

impl From<CallError> for String {
    fn from(e: CallError) -> String {
        match e {
            CallError::Refused(e) | CallError::Failed(e) => e,
        }
    }
}

fn apply_entries(cache: &Cache, entries: &[Entry]) -> Result<(), String> {
    for e in entries {
        let noted = match &e.target {
            Target::Key(ns, key) => take_done(cache, e.id, &key_tag(ns, key)),
            Target::Namespace(ns) => take_done(cache, e.id, &namespace_tag(ns)),
            Target::All => false,
        };
        if noted {
            continue;
        }
        match &e.target {
            // (A name the engine refuses cannot have entries here.)
            Target::Key(ns, key) => {
                if let Ok(ns) = Namespace::new(ns) {
                    cache
                        .delete(&ns, key)
                        .map_err(|e| format!("an invalidation could not be applied: {e}"))?;
                }
            }
            Target::Namespace(ns) => {
                if let Ok(ns) = Namespace::new(ns) {
                    cache.flush_namespace(&ns);
                    let _ = cache.delete(&reserved(), &generation_key(&ns));
                }
            }
            // Handled by the caller (a full flush).
            Target::All => {}
        }
    }
    Ok(())
}

/// `tcp://host:port` or `unix:///path` as the client library spells it.
fn connection_url(url: &str) -> Result<String, String> {
    if let Some(rest) = url.strip_prefix("tcp://") {
        Ok(format!("redis://{rest}"))
    } else if let Some(path) = url.strip_prefix("unix://") {
        if !path.starts_with('/') {
            return Err(format!(
                "shmcache.redis: {url} needs an absolute socket path (unix:///run/redis.sock)"
            ));
        }
        Ok(format!("redis+unix://{path}"))
    } else {
        Err(format!("shmcache.redis: {url} must start with unix:// or tcp://"))
    }
}

/// The host and port of a `tcp://host:port` address whose host is a name, not an IP literal.
fn tcp_host_name(url: &str) -> Option<(&str, u16)> {
    let (host, port) = url.strip_prefix("tcp://")?.rsplit_once(':')?;
    let port = port.parse().ok()?;
    let literal = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')).unwrap_or(host);
    if literal.parse::<std::net::IpAddr>().is_ok() {
        return None;
    }
    Some((host, port))
}

/// The process whose resolver thread is still running (0: none).
static RESOLVING: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);

/// Resolves a host name within `timeout`. The system resolver has no timeout of its own (an
/// unreachable DNS server holds it for seconds), so it runs on a thread of its own that the
/// caller stops waiting for. One such thread per process at a time: while one is stuck, a
/// connect fails at once instead of piling up threads.
fn resolve(
    host: &str,
    port: u16,
    timeout: Duration,
    test_delay: Duration,
) -> Result<Vec<std::net::SocketAddr>, String> {
    let pid = std::process::id();
    let running = RESOLVING.load(Ordering::Acquire);
    // (A value of another process was inherited across fork, without its thread.)
    if running == pid
        || RESOLVING.compare_exchange(running, pid, Ordering::AcqRel, Ordering::Acquire).is_err()
    {
        return Err(format!("resolving {host} is still under way since an earlier connect"));
    }
    let (sender, receiver) = std::sync::mpsc::channel();
    let name = host.to_string();
    let spawned = std::thread::Builder::new().name("shmcache-resolve".into()).spawn(move || {
        if !test_delay.is_zero() {
            std::thread::sleep(test_delay);
        }
        let addresses = std::net::ToSocketAddrs::to_socket_addrs(&(name.as_str(), port))
            .map(|a| a.collect::<Vec<_>>());
        RESOLVING.store(0, Ordering::Release);
        let _ = sender.send(addresses);
    });
    if let Err(e) = spawned {
        RESOLVING.store(0, Ordering::Release);
        return Err(format!("resolving {host}: {e}"));
    }
    match receiver.recv_timeout(timeout) {
        Ok(Ok(addresses)) if !addresses.is_empty() => Ok(addresses),
        Ok(Ok(_)) => Err(format!("{host} has no address")),
        Ok(Err(e)) => Err(format!("resolving {host}: {e}")),
        Err(_) => {
            Err(format!("resolving {host} took longer than the connect timeout ({timeout:?})"))
        }
    }
}

fn reserved() -> Namespace {
    Namespace::new(RESERVED_NS).expect("short")
}

/// The note of entry `id` for `target` (`key_tag` or `namespace_tag`): a note answers for one
/// entry of one key or namespace only, so an entry with the same id for another target (a
/// stream that lost entries in a failover and gave their ids again) is never skipped by it.
fn done_key(id: u64, target: &[u8; 8]) -> Vec<u8> {
    [DONE_PREFIX, &id.to_le_bytes(), target].concat()
}

fn key_tag(ns: &[u8], key: &[u8]) -> [u8; 8] {
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    h.update(b"k");
    h.update(&(ns.len() as u64).to_le_bytes());
    h.update(ns);
    h.update(key);
    h.digest().to_le_bytes()
}

fn namespace_tag(ns: &[u8]) -> [u8; 8] {
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    h.update(b"n");
    h.update(ns);
    h.digest().to_le_bytes()
}

/// Notes, once this server's near copy reflects the write with stream entry `id` (see
/// `DONE_PREFIX`). Only then: a writer that dies before it, or whose own update of the copy
/// failed, leaves no note, and its entry is applied as anyone else's. Why skipping is sound:
/// `claimed` reached `id` before the writer touched its copy, so no fill of an older value can
/// be published after it. An id that does not name one entry exactly (`is_exact`) gets none.
fn note_done(cache: &Cache, id: u64, target: &[u8; 8]) {
    if is_exact(id) {
        let _ = cache.set(
            &reserved(),
            &done_key(id, target),
            ValueKind::INT,
            &0i64.to_le_bytes(),
            DONE_TTL,
        );
    }
}

/// Whether this server's own writer noted entry `id` of `target` done; the note goes either way
/// (one applier skips, others racing it just delete again).
fn take_done(cache: &Cache, id: u64, target: &[u8; 8]) -> bool {
    is_exact(id) && matches!(cache.delete(&reserved(), &done_key(id, target)), Ok(true))
}

fn generation_key(ns: &Namespace) -> Vec<u8> {
    [GENERATION_PREFIX, ns.name()].concat()
}

/// True when an invalidation newer than `q` may have been applied. A `q` that is not exact
/// (`is_exact`) stands for several entries, any of which an applier may have claimed.
fn fill_is_stale(cache: &Cache, q: u64) -> bool {
    let claimed = word(cache, CLAIMED).load(Ordering::SeqCst);
    if is_exact(q) {
        claimed > q
    } else {
        claimed >= q
    }
}

/// The coarse monotonic clock (the kernel's tick, a few ms: enough for `resync_interval`, and
/// read without a system call in a few nanoseconds, so every tiered call may ask it).
pub fn coarse_now() -> Duration {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a valid, writable timespec; CLOCK_MONOTONIC_COARSE exists on Linux.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC_COARSE, &mut ts) };
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

fn word(cache: &Cache, which: usize) -> &AtomicU64 {
    &cache.coordination_words()[which]
}

/// A nonzero 64-bit stand-in for Redis' epoch value (0 means "none yet").
fn epoch_hash(epoch: &[u8]) -> u64 {
    xxhash_rust::xxh3::xxh3_64(epoch) | 1
}

fn read_int(cache: &Cache, ns: &Namespace, key: &[u8]) -> Option<i64> {
    let mut out = Vec::with_capacity(8);
    match cache.get(ns, key, &mut out) {
        Ok(Some(ValueKind::INT)) => Some(i64::from_le_bytes(out.as_slice().try_into().ok()?)),
        _ => None,
    }
}

/// Raises a position to at least `to`. A read-modify-write even when it is already higher, so
/// that Dekker's pairing with `fill` holds by the language's rules, not only the hardware's.
fn raise(cache: &Cache, which: usize, to: u64) {
    word(cache, which).fetch_max(to, Ordering::SeqCst);
}

/// Stream ids (`ms-seq`) as one ordered integer. A sequence number past what fits (a Redis whose
/// clock went back keeps counting in its last millisecond) is stored as the largest: such ids
/// keep their order against all others but not among themselves (`is_exact`).
const SEQ_BITS: u32 = 16;
const SEQ_MAX: u64 = (1 << SEQ_BITS) - 1;

/// Whether a packed id stands for one stream entry only (its sequence number was not cut to
/// `SEQ_MAX`). The others are handled conservatively: fills at them lose to a claim of them,
/// and writes at them leave no note.
fn is_exact(id: u64) -> bool {
    id & SEQ_MAX != SEQ_MAX
}

fn parse_id(s: &[u8]) -> Option<u64> {
    let s = std::str::from_utf8(s).ok()?;
    let (ms, seq) = s.split_once('-')?;
    let (ms, seq): (u64, u64) = (ms.parse().ok()?, seq.parse().ok()?);
    Some((ms << SEQ_BITS) | seq.min(SEQ_MAX))
}

fn format_id(id: u64) -> String {
    format!("{}-{}", id >> SEQ_BITS, id & ((1 << SEQ_BITS) - 1))
}

fn stream_id(v: &Value) -> Option<u64> {
    parse_id(&bulk(v)?)
}

fn bulk(v: &Value) -> Option<Vec<u8>> {
    match v {
        Value::BulkString(b) => Some(b.clone()),
        Value::SimpleString(s) => Some(s.as_bytes().to_vec()),
        Value::Int(n) => Some(n.to_string().into_bytes()),
        _ => None,
    }
}

/// In Redis an integer is its decimal text (so INCRBY works on it); anything else is its
/// kind byte (below b'-') followed by the engine's bytes.
fn encode_value(kind: ValueKind, value: &[u8]) -> Vec<u8> {
    if kind == ValueKind::INT {
        if let Ok(bytes) = <[u8; 8]>::try_from(value) {
            return i64::from_le_bytes(bytes).to_string().into_bytes();
        }
    }
    let mut out = Vec::with_capacity(1 + value.len());
    out.push(kind.0);
    out.extend_from_slice(value);
    out
}

fn decode_value(stored: &[u8]) -> Option<(ValueKind, Vec<u8>)> {
    match stored.first() {
        Some(&k) if k < b'-' => Some((ValueKind(k), stored[1..].to_vec())),
        Some(_) => {
            let n: i64 = std::str::from_utf8(stored).ok()?.parse().ok()?;
            Some((ValueKind::INT, n.to_le_bytes().to_vec()))
        }
        None => None,
    }
}

enum Target {
    Key(Vec<u8>, Vec<u8>),
    Namespace(Vec<u8>),
    All,
}

struct Entry {
    id: u64,
    target: Target,
}

fn parse_entry(v: &Value) -> Option<Entry> {
    let Value::Array(parts) = v else { return None };
    let [id, Value::Array(fields)] = parts.as_slice() else { return None };
    let id = stream_id(id)?;
    let mut t = None;
    let (mut ns, mut key) = (None, None);
    for pair in fields.chunks(2) {
        let [name, value] = pair else { return None };
        match &bulk(name)?[..] {
            b"t" => t = bulk(value),
            b"n" => ns = bulk(value),
            b"k" => key = bulk(value),
            _ => {}
        }
    }
    let target = match t.as_deref()? {
        b"k" => Target::Key(ns?, key?),
        b"n" => Target::Namespace(ns?),
        b"a" => Target::All,
        _ => return None,
    };
    Some(Entry { id, target })
}

fn random_epoch() -> Vec<u8> {
    let mut bytes = [0u8; 16];
    // SAFETY: writes at most 16 bytes into our buffer.
    let n = unsafe { libc::getrandom(bytes.as_mut_ptr().cast(), bytes.len(), 0) };
    if n != bytes.len() as isize {
        let t = now_ms() ^ ((std::process::id() as u64) << 40);
        bytes[..8].copy_from_slice(&t.to_le_bytes());
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect::<String>().into_bytes()
}

/// When a near copy of a value that Redis gave `pttl` milliseconds to live, in a reply to a
/// call sent at `sent_ms`, must die (Unix seconds, 0 = never): no later than Redis' copy, which
/// counted from when the script ran, after `sent_ms`, less the clock's tolerance (a step back
/// smaller than `clock::TOLERANCE_MS` goes unseen). None: not worth copying (it would be dead
/// on arrival).
fn near_expiry(sent_ms: u64, pttl: i64, now_ms: u64) -> Option<u64> {
    match pttl {
        -1 => Some(0),
        p if p < 0 => None,
        p => Some(sent_ms.saturating_add(p as u64).saturating_sub(clock::TOLERANCE_MS) / 1000)
            .filter(|&t| t > now_ms / 1000),
    }
}

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claimed_never_goes_down_not_even_across_a_flush_of_the_region() {
        let config = crate::engine::Config {
            keys_memory_size: 1 << 16,
            values_memory_size: 256 << 10,
            compress_threshold: 0,
        };
        let cache = Cache::create(&config).unwrap();
        raise(&cache, CLAIMED, 10);
        cache.flush_all();
        // A late raise from a worker that read an older position (a reset that began earlier).
        raise(&cache, CLAIMED, 5);
        assert!(fill_is_stale(&cache, 7), "a fill older than an applied invalidation must lose");
        assert!(!fill_is_stale(&cache, 10));
    }

    #[test]
    fn a_fill_at_an_id_past_the_sequence_limit_loses_to_a_claim_of_the_same_packed_id() {
        let config = crate::engine::Config {
            keys_memory_size: 1 << 16,
            values_memory_size: 256 << 10,
            compress_threshold: 0,
        };
        let cache = Cache::create(&config).unwrap();
        let cut = parse_id(b"1700000000000-65535").unwrap();
        assert_eq!(parse_id(b"1700000000000-70000"), Some(cut), "both cut to the same position");
        assert!(!is_exact(cut) && is_exact(parse_id(b"1700000000000-65534").unwrap()));
        // An applier claimed 1700000000000-70000; a fill read at 1700000000000-65535 is older.
        raise(&cache, CLAIMED, cut);
        assert!(fill_is_stale(&cache, cut));
        assert!(!fill_is_stale(&cache, parse_id(b"1700000000001-0").unwrap()));
    }

    #[test]
    fn stream_ids_keep_their_order_as_integers() {
        let ids = ["0-0", "0-1", "1-0", "1700000000000-0", "1700000000000-5", "1700000000001-0"];
        let packed: Vec<u64> = ids.iter().map(|s| parse_id(s.as_bytes()).unwrap()).collect();
        assert!(packed.windows(2).all(|w| w[0] < w[1]), "{packed:?}");
        assert_eq!(format_id(parse_id(b"1700000000000-5").unwrap()), "1700000000000-5");
    }

    #[test]
    fn integers_are_decimal_in_redis_and_other_kinds_keep_their_kind_byte() {
        assert_eq!(encode_value(ValueKind::INT, &(-42i64).to_le_bytes()), b"-42");
        let (kind, bytes) = decode_value(b"-42").unwrap();
        assert_eq!((kind, i64::from_le_bytes(bytes.try_into().unwrap())), (ValueKind::INT, -42));
        assert_eq!(encode_value(ValueKind(6), b"12"), b"\x0612");
        assert_eq!(decode_value(b"\x0612"), Some((ValueKind(6), b"12".to_vec())));
    }

    #[test]
    fn urls_name_a_unix_socket_or_a_tcp_address() {
        assert_eq!(connection_url("unix:///run/r.sock").unwrap(), "redis+unix:///run/r.sock");
        assert_eq!(connection_url("tcp://10.0.0.2:6380").unwrap(), "redis://10.0.0.2:6380");
        assert!(connection_url("redis://x").is_err());
        assert!(connection_url("unix://relative").is_err());
    }

    #[test]
    fn only_host_names_are_resolved_by_the_tier_and_within_the_timeout() {
        assert_eq!(tcp_host_name("tcp://10.0.0.2:6380"), None);
        assert_eq!(tcp_host_name("tcp://[::1]:6380"), None);
        assert_eq!(tcp_host_name("unix:///run/r.sock"), None);
        assert_eq!(tcp_host_name("tcp://localhost:6380"), Some(("localhost", 6380)));
        let addresses = resolve("localhost", 6380, Duration::from_secs(5), Duration::ZERO).unwrap();
        assert!(
            addresses.iter().all(|a| a.ip().is_loopback() && a.port() == 6380),
            "{addresses:?}"
        );
    }
}
