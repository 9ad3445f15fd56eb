//! What a tier is told (`shmcache.redis*` settings) and what it counts.

use std::time::Duration;

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
    /// Test hook: this process reads the wall clock this far ahead (ms) until
    /// `test_clock_step_after` after its tier is made, then steps back to the machine's
    /// (`time::arm_test_clock_step`; 0 in production).
    pub test_clock_ahead_ms: u64,
    pub test_clock_step_after: Duration,
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
            test_clock_ahead_ms: 0,
            test_clock_step_after: Duration::ZERO,
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
