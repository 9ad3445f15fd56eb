//! Counters shared by every process, striped so concurrent writers rarely share a cache line.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

pub(crate) const STRIPES: usize = 16;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(usize)]
pub(crate) enum Counter {
    Hits,
    Misses,
    Sets,
    Deletes,
    Kicks,
    Recycles,
    Expired,
    /// Held every validation failure before they were told apart by cause; no longer written.
    #[allow(dead_code)]
    RetiredValidationFailures,
    CompressedCount,
    /// Summed every append's length before `values_written_bytes` was read off the tail (one
    /// atomic add fewer a write); no longer written.
    #[allow(dead_code)]
    RetiredValuesWrittenBytes,
    Flushes,
    NamespaceFlushes,
    CasRetries,
    /// A copy that failed its checks because the ring reused its bytes while it was read.
    ValidationLapped,
    /// A copy that failed its checks although the ring had not reached its bytes: damage.
    ValidationCorrupt,
    /// Ring bytes the tail moved past with nothing written there: the unused end of each lap,
    /// and reservations given up by a writer the ring lapped. `values_written_bytes` is what
    /// the tail has moved minus these.
    RingSkippedBytes,
}
const COUNTERS: usize = 16;

/// One stripe = 16 counters = two cache lines of its own.
#[repr(C, align(128))]
pub(crate) struct Stripe([AtomicU64; COUNTERS]);

#[repr(C)]
pub(crate) struct StatsBlock([Stripe; STRIPES]);

/// The stripe this process writes to. Reset in forked children (see `reset_stripe_after_fork`)
/// so FPM workers spread over the stripes instead of all inheriting the master's.
static STRIPE: AtomicUsize = AtomicUsize::new(usize::MAX);

fn stripe_index() -> usize {
    let s = STRIPE.load(Ordering::Relaxed);
    if s != usize::MAX {
        return s;
    }
    // SAFETY: getpid has no preconditions.
    let pid = unsafe { libc::getpid() } as usize;
    let s = pid % STRIPES;
    STRIPE.store(s, Ordering::Relaxed);
    s
}

extern "C" fn reset_stripe_after_fork() {
    STRIPE.store(usize::MAX, Ordering::Relaxed);
}

pub(crate) fn install_fork_hook() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // SAFETY: registers a child handler that only does an atomic store (async-signal-safe).
        unsafe {
            libc::pthread_atfork(None, None, Some(reset_stripe_after_fork));
        }
    });
}

impl StatsBlock {
    #[inline]
    pub fn add(&self, counter: Counter, n: u64) {
        self.0[stripe_index()].0[counter as usize].fetch_add(n, Ordering::Relaxed);
    }

    #[inline]
    pub fn bump(&self, counter: Counter) {
        self.add(counter, 1);
    }

    pub fn sum(&self, counter: Counter) -> u64 {
        self.0
            .iter()
            .map(|s| s.0[counter as usize].load(Ordering::Relaxed))
            .fold(0u64, u64::wrapping_add)
    }
}

/// A snapshot of the counters and sizes (`shmcache_info()`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Stats {
    pub hits: u64,
    pub misses: u64,
    pub sets: u64,
    pub deletes: u64,
    pub kicks: u64,
    pub recycles: u64,
    pub expired: u64,
    /// `validation_lapped + validation_corrupt`.
    pub validation_failures: u64,
    /// Reads whose copy the ring overwrote while it was made: expected when the ring recycles
    /// quickly, a sign that `values_memory_size` is small for the write rate.
    pub validation_lapped: u64,
    /// Reads of an entry that failed its checksum (or whose header was wrong) while the ring had
    /// not reached it: damaged shared memory, a writer stalled for a whole lap, or a bug.
    pub validation_corrupt: u64,
    pub compressed_count: u64,
    pub values_written_bytes: u64,
    pub flushes: u64,
    pub namespace_flushes: u64,
    pub cas_retries: u64,
    pub slots_total: u64,
    pub slots_used: u64,
    /// True when `slots_used` was estimated from a sample (very large key tables).
    pub slots_used_estimated: bool,
    pub keys_memory_size: u64,
    pub values_memory_size: u64,
    pub ring_used: u64,
    pub max_value_size: u64,
    pub compress_threshold: u64,
    pub start_time: u64,
    pub namespaces_used: u64,
}
