//! Publishing a key that has no slot yet, and the cuckoo step that makes room for it.
//!
//! Invariants:
//! - A key never has two published slots: a new key's slot is first claimed as pending
//!   (invisible to readers), then every other candidate slot is scanned for the same key; claims
//!   and scans are SeqCst, so of two racing inserts at least one sees the other, and the lower
//!   ring offset wins (exactly one concurrent `add` succeeds).
//! - A pending word is yielded to at most MAX_YIELDS_TO_ONE_RIVAL times, then presumed to be a
//!   killed writer's and cleared.
//! - A cuckoo move goes through a pending slot, so a resident is never published twice (at
//!   worst it is briefly missing).

use std::sync::atomic::Ordering;

use super::read::{EntryRead, READ_BUF};
use super::write::PublishGuard;
use super::{with_buffer, Cache, Namespace};
use crate::engine::entry::HEADER_LEN;
use crate::engine::index::{is_pending, key_hash, namespace_hash, word_offset, word_tag, Probe, PENDING};
use crate::engine::region::SLOTS_PER_BUCKET;
use crate::engine::ring;
use crate::engine::stats::Counter;

/// After yielding this many times to the same pending insert, treat its writer as dead.
const MAX_YIELDS_TO_ONE_RIVAL: u32 = 64;

/// Tracks the pending insert we keep yielding to, so a rival killed mid-insert can't block us.
#[derive(Default)]
pub(super) struct RivalWatch {
    word: u64,
    yields: u32,
}

impl RivalWatch {
    pub(super) fn yielded(&mut self, word: u64) {
        if self.word == word {
            self.yields += 1;
        } else {
            *self = RivalWatch { word, yields: 1 };
        }
    }

    pub(super) fn presumed_dead(&self, word: u64) -> bool {
        self.word == word && self.yields >= MAX_YIELDS_TO_ONE_RIVAL
    }
}

impl Cache {
    /// Publishes a key that has no slot yet. The new slot is first made pending (invisible);
    /// then every other candidate slot is checked for the same key. Among concurrent inserts of
    /// one key the lowest ring offset wins, a loser withdraws, and a published copy of the key
    /// makes us withdraw and retry as an update — so a key never has two published slots and
    /// exactly one concurrent `add` succeeds. Returns false when the caller must retry.
    ///
    /// A guarded write asks its guard while its slot is pending; `lost` is set when the guard
    /// said no or a delete (or a newer rival) cleared the pending word: then it must not retry.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn insert_new<G: PublishGuard>(
        &self,
        probe: &Probe,
        ns: &Namespace,
        key: &[u8],
        offset: u64,
        word: u64,
        rival: &mut RivalWatch,
        guard: &mut G,
        lost: &mut bool,
    ) -> bool {
        let index = self.index();
        let cap = self.capacity;
        // Candidate i (0..count) is slot slot_of[i]: the first bucket's four, then the second's
        // (only one bucket when both are the same).
        let mut slot_of = [0usize; 2 * SLOTS_PER_BUCKET];
        let mut count = 0;
        for slot in probe.slots() {
            slot_of[count] = slot as usize;
            count += 1;
        }
        let slot_of = &slot_of[..count];
        let mut words = [0u64; 2 * SLOTS_PER_BUCKET];
        let mut tail = self.load_slots(slot_of, &mut words);
        let is_free = |w: u64, tail: u64| w == 0 || !ring::is_intact(tail, word_offset(w, tail), cap);
        let mut stale_ok = false;
        if !words[..count].iter().any(|&w| is_free(w, tail)) {
            // Full buckets: entries of an older flush epoch are garbage too (reading their
            // epoch costs a ring access, so only now); failing that, try one cuckoo move.
            let epoch = self.epoch();
            stale_ok = words[..count].iter().any(|&w| !is_pending(w) && self.entry_epoch(w, tail) != Some(epoch));
            if !stale_ok && self.relocate_one(probe) {
                tail = self.load_slots(slot_of, &mut words);
            }
        }
        let words = &words[..count];
        let epoch = self.epoch();
        let free = |w: u64| is_free(w, tail) || (stale_ok && !is_pending(w) && self.entry_epoch(w, tail) != Some(epoch));
        // Victim: a free slot (empty, recycled by the ring, or flushed) in the less loaded of
        // the two buckets (two-choice placement keeps buckets even), else the oldest entry.
        // Bit i of `free_slots` says candidate i is free; the first four bits are the first bucket.
        let free_slots = words.iter().enumerate().fold(0u32, |bits, (i, &w)| bits | (u32::from(free(w)) << i));
        let bucket_mask = (1u32 << SLOTS_PER_BUCKET) - 1;
        let in_second = free_slots >> SLOTS_PER_BUCKET;
        let in_first = free_slots & bucket_mask;
        let preferred = if in_second.count_ones() > in_first.count_ones() { in_second << SLOTS_PER_BUCKET } else { in_first };
        // (The preferred bucket has no free slot only when neither has one.)
        let chosen = if preferred != 0 {
            preferred.trailing_zeros() as usize
        } else {
            let oldest = (0..count).min_by_key(|&i| word_offset(words[i], tail)).expect("a probe has at least one slot");
            // The oldest entry may be this very key: a rival insert's, published or pending
            // since we looked the key up (a rival that retried reuses its first append, so its
            // offset can be older than every neighbour's). The scan below skips the victim, so
            // it must be judged here, by the same rules.
            let theirs = words[oldest];
            if word_tag(theirs) == probe.tag && matches!(self.read_key_cold(theirs & !PENDING, &ns.name, key), EntryRead::Same(_)) {
                if !is_pending(theirs) {
                    // Published: the retry finds it and updates it (or, for add, returns false).
                    return false;
                }
                if word_offset(theirs & !PENDING, tail) < offset && !rival.presumed_dead(theirs) {
                    rival.yielded(theirs);
                    std::thread::yield_now();
                    return false;
                }
                // A pending rival with a higher offset loses to us: claiming its slot clears it.
            }
            oldest
        };
        let (victim, old, victim_free) = (slot_of[chosen], words[chosen], free_slots & (1 << chosen) != 0);
        let pending = word | PENDING;
        if index[victim].compare_exchange(old, pending, Ordering::SeqCst, Ordering::Relaxed).is_err() {
            return false;
        }
        if !victim_free && !is_pending(old) {
            self.bump(Counter::Kicks);
        }
        let withdraw = || {
            let _ = index[victim].compare_exchange(pending, 0, Ordering::SeqCst, Ordering::Relaxed);
        };
        for &slot in slot_of.iter().filter(|&&s| s != victim) {
            let theirs = index[slot].load(Ordering::SeqCst);
            if theirs == 0 || word_tag(theirs) != probe.tag {
                continue;
            }
            let tail = self.tail();
            if !matches!(self.read_key_cold(theirs & !PENDING, &ns.name, key), EntryRead::Same(_)) {
                continue;
            }
            if !is_pending(theirs) {
                withdraw();
                return false;
            }
            let their_offset = word_offset(theirs & !PENDING, tail);
            if their_offset < offset && !rival.presumed_dead(theirs) {
                withdraw();
                rival.yielded(theirs);
                std::thread::yield_now();
                return false;
            }
            if index[slot].compare_exchange(theirs, 0, Ordering::SeqCst, Ordering::Relaxed).is_err() {
                withdraw();
                return false;
            }
        }
        if G::GUARDED && !guard.still_current() {
            withdraw();
            *lost = true;
            return false;
        }
        let published = index[victim].compare_exchange(pending, word, Ordering::SeqCst, Ordering::Relaxed).is_ok();
        if G::GUARDED && !published {
            *lost = true;
        }
        published
    }

    /// Clears the pending words of `key` (an insert, a cuckoo move or a guarded write that has
    /// not published yet), so that a delete wins over a write still deciding: otherwise a
    /// guarded fill older than the delete could publish after it.
    pub(super) fn clear_pending(&self, probe: &Probe, ns: &Namespace, key: &[u8]) {
        let index = self.index();
        for slot in probe.slots().map(|s| s as usize) {
            let theirs = index[slot].load(Ordering::SeqCst);
            if !is_pending(theirs) || word_tag(theirs) != probe.tag {
                continue;
            }
            if matches!(self.read_key_cold(theirs & !PENDING, &ns.name, key), EntryRead::Same(_)) {
                let _ = index[slot].compare_exchange(theirs, 0, Ordering::SeqCst, Ordering::Relaxed);
            }
        }
    }

    /// Reads the words of `slots` into `words`, then the tail: offsets are rebuilt relative to
    /// the tail, so it must be read after the words (a word published after an older tail
    /// reading would decode to a bogus offset).
    #[inline(always)]
    pub(super) fn load_slots(&self, slots: &[usize], words: &mut [u64; 2 * SLOTS_PER_BUCKET]) -> u64 {
        let index = self.index();
        for (w, &slot) in words.iter_mut().zip(slots) {
            *w = index[slot].load(Ordering::Acquire);
        }
        self.tail()
    }

    /// The probe of the key stored at a slot word (read back from the ring), if it still checks out.
    pub(super) fn probe_of_resident(&self, word: u64, buf: &mut Vec<u8>) -> Option<Probe> {
        let cap = self.capacity;
        let (_, pos, h) = self.resident_header(word)?;
        let key_len = h.key_len as usize;
        if h.ns_len > h.key_len || pos + (HEADER_LEN + key_len) as u64 > cap {
            return None;
        }
        buf.clear();
        buf.reserve(key_len);
        // SAFETY: the key lies within the ring (checked above); `buf` has room for key_len bytes.
        unsafe {
            self.ring.copy_out(pos + HEADER_LEN as u64, buf.as_mut_ptr(), key_len);
            buf.set_len(key_len);
        }
        let (ns, key) = buf.split_at(h.ns_len as usize);
        let probe = Probe::new(key_hash(namespace_hash(ns), key), self.bucket_count);
        (probe.tag == word_tag(word)).then_some(probe)
    }

    /// One cuckoo step: moves a resident of the key's two full buckets to its own other bucket
    /// when that has room, so the insert needs no kick. The move goes through a pending slot,
    /// so the resident is never published twice (at worst it is briefly missing).
    pub(super) fn relocate_one(&self, probe: &Probe) -> bool {
        let index = self.index();
        let cap = self.capacity;
        for from in probe.slots().map(|s| s as usize) {
            let word = index[from].load(Ordering::Acquire);
            if word == 0 || is_pending(word) {
                continue;
            }
            let Some(theirs) = with_buffer(&READ_BUF, |buf| self.probe_of_resident(word, buf)) else { continue };
            let here = from as u64 / 4;
            if !theirs.buckets.contains(&here) {
                continue;
            }
            let other = if theirs.buckets[0] == here { theirs.buckets[1] } else { theirs.buckets[0] };
            if probe.buckets.contains(&other) {
                continue;
            }
            for to in (other * 4..other * 4 + 4).map(|s| s as usize) {
                let free = index[to].load(Ordering::Acquire);
                let tail = self.tail();
                if free != 0 && ring::is_intact(tail, word_offset(free, tail), cap) {
                    continue;
                }
                if index[to].compare_exchange(free, word | PENDING, Ordering::SeqCst, Ordering::Relaxed).is_err() {
                    return false;
                }
                if index[from].compare_exchange(word, 0, Ordering::SeqCst, Ordering::Relaxed).is_err() {
                    let _ = index[to].compare_exchange(word | PENDING, 0, Ordering::SeqCst, Ordering::Relaxed);
                    return false;
                }
                return index[to].compare_exchange(word | PENDING, word, Ordering::SeqCst, Ordering::Relaxed).is_ok();
            }
        }
        false
    }

}
