//! Listing the live entries of one namespace (what APCu's `APCUIterator` and
//! `apcu_cache_info()['cache_list']` show): a read-only walk over every slot of the key index.
//!
//! The walk only loads: it takes no lock and writes nothing, not even a counter, so writers
//! never wait for it and a listing leaves the statistics as they were. Each entry it reports has
//! passed the checks a read makes (docs/design.md, "Reading a key"): the header's offset, the
//! lengths, the namespace, the checksum over header, key and value, and a re-check of the tail
//! after the copy; then liveness (epoch, namespace generation, expiry). An entry written or
//! deleted while the walk runs may or may not be listed; an entry that is listed was live and
//! intact when it was read.

use std::sync::atomic::Ordering;

use super::read::{in_place_shape, PairRead};
use super::{Cache, Liveness, Namespace, ValueKind};
use crate::engine::entry::{checksum_of, FLAG_IN_PLACE, HEADER_LEN};
use crate::engine::index::{
    is_hint_word, is_pending, key_hash, key_tail, word_offset, word_tag, Probe,
};
use crate::engine::namespace::NO_GENERATION;
use crate::engine::MAX_KEY_LEN;

/// How many slots ahead of the one being read `entries` requests an entry's header.
const LOOK_AHEAD: usize = 16;

/// One live entry of a listing. Entries keep no times other than their expiry and no hit
/// counts (a per-entry counter would be a shared write on every read).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ListedEntry {
    /// The key, without its namespace.
    pub key: Vec<u8>,
    pub kind: ValueKind,
    /// Length of the value as the caller stored it (before compression).
    pub value_len: u64,
    /// Bytes the entry takes in the value ring: header, namespace, key, stored value, padding.
    pub entry_len: u64,
    /// Unix time (seconds) at which the entry dies; 0 = never.
    pub expires_at: u64,
    /// Unix time (seconds) its value was stored; 0 unless its namespace records store times.
    pub stored_at: u64,
    /// Where the entry was written in the ring's ever-growing offsets: a larger value was
    /// written later.
    pub written_at: u64,
    key_hash: u64,
}

impl Cache {
    /// The live entries of `ns`, oldest write first, each key once.
    pub fn entries(&self, ns: &Namespace) -> Vec<ListedEntry> {
        let mut found = Vec::new();
        if self.read_generation(ns) == NO_GENERATION {
            return found;
        }
        let mut key = Vec::new();
        let index = self.index();
        // Where the entries lie is only known slot by slot, and nearly every header read is a
        // cache miss: the header of the slot LOOK_AHEAD places on is requested meanwhile.
        let tail = self.tail();
        let words = index.words.len();
        for slot in index.slot_numbers() {
            let ahead = slot + LOOK_AHEAD;
            if ahead < words && !is_hint_word(ahead) {
                let w = index.load(ahead, Ordering::Relaxed);
                if w != 0 {
                    self.prefetch_ring(self.ring_size.pos(word_offset(w, tail)), HEADER_LEN as u64);
                }
            }
            let word = index.load(slot, Ordering::Acquire);
            if word == 0 || is_pending(word) {
                continue;
            }
            if let Some(entry) = self.listed_entry(slot, word, ns, &mut key) {
                found.push(entry);
            }
        }
        found.sort_unstable_by_key(|e| e.written_at);
        // A key that moved to another slot while the walk ran (a cuckoo step, a delete and a
        // new insert) can have been seen in both: keep the copy written last. Copies of a key
        // have the same hash, so sorting the hashes (cheaper than sorting or hashing the keys)
        // brings them together.
        let mut by_hash: Vec<(u64, usize)> =
            found.iter().enumerate().map(|(i, e)| (e.key_hash, i)).collect();
        by_hash.sort_unstable();
        let mut superseded = vec![false; found.len()];
        for pair in by_hash.windows(2) {
            let ((h1, older), (h2, newer)) = (pair[0], pair[1]);
            if h1 == h2 && found[older].key == found[newer].key {
                superseded[older] = true;
            }
        }
        let mut superseded = superseded.into_iter();
        found.retain(|_| !superseded.next().unwrap_or(false));
        found
    }

    /// The entry slot `slot` (holding `word`) points at, if it belongs to `ns`, is intact and
    /// validated, and is live. `key` is scratch space for the stored key.
    fn listed_entry(
        &self,
        slot: usize,
        word: u64,
        ns: &Namespace,
        key: &mut Vec<u8>,
    ) -> Option<ListedEntry> {
        let cap = self.capacity;
        let (offset, pos, h) = self.resident_header(word)?;
        let total = h.total_len();
        if total > self.max_entry_len || pos + total > cap {
            return None;
        }
        let ns_len = ns.name.len();
        let key_len = (h.key_len as usize).checked_sub(ns_len)?;
        if h.ns_len as usize != ns_len || key_len == 0 || key_len > MAX_KEY_LEN {
            return None;
        }
        let key_pos = pos + (HEADER_LEN + ns_len) as u64;
        if !self.stored_key_equals(pos + HEADER_LEN as u64, &ns.name, b"") {
            return None;
        }
        key.clear();
        key.reserve(key_len);
        // SAFETY: the key lies within the entry, inside the ring (pos + total <= cap, and the
        // header's lengths put the key before the value); `key` has room for key_len bytes,
        // all initialised by the copy before set_len.
        unsafe {
            self.ring.copy_out(key_pos, key.as_mut_ptr(), key_len);
            key.set_len(key_len);
        }
        let hash = key_hash(ns.hash, key);
        // Only a slot a lookup of this key visits: a read could not return anything else.
        let probe = Probe::new(hash, key_tail(key), self.buckets);
        if word_tag(word) != probe.tag || !probe.slots().any(|s| s == slot) {
            return None;
        }
        let value_pos = pos + HEADER_LEN as u64 + u64::from(h.key_len);
        let value_valid = if h.flags & FLAG_IN_PLACE != 0 {
            in_place_shape(&h)
                && matches!(self.read_in_place(value_pos, offset, hash), PairRead::Value(_))
        } else {
            // SAFETY: the value lies within the entry, inside the ring (pos + total <= cap).
            unsafe { self.hash_of_copy(value_pos, h.stored_len as usize) == h.value_hash }
        };
        if !value_valid || checksum_of(&h, hash) != h.checksum || !self.unchanged_since_read(offset)
        {
            return None;
        }
        if self.liveness(&h, self.read_generation(ns)) != Liveness::Live {
            return None;
        }
        Some(ListedEntry {
            key: key.clone(),
            kind: ValueKind(h.kind),
            value_len: u64::from(if h.compressed() || h.flags & FLAG_IN_PLACE != 0 {
                h.raw_len
            } else {
                h.stored_len
            }),
            entry_len: total,
            expires_at: u64::from(h.expires_at),
            stored_at: u64::from(h.stored_at),
            written_at: offset,
            key_hash: hash,
        })
    }
}
