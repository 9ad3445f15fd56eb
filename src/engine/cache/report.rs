//! `Cache::stats`: the shared counters and the sizes of the region.
//!
//! Invariant: only loads (the counters are summed, used slots counted or sampled); a status
//! page never writes shared memory.

use std::sync::atomic::Ordering;

use super::Cache;
use crate::engine::index::is_pending;
use crate::engine::stats::{Counter, Stats};

const EXACT_SLOT_COUNT_LIMIT: usize = 1 << 22;
const SAMPLED_SLOTS: usize = 1 << 20;

impl Cache {
    /// Counters and sizes. Counting used slots reads the whole index (O(slots)).
    pub fn stats(&self) -> Stats {
        let h = self.region.header();
        let s = &h.stats;
        // This process's reads not yet in the shared counters count as well (read, not added).
        let own = self.deferred.peek();
        let (lapped, corrupt) =
            (s.sum(Counter::ValidationLapped), s.sum(Counter::ValidationCorrupt));
        // Exact up to 4M slots (32 MiB of index); beyond that an evenly spread sample of 1M
        // slots, scaled, so a status page never walks (and faults in) a huge table.
        let index = self.index();
        let slots = index.slot_count() as usize;
        let step = if slots <= EXACT_SLOT_COUNT_LIMIT { 1 } else { slots / SAMPLED_SLOTS };
        let sampled = index
            .slot_numbers()
            .step_by(step)
            .map(|slot| index.load(slot, Ordering::Acquire))
            .filter(|&w| {
                if w == 0 || is_pending(w) {
                    return false;
                }
                !self.flushed(w, self.tail())
            })
            .count() as u64;
        let slots_used = (sampled * step as u64).min(slots as u64);
        Stats {
            hits: s.sum(Counter::Hits).wrapping_add(own.hits),
            misses: s.sum(Counter::Misses).wrapping_add(own.misses),
            sets: s.sum(Counter::Sets),
            deletes: s.sum(Counter::Deletes),
            kicks: s.sum(Counter::Kicks),
            recycles: s.sum(Counter::Recycles),
            expired: s.sum(Counter::Expired).wrapping_add(own.expired),
            validation_failures: lapped.wrapping_add(corrupt),
            validation_lapped: lapped,
            validation_corrupt: corrupt,
            compressed_count: s.sum(Counter::CompressedCount),
            // Every byte the tail moved past (it starts at 64) was written, but for the skipped
            // ones; a region an older build writes to as well may be short of some of those.
            values_written_bytes: (self.tail() - 64)
                .saturating_sub(s.sum(Counter::RingSkippedBytes)),
            flushes: s.sum(Counter::Flushes),
            namespace_flushes: s.sum(Counter::NamespaceFlushes),
            cas_retries: s.sum(Counter::CasRetries),
            slots_total: slots as u64,
            slots_used,
            slots_used_estimated: step > 1,
            keys_memory_size: h.keys_memory_size,
            values_memory_size: h.values_memory_size,
            ring_used: (self.tail() - 64).min(self.capacity),
            max_value_size: self.max_value_len(1) as u64,
            compress_threshold: h.compress_threshold,
            start_time: h.start_time,
            namespaces_used: self.namespaces().used(),
        }
    }
}
