//! Writes and deletes of many keys of one namespace (`write_each`, `delete_each`), a group of
//! keys at a time, as `batch.rs` reads them: the index lines and entry heads of the whole group
//! are requested from memory before the first key is handled.
//!
//! Invariants: each key is written or deleted exactly as a single call does it (the requests
//! are hints, nothing they saw is trusted later), in the order given. Nothing is allocated, so a
//! `deliver` that never returns (a PHP bailout) leaves nothing held.

use super::batch::BATCH_GROUP;
use super::{check_key, Cache, Namespace, ValueKind, WriteMode};
use crate::engine::entry::HEADER_LEN;
use crate::engine::error::Error;
use std::sync::atomic::Ordering;

use crate::engine::index::{
    key_tail, string_hash, word_offset, Probe, SLOTS_PER_BUCKET, WORDS_PER_BUCKET,
};
use crate::engine::ring;

impl Cache {
    /// Deletes `keys` (all of namespace `ns`) one after the other, each exactly as `delete`
    /// does, handing each key back to `deliver` with its result; `deliver` returns false to
    /// stop there. The keys go in look-ahead groups (`in_write_groups`). A bad key (empty or
    /// too long) gets its error and the others are still deleted.
    pub fn delete_each<K: AsRef<[u8]>, I: IntoIterator<Item = K>>(
        &self,
        ns: &Namespace,
        keys: I,
        mut deliver: impl FnMut(K, Result<bool, Error>) -> bool,
    ) {
        self.in_write_groups(
            ns,
            keys,
            |k| k.as_ref(),
            |key, hash| {
                let result = self.delete_hashed(ns, key.as_ref(), hash);
                deliver(key, result)
            },
        );
    }

    /// `write_hashed` in `mode` of each `(key, kind, value)` of `items` (all of namespace
    /// `ns`, each with `ttl`), one after the other, each exactly as a single write; `deliver`
    /// gets each item back with its result and returns false to stop there. The items go in
    /// look-ahead groups (`in_write_groups`).
    pub fn write_each<T, I: IntoIterator<Item = T>>(
        &self,
        ns: &Namespace,
        items: I,
        parts: impl Fn(&T) -> (&[u8], ValueKind, &[u8]),
        mode: WriteMode,
        ttl: i64,
        mut deliver: impl FnMut(T, Result<bool, Error>) -> bool,
    ) {
        self.in_write_groups(
            ns,
            items,
            |item| parts(item).0,
            |item, hash| {
                let (key, kind, value) = parts(&item);
                let result = self.write_hashed(ns, key, hash, mode, kind, value, ttl);
                deliver(item, result)
            },
        );
    }

    /// Hands `items` (whose keys `key_of` gives, all of namespace `ns`) to `each` one by one
    /// with their key's `string_hash`, `BATCH_GROUP` at a time: first the home bucket of every
    /// key of the group is requested, then the heads of the entries those buckets point at
    /// (where a writer compares the key); so a group whose index lines and entries are not in
    /// the CPU's caches waits for memory about twice rather than twice per key. `each` returns false to stop. The requests are only hints: each item is
    /// then handled exactly as alone, whatever changed meanwhile.
    fn in_write_groups<T, I: IntoIterator<Item = T>>(
        &self,
        ns: &Namespace,
        items: I,
        key_of: impl Fn(&T) -> &[u8],
        mut each: impl FnMut(T, u64) -> bool,
    ) {
        let mut items = items.into_iter();
        loop {
            let mut group: [Option<T>; BATCH_GROUP] = Default::default();
            let mut hashes = [0u64; BATCH_GROUP];
            let mut probes = [Probe::EMPTY; BATCH_GROUP];
            let mut len = 0;
            while len < BATCH_GROUP {
                let Some(item) = items.next() else { break };
                let key = key_of(&item);
                hashes[len] = string_hash(key);
                if check_key(key).is_ok() {
                    let probe =
                        Probe::new(hashes[len].wrapping_add(ns.hash), key_tail(key), self.buckets);
                    self.prefetch_buckets(&probe);
                    probes[len] = probe;
                }
                group[len] = Some(item);
                len += 1;
            }
            for (probe, item) in probes[..len].iter().zip(&group[..len]) {
                // (A bad key's probe stays EMPTY, whose tag 0 no real tag has.)
                if let Some(item) = item.as_ref().filter(|_| probe.tag != 0) {
                    let head_len = (HEADER_LEN + ns.name.len() + key_of(item).len()) as u64;
                    self.prefetch_head(probe, head_len);
                }
            }
            for (place, &hash) in group[..len].iter_mut().zip(&hashes[..len]) {
                let Some(item) = place.take() else { continue };
                if !each(item, hash) {
                    return;
                }
            }
            if len < BATCH_GROUP {
                return;
            }
        }
    }

    /// Requests the first `head_len` bytes of the entry of the home-bucket word that carries
    /// this probe's tag: what a writer reads of it. (The scan of `prefetch_entries`, which
    /// requests a whole entry for a read; one function for both, taking the length as an
    /// argument, cost the multi-get 8 instructions a key: docs/benchmarks.md.)
    fn prefetch_head(&self, probe: &Probe, head_len: u64) {
        let index = self.index();
        let first = probe.buckets[0] as usize * WORDS_PER_BUCKET;
        for slot in first..first + SLOTS_PER_BUCKET {
            let word = index.load(slot, Ordering::Relaxed);
            if probe.matches(word, false) {
                let tail = self.tail();
                let offset = word_offset(word, tail);
                if ring::is_intact(tail, offset, self.capacity) {
                    self.prefetch_ring(self.ring_size.pos(offset), head_len);
                }
                return;
            }
        }
    }
}
