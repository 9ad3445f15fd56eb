//! set, add and replace: append a complete entry to the ring, then publish it with one CAS.
//!
//! Invariants:
//! - An entry is complete and checksummed (from the writer's own copy of the value, never from
//!   the ring) before the CAS that publishes it; a killed writer leaves unpublished bytes only.
//! - Space is reserved by moving the tail first; a release fence orders that reservation before
//!   the first byte written into the ring (docs/design.md, "Memory ordering").
//! - A writer lapped by the ring before it writes gives up its reservation without writing; an
//!   appended entry is published only while it is far from being recycled (`still_fresh`).
//! - A retry reuses its first append while generation and epoch are unchanged.
//! - Dead slot words are swept once per SWEEP_ROUND_BYTES of writes, before their offsets alias.
//! - A guarded write (`set_if_current`) sits in its slot as a pending word, invisible to readers,
//!   while its guard decides; a delete of the key clears that pending word and wins.

use std::sync::atomic::{fence, Ordering};

use super::compress::COMPRESS_BUF;
use super::insert::RivalWatch;
use super::read::Lookup;
use super::sink::CheckOnly;
use super::{check_key, clamp_secs, with_buffer, Cache, Liveness, Namespace, ValueKind};
use crate::engine::checksum;
use crate::engine::clock;
use crate::engine::entry::{
    checksum_of, entry_len, pair_check, pair_pos, EntryHeader, FLAG_COMPRESSED, FLAG_IN_PLACE,
    HEADER_LEN, IN_PLACE_LEN,
};
use crate::engine::error::Error;
use crate::engine::index::{
    is_hint_word, key_tail, make_word, string_hash, word_offset, Probe, AWAY, OFFSET_PERIOD,
    PENDING,
};
use crate::engine::ring;
use crate::engine::stats::Counter;

/// How long a write lives: a TTL in seconds from now (0 = forever, negative = already dead),
/// or until a Unix time in seconds (0 = forever).
#[derive(Clone, Copy)]
pub(super) enum Lifetime {
    Ttl(i64),
    Until(u64),
}

/// A write gives up after this many lost races on one key (the caller then reports failure).
pub(super) const MAX_ATTEMPTS: u32 = 10_000;

/// Every slot of the index is swept once per this many bytes of writes, clearing words whose
/// entries the ring has overwritten: a slot word stores its offset modulo OFFSET_PERIOD, so a
/// dead word left alone would read as intact again once that many bytes had been written after
/// its entry. The sweep of one slot may be missed twice (its writer killed) and the word still
/// cleared in time: a word dies at most a ring's capacity after its entry was written, and is
/// next swept at most a round and a lap after that.
const SWEEP_ROUND_BYTES: u64 = 1 << 44;
const _: () = assert!(3 * SWEEP_ROUND_BYTES + 3 * crate::engine::MAX_VALUES_MEMORY < OFFSET_PERIOD);

/// What a write does when the key is (or is not) already live (the one enum of it: the PHP
/// glue and the tier use it too).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Mode {
    /// Store whether or not the key is live.
    Set,
    /// Store only if the key is not live.
    Add,
    /// Store only if the key is live.
    Replace,
}

/// A value ready to append: everything but the offset, generation and epoch.
pub(super) struct Draft<'a> {
    pub(super) ns: &'a Namespace,
    pub(super) key: &'a [u8],
    /// `key_hash` of the namespace and key.
    pub(super) key_hash: u64,
    pub(super) kind: ValueKind,
    pub(super) stored: &'a [u8],
    pub(super) flags: u8,
    pub(super) raw_len: u32,
    pub(super) expires_at: u32,
    pub(super) stored_at: u32,
    /// Stored as an in-place integer pair (entry.rs `FLAG_IN_PLACE`): `Cache::in_place`.
    pub(super) in_place: bool,
}

impl Draft<'_> {
    pub(super) fn entry_len(&self) -> u64 {
        entry_len(self.ns.name.len() + self.key.len(), self.stored_len() as usize)
    }

    fn stored_len(&self) -> u32 {
        if self.in_place {
            IN_PLACE_LEN
        } else {
            self.stored.len() as u32
        }
    }
}

/// Decides, once a write's entry sits invisible (pending) in its slot, whether it is published.
pub(super) trait PublishGuard {
    /// False for ordinary writes: they publish with one CAS and never ask (no cost to them).
    const GUARDED: bool;
    fn still_current(&mut self) -> bool;
}

/// Every ordinary write.
pub(super) struct Unguarded;

impl PublishGuard for Unguarded {
    const GUARDED: bool = false;
    #[inline(always)]
    fn still_current(&mut self) -> bool {
        true
    }
}

struct Checked<F>(F);

impl<F: FnMut() -> bool> PublishGuard for Checked<F> {
    const GUARDED: bool = true;
    fn still_current(&mut self) -> bool {
        (self.0)()
    }
}

/// What a guarded publish of an existing key's slot came to.
enum Guarded {
    /// The slot changed before we could claim it: look the key up again.
    Retry,
    Published,
    /// The guard said no, or a delete cleared our pending word: nothing of ours is visible.
    Lost,
}

#[derive(Clone, Copy)]
pub(super) struct Appended {
    offset: u64,
    generation: u64,
    epoch: u64,
}

impl Cache {
    pub fn set(
        &self,
        ns: &Namespace,
        key: &[u8],
        kind: ValueKind,
        value: &[u8],
        ttl: i64,
    ) -> Result<bool, Error> {
        self.store(
            ns,
            key,
            string_hash(key),
            kind,
            value,
            Lifetime::Ttl(ttl),
            Mode::Set,
            &mut Unguarded,
        )
    }

    /// `set`, `add` or `replace` (`mode`) of a key whose `string_hash` the caller has at hand
    /// (PHP keeps it in every string it has hashed); it must be `string_hash(key)`.
    #[allow(clippy::too_many_arguments)]
    pub fn write_hashed(
        &self,
        ns: &Namespace,
        key: &[u8],
        key_string_hash: u64,
        mode: Mode,
        kind: ValueKind,
        value: &[u8],
        ttl: i64,
    ) -> Result<bool, Error> {
        debug_assert_eq!(key_string_hash, string_hash(key));
        self.store(ns, key, key_string_hash, kind, value, Lifetime::Ttl(ttl), mode, &mut Unguarded)
    }

    /// `set` for a value copied from elsewhere that may be out of date by the time it lands:
    /// the entry first takes its slot as a pending word (invisible to readers, and cleared by
    /// a `delete` of the key), then `still_current` is asked, and the entry is published only
    /// if it says yes and no delete came in between. Ok(false) when it was not published (the
    /// key then has no value here). Tiered mode fills its near copy this way: its re-check of
    /// the stream position runs while the copy cannot be read.
    pub fn set_if_current(
        &self,
        ns: &Namespace,
        key: &[u8],
        kind: ValueKind,
        value: &[u8],
        ttl: i64,
        still_current: impl FnMut() -> bool,
    ) -> Result<bool, Error> {
        self.store(
            ns,
            key,
            string_hash(key),
            kind,
            value,
            Lifetime::Ttl(ttl),
            Mode::Set,
            &mut Checked(still_current),
        )
    }

    /// `set_if_current` with an absolute expiry (Unix seconds, 0 = never): a copy of a value
    /// that must die no later than its original elsewhere does (a TTL counted from here would
    /// start late by however long the copy took to arrive).
    pub fn set_if_current_until(
        &self,
        ns: &Namespace,
        key: &[u8],
        kind: ValueKind,
        value: &[u8],
        expires_at: u64,
        still_current: impl FnMut() -> bool,
    ) -> Result<bool, Error> {
        self.store(
            ns,
            key,
            string_hash(key),
            kind,
            value,
            Lifetime::Until(expires_at),
            Mode::Set,
            &mut Checked(still_current),
        )
    }

    /// Stores only if the key is not live; exactly one of many concurrent adders wins.
    pub fn add(
        &self,
        ns: &Namespace,
        key: &[u8],
        kind: ValueKind,
        value: &[u8],
        ttl: i64,
    ) -> Result<bool, Error> {
        self.store(
            ns,
            key,
            string_hash(key),
            kind,
            value,
            Lifetime::Ttl(ttl),
            Mode::Add,
            &mut Unguarded,
        )
    }

    /// Stores only if the key is live.
    pub fn replace(
        &self,
        ns: &Namespace,
        key: &[u8],
        kind: ValueKind,
        value: &[u8],
        ttl: i64,
    ) -> Result<bool, Error> {
        self.store(
            ns,
            key,
            string_hash(key),
            kind,
            value,
            Lifetime::Ttl(ttl),
            Mode::Replace,
            &mut Unguarded,
        )
    }

    /// The expiry and store time of a write into `ns`, from one clock read.
    #[inline(never)]
    fn times_of_write(lifetime: Lifetime, ns: &Namespace) -> (u32, u32) {
        let now = clock::now_secs();
        let expires_at = match lifetime {
            Lifetime::Ttl(ttl) => Self::expiry(ttl, now),
            Lifetime::Until(t) => clamp_secs(t),
        };
        (expires_at, if ns.records_store_times { clamp_secs(now) } else { 0 })
    }

    /// The expiry of a value stored at `now` with `ttl`.
    pub(super) fn expiry(ttl: i64, now: u64) -> u32 {
        match ttl {
            0 => 0,
            // A TTL in the past stores an entry that is already dead, so add/replace keep their
            // meaning and nothing becomes visible.
            t if t < 0 => 1,
            t => clamp_secs(now.saturating_add(t as u64)),
        }
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn store<G: PublishGuard>(
        &self,
        ns: &Namespace,
        key: &[u8],
        key_string_hash: u64,
        kind: ValueKind,
        value: &[u8],
        lifetime: Lifetime,
        mode: Mode,
        guard: &mut G,
    ) -> Result<bool, Error> {
        check_key(key)?;
        let max_value = self.max_value_len(ns.name.len() + key.len());
        if value.len() > u32::MAX as usize {
            return Err(Error::ValueTooLarge { len: value.len(), max: max_value });
        }
        // Most writes have neither a TTL nor a store time to record: no clock read for them.
        let never = matches!(lifetime, Lifetime::Ttl(0) | Lifetime::Until(0));
        let (expires_at, stored_at) = if never && !ns.records_store_times {
            (0, 0)
        } else {
            Self::times_of_write(lifetime, ns)
        };
        let mut store_as = |stored: &[u8], flags: u8| {
            if stored.len() > max_value {
                return Err(Error::ValueTooLarge { len: value.len(), max: max_value });
            }
            let draft = Draft {
                ns,
                key,
                key_hash: key_string_hash.wrapping_add(ns.hash),
                kind,
                stored,
                flags,
                raw_len: value.len() as u32,
                expires_at,
                stored_at,
                in_place: self.in_place(kind, flags, stored),
            };
            self.store_draft(&draft, mode, guard)
        };
        if !self.worth_compressing(value) {
            return store_as(value, 0);
        }
        with_buffer(&COMPRESS_BUF, |compress_buf| {
            let (stored, flags) = self.maybe_compress(value, compress_buf);
            store_as(stored, flags)
        })
    }

    pub(super) fn store_draft<G: PublishGuard>(
        &self,
        d: &Draft<'_>,
        mode: Mode,
        guard: &mut G,
    ) -> Result<bool, Error> {
        let probe = Probe::new(d.key_hash, key_tail(d.key), self.buckets);
        // The entry will most likely go where the tail is now (unless another process appends
        // first): start loading those lines while the lookup below waits for its bucket, so
        // the writes into the ring find them in cache instead of stalling the atomics after.
        let tail_pos = self.ring_size.pos(self.tail());
        self.prefetch_ring(tail_pos, d.entry_len().min(4096));
        let mut appended: Option<Appended> = None;
        let mut rival = RivalWatch::default();
        for _ in 0..MAX_ATTEMPTS {
            // A plain set only needs the slot that holds the key; add/replace decide on liveness,
            // so they validate the current entry's head (never its value).
            let lookup = if mode == Mode::Set {
                self.find_key(&probe, d.ns, d.key)
            } else {
                self.find_full(&probe, d.ns, d.key, &mut CheckOnly)
            };
            let live = match &lookup {
                Lookup::Present { header, damaged, .. } => {
                    !damaged && self.liveness(header, self.read_generation(d.ns)) == Liveness::Live
                }
                Lookup::Absent => false,
            };
            match mode {
                Mode::Add if live => return Ok(false),
                Mode::Replace if !live => return Ok(false),
                _ => {}
            }
            let (generation, epoch) = self.write_stamp(d.ns);
            let offset = match appended {
                Some(a)
                    if a.generation == generation
                        && a.epoch == epoch
                        && self.still_fresh(a.offset) =>
                {
                    a.offset
                }
                _ => {
                    let Some(offset) = self.append(d, probe.hash, generation, epoch) else {
                        continue;
                    };
                    appended = Some(Appended { offset, generation, epoch });
                    offset
                }
            };
            let word = make_word(probe.tag, offset, d.entry_len());
            let mut lost = false;
            let published = match lookup {
                // The new word stays in the slot of the old one, home or away.
                Lookup::Present { slot, word: old, .. } if G::GUARDED => {
                    match self.publish_guarded(slot, old, word | (old & AWAY), guard) {
                        Guarded::Retry => false,
                        Guarded::Published => true,
                        Guarded::Lost => return Ok(false),
                    }
                }
                Lookup::Present { slot, word: old, .. } => {
                    self.index().swap(slot, old, word | (old & AWAY), Ordering::AcqRel)
                }
                Lookup::Absent => {
                    self.insert_new(&probe, d.ns, d.key, offset, word, &mut rival, guard, &mut lost)
                }
            };
            if G::GUARDED && lost {
                return Ok(false);
            }
            if published {
                self.bump(Counter::Sets);
                return Ok(true);
            }
            self.bump(Counter::CasRetries);
        }
        Err(Error::Contended)
    }

    /// Replaces the word `old` of an existing key by `word` in two steps: pending (invisible),
    /// then published if the guard agrees and the pending word is still there (a delete of the
    /// key clears it). SeqCst: the guard's reads are ordered after the pending word is visible
    /// to a deleter (tiered mode's Dekker pairing, docs/design.md).
    #[cold]
    fn publish_guarded<G: PublishGuard>(
        &self,
        slot: usize,
        old: u64,
        word: u64,
        guard: &mut G,
    ) -> Guarded {
        let index = self.index();
        let pending = word | PENDING;
        if !index.swap(slot, old, pending, Ordering::SeqCst) {
            return Guarded::Retry;
        }
        if !guard.still_current() {
            let _ = index.swap(slot, pending, 0, Ordering::SeqCst);
            return Guarded::Lost;
        }
        if index.swap(slot, pending, word, Ordering::SeqCst) {
            Guarded::Published
        } else {
            Guarded::Lost
        }
    }

    /// Whether a value is stored as an in-place integer pair (entry.rs `FLAG_IN_PLACE`): every
    /// integer, where the CPU can swap the pair.
    #[inline(always)]
    pub(super) fn in_place(&self, kind: ValueKind, flags: u8, stored: &[u8]) -> bool {
        kind == ValueKind::INT && flags == 0 && stored.len() == 8 && self.pair_swap
    }

    /// An appended entry may be published only while it is far from being recycled.
    pub(super) fn still_fresh(&self, offset: u64) -> bool {
        ring::is_intact(self.tail() + self.max_entry_len, offset, self.capacity)
    }

    /// Appends an entry; None when the ring lapped our reservation before we could write it (a
    /// writer descheduled for a whole lap): then nothing is written and the caller retries.
    pub(super) fn append(
        &self,
        d: &Draft<'_>,
        key_hash: u64,
        generation: u64,
        epoch: u64,
    ) -> Option<u64> {
        let key_len = d.ns.name.len() + d.key.len();
        let in_place = d.in_place;
        let total = d.entry_len();
        let h = self.region.header();
        let reserved = ring::reserve(&h.hot.tail.0, self.ring_size, total);
        let offset = reserved.offset;
        if reserved.new_lap {
            self.start_lap(offset + total, reserved.skipped);
        }
        let mut eh = EntryHeader {
            offset,
            checksum: 0,
            ns_generation: generation,
            expires_at: d.expires_at,
            stored_at: d.stored_at,
            epoch,
            stored_len: d.stored_len(),
            raw_len: d.raw_len,
            key_len: key_len as u16,
            ns_len: d.ns.name.len() as u16,
            kind: d.kind.0,
            flags: d.flags | if in_place { FLAG_IN_PLACE } else { 0 },
            _pad: [0; 2],
            // Hashed from our own copy of the value, never from the ring: a writer lapped while
            // copying must not give the bytes it finds there a valid checksum. An in-place
            // pair vouches for itself (its check word), so the header does not cover it.
            value_hash: if in_place { 0 } else { checksum::value_hash(d.stored) },
        };
        eh.checksum = checksum_of(&eh, key_hash);
        let pos = self.ring_size.pos(offset);
        // A stalled writer must not scribble over newer entries that now own these bytes.
        // The check leaves only the copy itself as a window; readers' checksums cover it.
        if !ring::is_intact(self.tail(), offset, self.capacity) {
            h.stats.add(Counter::RingSkippedBytes, total);
            return None;
        }
        // [ordering: tail] The reservation that moved the tail past older entries must be
        // visible before any byte of ours lands on theirs: a reader that copied one of our bytes
        // then sees the moved tail in its re-check (unchanged_since_read, after its acquire
        // fence) and drops the copy. Free on x86; a barrier on aarch64. Modelled in
        // tests/loom_protocol.rs.
        fence(Ordering::Release);
        // The bytes written are not counted here: the tail counts them (`Cache::stats`), which
        // spares every write an atomic add.
        if d.flags & FLAG_COMPRESSED != 0 {
            self.bump(Counter::CompressedCount);
        }
        // Straight from the header, the namespace, the key and the value where they are: the
        // checksum needs none of them side by side, so nothing is staged on the stack.
        let ns_pos = pos + HEADER_LEN as u64;
        let key_pos = ns_pos + d.ns.name.len() as u64;
        let value_pos = key_pos + d.key.len() as u64;
        // SAFETY: the reservation gave us [pos, pos + total) inside the ring (it never wraps)
        // and header + namespace + key + value fit in total; nothing is published until the
        // caller's CAS, so no reader trusts these bytes yet.
        unsafe {
            self.ring.write_words(pos, eh.words());
            self.ring.copy_in(ns_pos, &d.ns.name);
            self.ring.copy_in(key_pos, d.key);
            if in_place {
                self.write_in_place(value_pos, d.stored, offset, key_hash);
            } else {
                self.ring.copy_value_in(value_pos, d.stored);
            }
        }
        Some(offset)
    }

    /// Writes an in-place integer's pair for the value that starts at `value_pos` (out of line:
    /// the string writes that dominate do not carry it).
    ///
    /// # Safety
    /// As `append`'s copies: `value_pos` starts the IN_PLACE_LEN value bytes of a reservation
    /// of ours, not yet published.
    #[inline(never)]
    unsafe fn write_in_place(&self, value_pos: u64, stored: &[u8], offset: u64, key_hash: u64) {
        let value = u64::from_le_bytes(stored.try_into().unwrap_or_default());
        // SAFETY: the caller's contract; the pair ends within the IN_PLACE_LEN value bytes
        // (entry.rs pair_pos).
        unsafe {
            self.ring.write_pair(pair_pos(value_pos), [value, pair_check(value, offset, key_hash)])
        };
    }

    /// Run by the writer whose reservation (ending at `end`) started a new lap, leaving
    /// `skipped` bytes unused at the end of the previous one. Out of line: once per lap.
    #[cold]
    #[inline(never)]
    fn start_lap(&self, end: u64, skipped: u64) {
        self.bump(Counter::Recycles);
        if skipped > 0 {
            self.region.header().stats.add(Counter::RingSkippedBytes, skipped);
        }
        self.clear_dead_words(self.ring_size.split(end).0);
    }

    /// Run by the writer whose reservation started lap `lap` of the ring (exactly one
    /// reservation crosses each lap's start): empties the dead words among that lap's share of
    /// the index, slots `(lap mod laps_per_round) * share ..` and the next `share` (2 with the
    /// default sizes), so that the whole index is swept once per SWEEP_ROUND_BYTES of writes.
    /// Each word is cleared with a CAS from the value that was judged dead, so a word published
    /// meanwhile is left alone, and a writer killed halfway leaves every slot either swept or as
    /// it was. Out of line: it runs once per lap.
    #[cold]
    #[inline(never)]
    pub(super) fn clear_dead_words(&self, lap: u64) {
        let index = self.index();
        let slots = index.words.len() as u64;
        let laps_per_round = (SWEEP_ROUND_BYTES / self.capacity).max(1);
        let share = slots.div_ceil(laps_per_round);
        let first = (lap % laps_per_round).saturating_mul(share).min(slots);
        let end = first.saturating_add(share).min(slots);
        for slot in (first as usize..end as usize).filter(|&w| !is_hint_word(w)) {
            let word = index.load(slot, Ordering::Acquire);
            if word == 0 {
                continue;
            }
            // The tail after the word: read before, it could be older than a word published in
            // between, which would then decode to an old offset and look dead.
            let tail = self.tail();
            if !ring::is_intact(tail, word_offset(word, tail), self.capacity) {
                let _ = index.swap(slot, word, 0, Ordering::AcqRel);
            }
        }
    }
}
