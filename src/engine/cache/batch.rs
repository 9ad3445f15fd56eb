//! Reads of many keys of one namespace (`get_each`), a group of keys at a time: the index
//! buckets and entries of the whole group are requested from memory before the first is read.
//!
//! Invariants: each key is read exactly as `read.rs` reads one key (same validation); only the
//! counting differs (hits, misses and expiries added to the shared counters once per batch).
//! Nothing is allocated, so a `deliver` that never returns (a PHP bailout) leaves nothing held.

use std::mem::MaybeUninit;
use std::sync::atomic::Ordering;

use super::read::{prefetch, EntryRead, Lookup, ReadOutcome};
use super::sink::ValueSink;
use super::{check_key, Cache, Namespace, ValueKind};
use crate::engine::error::Error;
use crate::engine::index::{
    key_tail, string_hash, word_lines, word_offset, Probe, SLOTS_PER_BUCKET, WORDS_PER_BUCKET,
};
use crate::engine::ring;
use crate::engine::stats::Counter;

/// How many keys a batch (get_each, and the writes of `batch_write`) requests from memory
/// together.
pub(super) const BATCH_GROUP: usize = 8;

/// Where the entry a home-bucket slot word points at lies, as a batch's prefetch found it.
#[derive(Clone, Copy)]
pub(super) struct Located {
    slot: usize,
    /// 0 (`NOWHERE`) when the prefetch located nothing: an empty slot's word, which no probe
    /// matches.
    word: u64,
    offset: u64,
    pos: u64,
}

impl Located {
    /// Nothing located: the read looks through the buckets as any read does.
    const NOWHERE: Located = Located { slot: 0, word: 0, offset: 0, pos: 0 };
}

/// Hits, misses and expiries of a batch of reads, added to the shared counters once at the end
/// (each shared add is an atomic instruction).
#[derive(Default)]
pub(super) struct ReadTally {
    pub(super) hits: u64,
    pub(super) misses: u64,
    pub(super) expired: u64,
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
    /// which `deliver` empties) or None; `deliver` returns false to stop there. Hits and misses
    /// are counted once per batch. A key that is empty or too long ends the batch with an
    /// error, after the keys before it are delivered (callers check keys first). Nothing is
    /// allocated here, so a `deliver` that never returns (a PHP fatal error in unserialize)
    /// loses at most the keys still waiting in its group.
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
    ///
    /// Keys go in groups of `BATCH_GROUP`: the home buckets of the whole group are requested,
    /// then the entries those buckets point at, then the keys are read one by one; so a group of
    /// keys not in the CPU's cache waits for memory about twice rather than twice per key. (A
    /// sliding window of look-ahead keys did the same with more instructions per key, spent
    /// moving keys through the window: docs/benchmarks.md, "Figures behind code comments".)
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
        let mut tally = ReadTally::default();
        let mut result = Ok(());
        'groups: while result.is_ok() {
            // The group's keys, probes and prefetched places side by side, filled and read by
            // index: an array of `Option<(K, Probe)>` and one of `Option<Located>` moved into
            // the read loop cost a store of the tag per key and a copy of the located array
            // (a memcpy call) per group (multi-get 767 -> 743 per key, callgrind).
            let mut group: [Option<K>; BATCH_GROUP] = Default::default();
            let mut probes = [Probe::EMPTY; BATCH_GROUP];
            let mut len = 0;
            while len < BATCH_GROUP {
                let Some(key) = keys.next() else { break };
                // A bad key ends the batch, after the keys before it are read.
                if let Err(e) = check_key(key.as_ref()) {
                    result = Err(e);
                    break;
                }
                let key_string_hash = hash_of(&key);
                debug_assert_eq!(key_string_hash, string_hash(key.as_ref()));
                // The away bucket only if the key is read again as any read (`read_located`).
                let probe = Probe::home_only(
                    key_string_hash.wrapping_add(ns.hash),
                    key_tail(key.as_ref()),
                    self.buckets,
                );
                self.prefetch_buckets(&probe);
                probes[len] = probe;
                group[len] = Some(key);
                len += 1;
            }
            if len == 0 {
                break;
            }
            let mut located = [Located::NOWHERE; BATCH_GROUP];
            for (at, probe) in located[..len].iter_mut().zip(&probes[..len]) {
                *at = self.prefetch_entries(probe);
            }
            for ((place, probe), &at) in
                group[..len].iter_mut().zip(&probes[..len]).zip(&located[..len])
            {
                let Some(key) = place.take() else { continue };
                let outcome = self.read_located(probe, at, ns, key.as_ref(), generation, sink);
                tally.add(&outcome);
                if !deliver(key, outcome.kind(), sink) {
                    break 'groups;
                }
            }
            if len < BATCH_GROUP {
                break;
            }
        }
        tally.count(self);
        result
    }

    /// Requests the ring lines of the entry of the home-bucket word that carries this probe's
    /// tag (a key living away is read without this head start), and says where that entry is,
    /// for `read_located`.
    pub(super) fn prefetch_entries(&self, probe: &Probe) -> Located {
        let index = self.index();
        let first = probe.buckets[0] as usize * WORDS_PER_BUCKET;
        for slot in first..first + SLOTS_PER_BUCKET {
            let word = index.load(slot, Ordering::Relaxed);
            if probe.matches(word, false) {
                // Almost always the key's own entry (a 15-bit tag rarely matches another):
                // one is enough.
                let tail = self.tail();
                let offset = word_offset(word, tail);
                if !ring::is_intact(tail, offset, self.capacity) {
                    return Located::NOWHERE;
                }
                let pos = self.ring_size.pos(offset);
                self.prefetch_ring(pos, word_lines(word) * 64);
                return Located { slot, word, offset, pos };
            }
        }
        Located::NOWHERE
    }

    /// One read of a batch (`probe` is `Probe::home_only`'s): from the entry `prefetch_entries`
    /// located, when its slot still holds the same word and the entry is this key's, without
    /// looking through the bucket and locating the entry again; else (another key's tag, a slot
    /// changed since, a damaged or missing entry) as any read, with the away bucket added.
    /// Either way the slot's word is loaded during the call and the entry validated as
    /// `read_full` validates it.
    #[inline(always)]
    fn read_located<S: ValueSink>(
        &self,
        probe: &Probe,
        at: Located,
        ns: &Namespace,
        key: &[u8],
        generation: u64,
        sink: &mut S,
    ) -> ReadOutcome {
        let Located { slot, word, offset, pos } = at;
        // (`word != 0`: a `NOWHERE` must not pass for an empty slot 0.)
        if word != 0 && self.index().load(slot, Ordering::Acquire) == word {
            let mut h = MaybeUninit::uninit();
            let read = self.read_full_at::<S, true>(
                word, offset, pos, &ns.name, key, probe.hash, sink, &mut h,
            );
            // SAFETY: `h` is the header that read was given.
            if let EntryRead::Same(header) = unsafe { read.with(&h) } {
                let found = Lookup::Present { slot, word, header, damaged: false };
                return self.outcome_of(found, generation, sink);
            }
        }
        let probe = probe.with_away(self.buckets);
        self.read_probed::<S, true>(&probe, ns, key, generation, sink)
    }

    /// Requests the key's home bucket: one line, all a read needs unless the key lives away.
    pub(super) fn prefetch_buckets(&self, probe: &Probe) {
        prefetch(self.index().line(probe.buckets[0]));
    }
}
