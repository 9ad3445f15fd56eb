//! delete, incr/decr/cas and the flushes.
//!
//! Invariants: delete and every update are a CAS from the slot word the operation read, so none
//! removes or overwrites a value written after the one it saw; an update appends a new entry
//! like a write, except that of an in-place integer, which is one 16-byte swap from the pair it
//! read (so it too never overwrites a value it did not see). Flushes are one atomic add (epoch) or a namespace-table update: O(1), and
//! entries are live only while the epoch and generation they were written under are current.

use std::sync::atomic::Ordering;

use super::read::Lookup;
use super::sink::{CheckOnly, LocalSink};
use super::write::{Draft, MAX_ATTEMPTS};
use super::{check_key, Cache, Liveness, Namespace, ValueKind};
use crate::engine::entry::{
    entry_len, pair_check, pair_pos, EntryHeader, FLAG_IN_PLACE, HEADER_LEN,
};
use crate::engine::error::Error;
use crate::engine::index::{key_tail, make_word, string_hash, Probe, AWAY};
use crate::engine::stats::Counter;

impl Cache {
    /// Removes `key`; true when a live entry was removed. A write of the key still pending
    /// (not yet visible) is cleared too, so it cannot publish after the delete.
    pub fn delete(&self, ns: &Namespace, key: &[u8]) -> Result<bool, Error> {
        self.delete_hashed(ns, key, string_hash(key))
    }

    /// `delete` of a key whose `string_hash` the caller has at hand (see `write_hashed`).
    // Inlined (as the other `*_hashed` writes) into the PHP call: one call level fewer.
    #[inline(always)]
    pub fn delete_hashed(
        &self,
        ns: &Namespace,
        key: &[u8],
        key_string_hash: u64,
    ) -> Result<bool, Error> {
        debug_assert_eq!(key_string_hash, string_hash(key));
        check_key(key)?;
        let probe = Probe::new(key_string_hash.wrapping_add(ns.hash), key_tail(key), self.buckets);
        // The entry's head is validated, not its value (read.rs, read_full): delete costs the
        // same whatever the value's size, and reports a key live exactly when exists, add and
        // replace would see it live.
        for _ in 0..MAX_ATTEMPTS {
            match self.find_full(&probe, ns, key, &mut CheckOnly) {
                Lookup::Absent => {
                    self.clear_pending(&probe, ns, key);
                    return Ok(false);
                }
                Lookup::Present { slot, word, header, damaged } => {
                    let live = !damaged
                        && self.liveness(&header, self.read_generation(ns)) == Liveness::Live;
                    if self.index().swap(slot, word, 0, Ordering::AcqRel) {
                        self.clear_pending(&probe, ns, key);
                        if live {
                            self.bump(Counter::Deletes);
                        }
                        return Ok(live);
                    }
                }
            }
        }
        Err(Error::Contended)
    }

    /// Adds `delta` to a live integer; None when the key is missing or not an integer.
    pub fn incr(&self, ns: &Namespace, key: &[u8], delta: i64) -> Result<Option<i64>, Error> {
        self.incr_hashed(ns, key, string_hash(key), delta)
    }

    /// `incr` of a key whose `string_hash` the caller has at hand (see `write_hashed`).
    #[inline(always)]
    pub fn incr_hashed(
        &self,
        ns: &Namespace,
        key: &[u8],
        key_string_hash: u64,
        delta: i64,
    ) -> Result<Option<i64>, Error> {
        self.update_int(ns, key, key_string_hash, |old| Some(old.wrapping_add(delta)))
    }

    /// Sets a live integer to `new` only if it currently equals `old`.
    pub fn cas(&self, ns: &Namespace, key: &[u8], old: i64, new: i64) -> Result<bool, Error> {
        self.cas_hashed(ns, key, string_hash(key), old, new)
    }

    /// `cas` of a key whose `string_hash` the caller has at hand (see `write_hashed`).
    #[inline(always)]
    pub fn cas_hashed(
        &self,
        ns: &Namespace,
        key: &[u8],
        key_string_hash: u64,
        old: i64,
        new: i64,
    ) -> Result<bool, Error> {
        Ok(self.update_int(ns, key, key_string_hash, |cur| (cur == old).then_some(new))?.is_some())
    }

    /// Read–append–CAS loop on an integer entry; `f` returns None to leave it unchanged.
    pub(super) fn update_int(
        &self,
        ns: &Namespace,
        key: &[u8],
        key_string_hash: u64,
        f: impl Fn(i64) -> Option<i64>,
    ) -> Result<Option<i64>, Error> {
        debug_assert_eq!(key_string_hash, string_hash(key));
        check_key(key)?;
        let probe = Probe::new(key_string_hash.wrapping_add(ns.hash), key_tail(key), self.buckets);
        // As in store_draft: the new entry will most likely go where the tail is now (unless
        // integers are updated in place, where nothing is appended).
        if !self.pair_swap {
            self.prefetch_ring(
                self.ring_size.pos(self.tail()),
                entry_len(ns.name.len() + key.len(), 8),
            );
        }
        let mut sink = LocalSink::new();
        for _ in 0..MAX_ATTEMPTS {
            let (slot, word, header) = match self.find_full(&probe, ns, key, &mut sink) {
                Lookup::Present { slot, word, header, damaged: false } => (slot, word, header),
                Lookup::Present { slot, word, damaged: true, .. } => {
                    self.unlink_damaged(slot, word);
                    return Ok(None);
                }
                Lookup::Absent => return Ok(None),
            };
            let Ok(bytes) = <[u8; 8]>::try_from(sink.bytes()) else { return Ok(None) };
            if self.liveness(&header, self.read_generation_outlined(ns)) != Liveness::Live
                || ValueKind(header.kind) != ValueKind::INT
                || header.compressed()
            {
                return Ok(None);
            }
            let current = i64::from_le_bytes(bytes);
            if header.flags & FLAG_IN_PLACE != 0 {
                return self.update_in_place(&header, slot, word, probe.hash, current, &f);
            }
            let Some(next) = f(current) else { return Ok(None) };
            let bytes = next.to_le_bytes();
            let draft = Draft {
                ns,
                key,
                key_hash: probe.hash,
                kind: ValueKind::INT,
                stored: &bytes,
                flags: 0,
                raw_len: 8,
                // An increment keeps the entry's expiry and store time, as APCu's does.
                expires_at: header.expires_at,
                stored_at: header.stored_at,
                in_place: self.in_place(ValueKind::INT, 0, &bytes),
            };
            let Some(offset) = self.append(&draft, probe.hash, header.ns_generation, header.epoch)
            else {
                continue;
            };
            let new_word = make_word(probe.tag, offset, draft.entry_len()) | (word & AWAY);
            if self.index().swap(slot, word, new_word, Ordering::AcqRel) {
                self.bump(Counter::Sets);
                return Ok(Some(next));
            }
            self.bump(Counter::CasRetries);
        }
        Err(Error::Contended)
    }

    /// The update of an in-place integer (entry.rs `FLAG_IN_PLACE`) that `find_full` just read
    /// as `current`: one 16-byte swap of its pair, no new entry. A swap that finds another
    /// value there (a rival's update landed first) retries from that value. The slot is not
    /// re-checked: an update that lands on an entry a set or delete has just replaced, or the
    /// ring has just reclaimed, began while the entry was the key's, and counts as done before
    /// the replacement (as an append-based update publishing just before it would have).
    #[cfg(target_arch = "x86_64")]
    fn update_in_place(
        &self,
        header: &EntryHeader,
        slot: usize,
        word: u64,
        key_hash: u64,
        mut current: i64,
        f: &impl Fn(i64) -> Option<i64>,
    ) -> Result<Option<i64>, Error> {
        // A cas whose compare fails answers before the pair's place and checks are computed
        // (`f` only computes; the loop asks it again).
        if f(current).is_none() {
            return Ok(None);
        }
        let offset = header.offset;
        let value_pos = self.ring_size.pos(offset) + HEADER_LEN as u64 + u64::from(header.key_len);
        let at = pair_pos(value_pos);
        let pair = |v: i64| (v as u64, pair_check(v as u64, offset, key_hash));
        for _ in 0..MAX_ATTEMPTS {
            let Some(next) = f(current) else { return Ok(None) };
            let expected = pair(current);
            // SAFETY: find_full validated the entry, whose IN_PLACE_LEN value bytes hold the
            // 16-aligned pair inside the ring; entries are only written where the CPU has
            // cmpxchg16b (write.rs `Cache::in_place`), and a region never leaves its machine.
            let seen = unsafe { self.ring.swap_pair(at, expected, pair(next)) };
            if seen == expected {
                self.bump(Counter::Sets);
                return Ok(Some(next));
            }
            if pair_check(seen.0, offset, key_hash) != seen.1 {
                // Not a pair of this entry: the ring reused the bytes (the key is gone) or
                // they are damaged (then nobody may keep reading them).
                if self.unchanged_since_read(offset) {
                    self.unlink_damaged(slot, word);
                }
                return Ok(None);
            }
            current = seen.0 as i64;
            self.bump(Counter::CasRetries);
        }
        Err(Error::Contended)
    }

    /// Without cmpxchg16b no in-place entry is ever written.
    #[cfg(not(target_arch = "x86_64"))]
    fn update_in_place(
        &self,
        _header: &EntryHeader,
        _slot: usize,
        _word: u64,
        _key_hash: u64,
        _current: i64,
        _f: &impl Fn(i64) -> Option<i64>,
    ) -> Result<Option<i64>, Error> {
        Ok(None)
    }

    /// Invalidates every entry of every namespace in O(1).
    pub fn flush_all(&self) {
        let epochs = &self.region.header().hot.epoch.0;
        epochs.all.fetch_add(1, Ordering::AcqRel);
        epochs.local.fetch_add(1, Ordering::AcqRel);
        epochs.flush_tail.fetch_max(self.tail(), Ordering::AcqRel);
        self.bump(Counter::Flushes);
    }

    /// Invalidates every entry but those of local namespaces (`Namespace::local`), in O(1): what
    /// a reset of the tier's near copy empties, which the `apcu_*` functions' entries, local to
    /// this machine by contract, survive.
    pub fn flush_all_but_local(&self) {
        let epochs = &self.region.header().hot.epoch.0;
        epochs.all.fetch_add(1, Ordering::AcqRel);
        epochs.flush_tail.fetch_max(self.tail(), Ordering::AcqRel);
        self.bump(Counter::Flushes);
    }

    /// The namespace's current generation: a number that changes on every flush of it (for the
    /// root namespace, on every full flush) and is never reused, so callers can build names
    /// that a flush retires — e.g. a site namespace whose generation is part of its per-group
    /// namespace names. Creates the namespace's entry in the namespace table if needed.
    pub fn namespace_generation(&self, ns: &Namespace) -> u64 {
        if ns.is_root() {
            self.epoch()
        } else {
            self.namespaces().for_write(ns.hash)
        }
    }

    /// Invalidates one namespace in O(1); the root namespace means everything.
    pub fn flush_namespace(&self, ns: &Namespace) {
        if ns.is_root() {
            self.flush_all();
        } else {
            self.namespaces().flush(ns.hash);
            self.bump(Counter::NamespaceFlushes);
        }
    }
}
