//! Publishing a key that has no slot yet, and the cuckoo step that makes room for it.
//!
//! Invariants:
//! - A key never has two published slots: a new key's slot is first claimed as pending
//!   (invisible to readers), then every other candidate slot is scanned for the same key (the
//!   away bucket's only when the home's hint, read after the home slots, counts a word of the
//!   key's group away); claims, hint counts and scans are SeqCst, so of two racing inserts at
//!   least one sees the other, and the lower ring offset wins (exactly one concurrent `add`
//!   succeeds). A rival claiming away counts itself in the hint before its claim, so a hint
//!   read that misses the count came before it, and that rival's scan then sees our claim.
//! - A pending word is yielded to at most MAX_YIELDS_TO_ONE_RIVAL times, then presumed to be a
//!   killed writer's and cleared.
//! - A cuckoo move goes through a pending slot, so a resident is never published twice (at
//!   worst it is briefly missing).
//! - A new key goes home when its home bucket has a free slot, away only when it has none
//!   (index.rs: a key at home costs a lookup one line).

use std::sync::atomic::Ordering;

use super::read::EntryRead;
use super::write::PublishGuard;
use super::{Cache, Namespace};
use crate::engine::index::{
    away_bucket, hint_says_away, home_bucket, is_away, is_pending, word_offset, word_tag, Probe,
    AWAY, PENDING, SLOTS_PER_BUCKET, WORDS_PER_BUCKET,
};
use crate::engine::ring;
use crate::engine::stats::Counter;

/// Cuckoo steps in a row that found no room before a process takes its index for saturated,
/// and then tries one insert in how many (`Cache::try_relocation`).
const RELOCATION_STREAK: u32 = 4;
const RELOCATION_SAMPLE: u32 = 8;

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

/// What an insert found in another candidate slot holding a word of its key's tag.
enum Rival {
    /// Another key's word, or a pending copy of this key that lost to us and was cleared.
    Gone,
    /// A published copy of the key, or a slot that changed under us: withdraw and retry.
    Wins,
    /// A pending copy of the key that was there first: withdraw, let it finish, retry.
    Older,
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
        // Candidates: the home bucket's seven slots, then the away bucket's (none when both are
        // the same); `words` holds the words of the first `count` of them.
        let candidates = if probe.has_away() { 2 * SLOTS_PER_BUCKET } else { SLOTS_PER_BUCKET };
        let mut count = SLOTS_PER_BUCKET;
        let mut words = [0u64; 2 * SLOTS_PER_BUCKET];
        let mut tail = self.load_slots(probe, count, &mut words);
        let is_free =
            |w: u64, tail: u64| w == 0 || !ring::is_intact(tail, word_offset(w, tail), cap);
        let mut stale_ok = false;
        // A free slot at home is the choice whatever the away bucket holds (candidates are
        // taken in order), so the away words are loaded only when home has none (the rival
        // scan below reads the away bucket after the claim when the hint counts one there).
        if !words[..count].iter().any(|&w| is_free(w, tail)) {
            if candidates > count {
                count = candidates;
                tail = self.load_slots(probe, count, &mut words);
            }
            if !words[..count].iter().any(|&w| is_free(w, tail)) {
                // Full buckets: entries of an older flush epoch are garbage too. Reading an
                // entry's epoch costs a random ring line, so only the oldest entry's is read, and
                // only when it was written before the last flush (`Epochs::flush_tail`): a flush
                // leaves dead every entry written before it, the oldest first; when that one is
                // dead, `free` below judges the others in order. (After a flush that spares
                // local namespaces the oldest may be a live local entry beside dead ones: the
                // insert then evicts as if none were dead.) Failing that, try one cuckoo move.
                let flush_tail = self.flush_tail();
                stale_ok = words[..count]
                    .iter()
                    .filter(|&&w| !is_pending(w))
                    .min_by_key(|&&w| word_offset(w, tail))
                    .is_some_and(|&w| word_offset(w, tail) < flush_tail && self.flushed(w, tail));
                if !stale_ok && self.try_relocation(probe) {
                    tail = self.load_slots(probe, count, &mut words);
                }
            }
        }
        let words = &words[..count];
        let free =
            |w: u64| is_free(w, tail) || (stale_ok && !is_pending(w) && self.flushed(w, tail));
        // Victim: a free slot (empty, recycled by the ring, or flushed), at home if there is
        // one (a key at home is found by reading one line), else away; else the oldest entry.
        // Candidates are in that order, so the first free one is the choice.
        let (chosen, victim_free) = match words.iter().position(|&w| free(w)) {
            Some(i) => (i, true),
            None => {
                let oldest = (0..count)
                    .min_by_key(|&i| word_offset(words[i], tail))
                    .expect("a probe has at least one slot");
                // The oldest entry may be this very key: a rival insert's, published or pending
                // since we looked the key up (a rival that retried reuses its first append, so
                // its offset can be older than every neighbour's). The scan below skips the
                // victim, so it must be judged here, by the same rules.
                let theirs = words[oldest];
                if probe.matches(theirs & !PENDING, oldest >= SLOTS_PER_BUCKET)
                    && matches!(
                        self.read_key_cold(theirs & !PENDING, &ns.name, key),
                        EntryRead::Same(_)
                    )
                {
                    if !is_pending(theirs) {
                        // Published: the retry finds it and updates it (or, for add, returns false).
                        return false;
                    }
                    if word_offset(theirs & !PENDING, tail) < offset && !rival.presumed_dead(theirs)
                    {
                        rival.yielded(theirs);
                        std::thread::yield_now();
                        return false;
                    }
                    // A pending rival with a higher offset loses to us: claiming its slot clears it.
                }
                (oldest, false)
            }
        };
        let [home, away] = probe.buckets.map(|b| b as usize * WORDS_PER_BUCKET);
        let victim = if chosen < SLOTS_PER_BUCKET {
            home + chosen
        } else {
            away + chosen - SLOTS_PER_BUCKET
        };
        let old = words[chosen];
        let word = if chosen >= SLOTS_PER_BUCKET { word | AWAY } else { word };
        let pending = word | PENDING;
        if !index.swap(victim, old, pending, Ordering::SeqCst) {
            return false;
        }
        if !victim_free && !is_pending(old) {
            self.bump(Counter::Kicks);
        }
        let withdraw = || {
            let _ = index.swap(victim, pending, 0, Ordering::SeqCst);
        };
        // Bucket by bucket over the slot words themselves (a walk by candidate number cost an
        // add more): every other candidate, for a copy of this key; the away bucket only when
        // the home's hint counts one of this group there, as a lookup decides (reading it in
        // any case cost an add of a new key a second random line: docs/benchmarks.md).
        let scanned = if probe.has_away() { &probe.buckets[..] } else { &probe.buckets[..1] };
        for (b, &bucket) in scanned.iter().enumerate() {
            if b == 1 && !hint_says_away(index.hint(probe.buckets[0], Ordering::SeqCst), probe.tag)
            {
                break;
            }
            let first = bucket as usize * WORDS_PER_BUCKET;
            for (j, cell) in index.bucket(bucket)[..SLOTS_PER_BUCKET].iter().enumerate() {
                let theirs = cell.load(Ordering::SeqCst);
                // Only a word the lookup would find counts as this key's (the same tag and
                // `away` as its place says): a word whose away bit was damaged is invisible to
                // every lookup, so yielding to it would send the retry round forever (found by
                // the region_corruption fuzz target).
                if theirs == 0 || first + j == victim || !probe.matches(theirs & !PENDING, b == 1) {
                    continue;
                }
                match self.settle_rival(first + j, theirs, ns, key, offset, rival) {
                    Rival::Gone => {}
                    Rival::Wins => {
                        withdraw();
                        return false;
                    }
                    Rival::Older => {
                        withdraw();
                        std::thread::yield_now();
                        return false;
                    }
                }
            }
        }
        if G::GUARDED && !guard.still_current() {
            withdraw();
            *lost = true;
            return false;
        }
        let published = index.swap(victim, pending, word, Ordering::SeqCst);
        if G::GUARDED && !published {
            *lost = true;
        }
        published
    }

    /// What an insert that holds its pending claim does about `theirs`, a word in `slot` with
    /// the key's tag: another key's is ignored; a published copy of the key, or a pending one
    /// that was there first (a lower ring offset) and is not presumed dead, wins; a pending one
    /// with a higher offset loses and is cleared here. Out of line: a tag match is rare.
    #[cold]
    #[inline(never)]
    fn settle_rival(
        &self,
        slot: usize,
        theirs: u64,
        ns: &Namespace,
        key: &[u8],
        offset: u64,
        rival: &mut RivalWatch,
    ) -> Rival {
        let tail = self.tail();
        if !matches!(self.read_key_cold(theirs & !PENDING, &ns.name, key), EntryRead::Same(_)) {
            return Rival::Gone;
        }
        if !is_pending(theirs) {
            return Rival::Wins;
        }
        let their_offset = word_offset(theirs & !PENDING, tail);
        if their_offset < offset && !rival.presumed_dead(theirs) {
            rival.yielded(theirs);
            return Rival::Older;
        }
        if self.index().swap(slot, theirs, 0, Ordering::SeqCst) {
            Rival::Gone
        } else {
            Rival::Wins
        }
    }

    /// Clears the pending words of `key` (an insert, a cuckoo move or a guarded write that has
    /// not published yet), so that a delete wins over a write still deciding: otherwise a
    /// guarded fill older than the delete could publish after it. The away bucket is read only
    /// when the home's hint counts a word of this tag's group away: a pending away word is
    /// counted (SeqCst) before it is stored, so a word this skips was stored after the hint
    /// was read, later than the delete's own stores before it, which the writer's guard then
    /// sees (the pairing of docs/design.md, "The key index").
    ///
    /// The words this reads first (home's slots, then its hint) almost never call for work, so
    /// they are tested inline in the delete; only a pending word of this tag at home or a hint
    /// counting some away takes the call that reads them again and clears (`clear_pending_in`).
    #[inline(always)]
    pub(super) fn clear_pending(&self, probe: &Probe, ns: &Namespace, key: &[u8]) {
        let words = self.index().bucket(probe.buckets[0]);
        let pending_home =
            words[..SLOTS_PER_BUCKET].iter().any(|w| probe.pending_match(w.load(Ordering::SeqCst)));
        if pending_home
            || (probe.has_away()
                && hint_says_away(words[SLOTS_PER_BUCKET].load(Ordering::SeqCst), probe.tag))
        {
            self.clear_pending_in(probe, ns, key);
        }
    }

    /// `clear_pending` itself: reads the words again, in the same order, and clears.
    #[inline(never)]
    fn clear_pending_in(&self, probe: &Probe, ns: &Namespace, key: &[u8]) {
        let index = self.index();
        let [home, away] = probe.buckets;
        // Bucket by bucket over the slot words themselves: every delete runs this, and a walk
        // by slot number (Probe::slots) with a separate pending and tag test cost a delete
        // more (docs/benchmarks.md, "Figures behind code comments").
        let words = index.bucket(home);
        for (i, word) in words[..SLOTS_PER_BUCKET].iter().enumerate() {
            let theirs = word.load(Ordering::SeqCst);
            if probe.pending_match(theirs) {
                self.clear_pending_word(home as usize * WORDS_PER_BUCKET + i, theirs, ns, key);
            }
        }
        if !probe.has_away()
            || !hint_says_away(words[SLOTS_PER_BUCKET].load(Ordering::SeqCst), probe.tag)
        {
            return;
        }
        for (i, word) in index.bucket(away)[..SLOTS_PER_BUCKET].iter().enumerate() {
            let theirs = word.load(Ordering::SeqCst);
            if probe.pending_match(theirs) {
                self.clear_pending_word(away as usize * WORDS_PER_BUCKET + i, theirs, ns, key);
            }
        }
    }

    /// Empties `slot`, which holds the pending word `theirs`, if that word is `key`'s.
    #[cold]
    #[inline(never)]
    fn clear_pending_word(&self, slot: usize, theirs: u64, ns: &Namespace, key: &[u8]) {
        if matches!(self.read_key_cold(theirs & !PENDING, &ns.name, key), EntryRead::Same(_)) {
            let _ = self.index().swap(slot, theirs, 0, Ordering::SeqCst);
        }
    }

    /// Reads the words of the first `count` candidates (the home bucket's seven, then the away
    /// bucket's) into `words`, then the tail: offsets are rebuilt relative to the tail, so it
    /// must be read after the words (a word published after an older tail reading would decode
    /// to a bogus offset).
    #[inline(always)]
    fn load_slots(
        &self,
        probe: &Probe,
        count: usize,
        words: &mut [u64; 2 * SLOTS_PER_BUCKET],
    ) -> u64 {
        let index = self.index();
        let (at_home, away) = words.split_at_mut(SLOTS_PER_BUCKET);
        for (w, cell) in at_home.iter_mut().zip(index.bucket(probe.buckets[0]).iter()) {
            *w = cell.load(Ordering::Acquire);
        }
        if count > SLOTS_PER_BUCKET {
            for (w, cell) in away.iter_mut().zip(index.bucket(probe.buckets[1]).iter()) {
                *w = cell.load(Ordering::Acquire);
            }
        }
        self.tail()
    }

    /// One cuckoo step (`relocate_one`), unless the index looks saturated: after
    /// `RELOCATION_STREAK` steps in a row of this process found no room, only one insert in
    /// `RELOCATION_SAMPLE` tries. A step reads the other bucket of each resident it tries, up
    /// to 14 random index lines, and in a saturated index every one of them is full; a step
    /// that finds room again (deletes, the ring recycling entries) resumes trying every time.
    /// Skipping a step only changes which entry an insert evicts.
    fn try_relocation(&self, probe: &Probe) -> bool {
        let misses = self.relocation_misses.load(Ordering::Relaxed);
        if misses >= RELOCATION_STREAK && misses % RELOCATION_SAMPLE != 0 {
            self.relocation_misses.store(misses.wrapping_add(1), Ordering::Relaxed);
            return false;
        }
        let moved = self.relocate_one(probe);
        self.relocation_misses
            .store(if moved { 0 } else { misses.wrapping_add(1) }, Ordering::Relaxed);
        moved
    }

    /// One cuckoo step: moves a resident of the key's two full buckets to its own other bucket
    /// when that has room, so the insert needs no kick; residents living away are tried first
    /// (moving one home makes its lookups read one line again). Where a word's other bucket is
    /// follows from its slot and tag (index.rs). The move goes through a pending slot, so the
    /// resident is never published twice (at worst it is briefly missing).
    pub(super) fn relocate_one(&self, probe: &Probe) -> bool {
        let index = self.index();
        let cap = self.capacity;
        let n = self.bucket_count;
        for going_home in [true, false] {
            for from in probe.slots() {
                let word = index.load(from, Ordering::Acquire);
                if word == 0 || is_pending(word) || is_away(word) != going_home {
                    continue;
                }
                let here = (from / WORDS_PER_BUCKET) as u64;
                let tag = word_tag(word);
                let (other, moved) = if going_home {
                    (home_bucket(here, tag, n), word & !AWAY)
                } else {
                    (away_bucket(here, tag, n), word | AWAY)
                };
                if other == here || probe.buckets.contains(&other) {
                    continue;
                }
                let first = other as usize * WORDS_PER_BUCKET;
                for to in first..first + SLOTS_PER_BUCKET {
                    let free = index.load(to, Ordering::Acquire);
                    let tail = self.tail();
                    if free != 0 && ring::is_intact(tail, word_offset(free, tail), cap) {
                        continue;
                    }
                    if !index.swap(to, free, moved | PENDING, Ordering::SeqCst) {
                        return false;
                    }
                    if !index.swap(from, word, 0, Ordering::SeqCst) {
                        let _ = index.swap(to, moved | PENDING, 0, Ordering::SeqCst);
                        return false;
                    }
                    return index.swap(to, moved | PENDING, moved, Ordering::SeqCst);
                }
            }
        }
        false
    }
}
