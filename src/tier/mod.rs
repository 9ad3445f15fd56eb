//! Tiered mode: Redis holds the truth, this server's region a near copy kept coherent by an
//! invalidation stream. Pure Rust (no PHP), so it is tested against a real redis-server with
//! two regions standing for two servers (`tests/tier.rs`). docs/design.md ("Tiered mode") tells
//! why; this is the protocol.
//!
//! # Redis
//!
//! Every call is one run of `script.lua`. A write also appends its key (or namespace, or "all")
//! to the stream `{prefix}inval` and returns the entry's id S; a read returns, with the value,
//! the stream's last id Q. Stream ids are packed into ordered integers (`wire`). Redis also
//! keeps an epoch, a random value set when it has none: another epoch is another Redis (one
//! that lost its data), whose stream positions mean nothing here.
//!
//! # The coordination words (`positions`, which allocates all of them)
//!
//! The region keeps six words out of reach of its flushes and of the ring's recycling:
//! - `CLAIMED`: the highest stream position an applier has begun to apply, raised *before* its
//!   deletes. Only ever grows.
//! - `APPLIED`: the position up to which every invalidation is applied, raised *after* the
//!   deletes; the next sync reads the stream after it. Only grows, except that a reset to
//!   another Redis sets it to that Redis' position.
//! - `EPOCH`: a hash of the epoch of the Redis the positions belong to (0: none yet).
//! - `SEEN`: the highest position a value in the near copy may come from, raised before the
//!   value is inserted; a sync asks Redis whether its entry is still in the stream (if not,
//!   Redis lost writes this server has seen, and the near copy starts over).
//! - `MARK`: when a tiered process last used the region (unix seconds); a process without the
//!   tier stays out of a recently marked region, and takes over one whose mark is older than
//!   `positions::LEASE_SECONDS`.
//! - `CLOCK`: the offset between the wall clock and CLOCK_BOOTTIME the near expiries were
//!   computed with; the wall clock stepping back against it empties the near copy.
//!
//! # The pairings
//!
//! In each, both sides write their word and then read the other's, all SeqCst, so of two racing
//! sides at least one sees the other.
//! - Claim against fill. An applier (`sync`, `reset_near`, a flush, `after_write`) raises
//!   `CLAIMED`, then deletes. A fill (`fill`: a near miss read from Redis at Q, or a local write
//!   with Q = S) takes its slot as a pending word (invisible, and cleared by a delete of the
//!   key), then loads `CLAIMED` (`positions::fill_is_stale`): above Q, an invalidation newer
//!   than the value may already have been applied, so the fill is withdrawn; otherwise it is
//!   published (`Cache::set_if_current_until`). One of the two sees the other.
//! - Epoch against fill. A reset to another Redis swaps `EPOCH`, then flushes; a fill loads
//!   `EPOCH` after its pending word is visible and withdraws if it changed since its call was
//!   sent (`stamp`), so no reply of the old Redis outlives the reset.
//! - Clock against fill. A step back of the wall clock moves `CLOCK` (a CAS), then flushes;
//!   a fill with an expiry withdraws if the word changed since its expiry was computed.
//! - Mark against epoch. A tiered process stores `MARK`, then its sync loads `EPOCH`; a process
//!   taking the region over stores `EPOCH` = 0, then exchanges `MARK` to 0 (failing if it
//!   moved): either the tiered process finds no epoch and empties the near copy before trusting
//!   it, or the takeover fails.
//!
//! # A request
//!
//! A request's first call syncs (`sync`: one round trip reads the stream after `APPLIED`,
//! checks the epoch and `SEEN`, and applies the entries, or resets the near copy when there are
//! too many, some were trimmed, or Redis is another); until then, and for the whole request if
//! Redis fails, the near copy is not trusted. A writer notes in its own region that its entry is
//! reflected there (`fill`'s notes), so its own server's next sync skips the entry instead of
//! deleting the copy the writer just made.
//!
//! # Modules
//!
//! `config` (settings and counters), `positions` (the words and both halves of each pairing),
//! `ops` (the operations), `sync` (sync, apply, reset), `fill` (fills and done-notes), `client`
//! (the Redis connection and its `Error`), `wire` (stream ids, values as Redis stores them),
//! `time` (the clocks read).

use std::sync::atomic::{fence, Ordering};
use std::sync::{Mutex, MutexGuard, TryLockError};
use std::time::Duration;

use redis::Script;

use crate::engine::{Cache, ValueKind};

mod client;
mod config;
mod fill;
mod ops;
pub mod positions;
mod sync;
pub mod time;
mod wire;

use client::connection_url;
pub use client::Error;
pub use config::{TierConfig, TierCounters};
pub use ops::{read_near, Near};
use positions::{word, EPOCH};
use time::{coarse_now, now_ms};

/// A trusted request renews the region's mark at least this often, whatever its resync
/// interval: well inside the lease (`positions::LEASE_SECONDS`).
const MARK_RENEWAL: Duration = Duration::from_secs(positions::LEASE_SECONDS / 4);

/// The near copy of "Redis has no such key" (the value-kind registry's `ValueKind::ABSENT`).
pub const ABSENT: ValueKind = ValueKind::ABSENT;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Trust {
    /// Not yet synced in this request.
    Unknown,
    Trusted,
    /// Redis failed in this request: nothing near is read, writes fail.
    Untrusted,
}

pub use crate::engine::WriteMode;

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
    /// When this process last renewed the region's mark (`positions::renew_mark`), on the same clock.
    marked_at: Duration,
    warning: Option<String>,
    pub counters: TierCounters,
    /// Test hook: the next sync that applies entries panics halfway (`arm_test_panic`).
    test_panic: bool,
    /// Test hook: milliseconds added to this tier's reading of the wall clock
    /// (`set_test_wall_clock_shift`).
    test_wall_shift_ms: i64,
    /// The region's clock word as this process last checked it (`positions::check_clock_word`): a fill with
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
    pub fn new(config: TierConfig) -> Result<Tier, Error> {
        connection_url(&config.url)?;
        if config.test_clock_ahead_ms != 0 {
            time::arm_test_clock_step(config.test_clock_ahead_ms, config.test_clock_step_after);
        }
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
        now_ms().saturating_add_signed(self.test_wall_shift_ms + time::test_shift_ms())
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
            positions::renew_mark(cache, time::unix_now());
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
        let checked = positions::check_clock_word(cache, self.wall_ms());
        if checked.stepped_back {
            // Fills made under the old word re-check it (SeqCst, then their pending word is
            // visible): each either sees the new word or is flushed here.
            fence(Ordering::SeqCst);
            cache.flush_all_but_local();
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

    fn fail(&mut self, e: Error) {
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
    fn write_refused(&mut self, e: redis::RedisError) {
        self.counters.redis_errors += 1;
        if self.warning.is_none() && self.trust != Trust::Untrusted {
            self.warning =
                Some(format!("shmcache: Redis at {} refused a write ({e})", self.config.url));
        }
    }

    /// A reply the tier's script never gives: what else is on the connection cannot be trusted
    /// either, so it goes, and the request is not trusted.
    fn unexpected_reply(&mut self) {
        self.connection = None;
        self.fail(Error::UnexpectedReply("unexpected reply from the tier script"));
    }
}
