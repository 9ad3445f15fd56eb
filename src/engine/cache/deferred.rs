//! Read counts a process keeps to itself for a while (`Cache::get_into_deferred`): a get that
//! adds to the shared hit or miss counter does a locked add, and on x86 no later load of the
//! process may run before it, so the next get (or the caller's next memory access) cannot start
//! while this one still waits for its entry. Kept here, they reach the shared counters
//! `DEFER_UP_TO` at a time and whenever the caller says (the PHP extension: at the end of every
//! request), so other processes see them late by at most that; `stats` adds this process's own.
//!
//! Invariant: the counts are updated by plain loads and stores, not read-modify-writes, so one
//! thread at a time may use them (the PHP extension runs only in non-thread-safe PHP). A forked
//! child inherits its parent's counts and must forget them (`forget_deferred_reads`).

use std::sync::atomic::{AtomicU64, Ordering};

use super::batch::ReadTally;
use super::read::ReadOutcome;

/// Deferred counts of one kind that go to the shared counters together.
pub const DEFER_UP_TO: u64 = 64;

#[derive(Default)]
pub(super) struct DeferredReads {
    hits: AtomicU64,
    misses: AtomicU64,
    expired: AtomicU64,
}

/// One more in `counter`, by a load and a store (see the invariant); the new count.
#[inline(always)]
fn bump(counter: &AtomicU64) -> u64 {
    let n = counter.load(Ordering::Relaxed) + 1;
    counter.store(n, Ordering::Relaxed);
    n
}

impl DeferredReads {
    /// Counts one read; true when a count has reached `DEFER_UP_TO` (time to add them).
    #[inline(always)]
    pub(super) fn record(&self, outcome: &ReadOutcome) -> bool {
        match outcome {
            ReadOutcome::Hit(_) => bump(&self.hits) >= DEFER_UP_TO,
            ReadOutcome::Miss => bump(&self.misses) >= DEFER_UP_TO,
            ReadOutcome::Expired => {
                bump(&self.expired);
                bump(&self.misses) >= DEFER_UP_TO
            }
        }
    }

    /// The counts so far, without taking them.
    pub(super) fn peek(&self) -> ReadTally {
        ReadTally {
            hits: self.hits.load(Ordering::Relaxed),
            misses: self.misses.load(Ordering::Relaxed),
            expired: self.expired.load(Ordering::Relaxed),
        }
    }

    /// The counts so far, leaving none.
    pub(super) fn take(&self) -> ReadTally {
        let counts = self.peek();
        self.forget();
        counts
    }

    pub(super) fn forget(&self) {
        for counter in [&self.hits, &self.misses, &self.expired] {
            counter.store(0, Ordering::Relaxed);
        }
    }
}
