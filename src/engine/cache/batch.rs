//! Reads of many keys of one namespace (`get_each`), with the index buckets and entries of the
//! keys a few places ahead requested from memory while the current key is read.
//!
//! Invariants: each key is read exactly as `read.rs` reads one key (same validation); only the
//! counting differs (hits, misses and expiries added to the shared counters once per batch).
//! Nothing is allocated, so a `deliver` that never returns (a PHP bailout) leaves nothing held.

use std::sync::atomic::Ordering;

use super::read::{prefetch, ReadOutcome};
use super::sink::ValueSink;
use super::{check_key, Cache, Namespace, ValueKind};
use crate::engine::error::Error;
use crate::engine::index::{
    last_byte, string_hash, word_lines, word_offset, Probe, SLOTS_PER_BUCKET, WORDS_PER_BUCKET,
};
use crate::engine::ring;
use crate::engine::stats::Counter;

/// How many keys ahead a batched read (get_each) requests index buckets.
const BATCH_LOOKAHEAD: usize = 4;

/// Hits, misses and expiries of a batch of reads, added to the shared counters once at the end
/// (each shared add is an atomic instruction).
#[derive(Default)]
pub(super) struct ReadTally {
    hits: u64,
    misses: u64,
    expired: u64,
}

impl ReadTally {
    pub(super) fn add(&mut self, outcome: &ReadOutcome) {
        match outcome {
            ReadOutcome::Hit(_) => self.hits += 1,
            ReadOutcome::Miss => self.misses += 1,
            ReadOutcome::Expired => {
                self.expired += 1;
                self.misses += 1;
            }
        }
    }

    pub(super) fn count(&self, cache: &Cache) {
        let stats = &cache.region.header().stats;
        for (counter, n) in [
            (Counter::Hits, self.hits),
            (Counter::Misses, self.misses),
            (Counter::Expired, self.expired),
        ] {
            if n > 0 {
                stats.add(counter, n);
            }
        }
    }
}

impl Cache {
    /// Reads `keys` (all of namespace `ns`) one after the other into `sink`, handing each key
    /// back to `deliver` with its result: the kind on a hit (the value is then in the sink,
    /// which `deliver` empties) or None; `deliver` returns false to stop there. The index
    /// buckets of the key a few places ahead are requested from memory while the current one is
    /// read, so a batch of keys not in the CPU's cache waits for memory about once rather than
    /// once per key; hits and misses are counted once per batch. A key that is empty or too long ends the batch with an error
    /// (callers check keys first). Nothing is allocated here, so a `deliver` that never returns
    /// (a PHP fatal error in unserialize) loses at most the keys still in the look-ahead window.
    pub fn get_each<S: ValueSink, K: AsRef<[u8]>, I: IntoIterator<Item = K>>(
        &self,
        ns: &Namespace,
        keys: I,
        sink: &mut S,
        deliver: impl FnMut(K, Option<ValueKind>, &mut S) -> bool,
    ) -> Result<(), Error> {
        self.get_each_hashed(ns, keys, |k: &K| string_hash(k.as_ref()), sink, deliver)
    }

    /// `get_each` for keys whose `string_hash` the caller has at hand: `hash_of` gives it
    /// (it must be `string_hash` of the key's bytes).
    pub fn get_each_hashed<S: ValueSink, K: AsRef<[u8]>, I: IntoIterator<Item = K>>(
        &self,
        ns: &Namespace,
        keys: I,
        hash_of: impl Fn(&K) -> u64,
        sink: &mut S,
        mut deliver: impl FnMut(K, Option<ValueKind>, &mut S) -> bool,
    ) -> Result<(), Error> {
        let generation = self.read_generation(ns);
        let mut keys = keys.into_iter();
        // Key i waits in window[i % BATCH_LOOKAHEAD], its buckets already requested.
        let mut window: [Option<(K, Probe)>; BATCH_LOOKAHEAD] = std::array::from_fn(|_| None);
        let next_probed = |keys: &mut I::IntoIter| -> Result<Option<(K, Probe)>, Error> {
            let Some(key) = keys.next() else { return Ok(None) };
            check_key(key.as_ref())?;
            let key_string_hash = hash_of(&key);
            debug_assert_eq!(key_string_hash, string_hash(key.as_ref()));
            let probe = Probe::new(
                key_string_hash.wrapping_add(ns.hash),
                last_byte(key.as_ref()),
                self.buckets,
            );
            self.prefetch_buckets(&probe);
            Ok(Some((key, probe)))
        };
        for slot in window.iter_mut() {
            *slot = next_probed(&mut keys)?;
        }
        let mut tally = ReadTally::default();
        let mut i = 0;
        while let Some((key, probe)) = window[i % BATCH_LOOKAHEAD].take() {
            let refill = next_probed(&mut keys);
            // Halfway through the window the buckets have had time to arrive: request the
            // entries they point at too.
            if let Some((_, halfway)) = &window[(i + BATCH_LOOKAHEAD / 2) % BATCH_LOOKAHEAD] {
                self.prefetch_entries(halfway);
            }
            // The first keys of a batch had no turn halfway through the window: their entries
            // are requested by the read itself.
            let outcome = if i >= BATCH_LOOKAHEAD / 2 {
                self.read_probed::<S, true>(&probe, ns, key.as_ref(), generation, sink)
            } else {
                self.read_probed::<S, false>(&probe, ns, key.as_ref(), generation, sink)
            };
            tally.add(&outcome);
            if !deliver(key, outcome.kind(), sink) {
                break;
            }
            match refill {
                Ok(next) => window[i % BATCH_LOOKAHEAD] = next,
                Err(e) => {
                    tally.count(self);
                    return Err(e);
                }
            }
            i += 1;
        }
        tally.count(self);
        Ok(())
    }

    /// Requests the ring lines of the entry of the home-bucket word that carries this probe's
    /// tag (a key living away is read without this head start).
    pub(super) fn prefetch_entries(&self, probe: &Probe) {
        let index = self.index();
        let first = probe.buckets[0] as usize * WORDS_PER_BUCKET;
        for slot in first..first + SLOTS_PER_BUCKET {
            let word = index.load(slot, Ordering::Relaxed);
            if probe.matches(word, false) {
                // Almost always the key's own entry (a 15-bit tag rarely matches another):
                // one is enough.
                let tail = self.tail();
                let offset = word_offset(word, tail);
                if ring::is_intact(tail, offset, self.capacity) {
                    self.prefetch_ring(self.ring_size.pos(offset), word_lines(word) * 64);
                }
                return;
            }
        }
    }

    /// Requests the key's home bucket: one line, all a read needs unless the key lives away.
    pub(super) fn prefetch_buckets(&self, probe: &Probe) {
        prefetch(self.index().line(probe.buckets[0]));
    }
}
