//! Validated reads of one key: find its slot, copy its entry out of the ring (its stored key is
//! compared where it lies), check it.
//!
//! Invariants:
//! - A reader trusts nothing it copied from the ring until the entry's checksum (over header,
//!   key and value) matches and the tail, re-read after an acquire fence, shows the ring has not
//!   started reusing the entry's bytes meanwhile (`unchanged_since_read`; docs/design.md,
//!   "Memory ordering"). A copy that fails either is a miss, counted as a validation failure.
//! - The header's offset must name the offset the slot word points at, and its lengths must
//!   keep the entry inside the ring, before any length read from the ring steers a copy.
//! - The value goes straight to the caller's sink, which is asked for memory only once the
//!   key has compared equal; values of DIRECT_COPY_MAX bytes or more and compressed values are
//!   validated in a private buffer first, so a damaged length never sizes the caller's memory.

use std::cell::Cell;
use std::mem::MaybeUninit;
use std::sync::atomic::{fence, Ordering};

use super::sink::{CheckOnly, ValueSink};
use super::{check_key, with_buffer, Cache, EntryTimes, Liveness, Namespace, ValueKind};
use crate::engine::checksum::{self, SHORT_WORDS_MAX, SHORT_WORDS_MIN};
use crate::engine::entry::{
    align8, checksum_of, pair_check, pair_pos, plain_shape_word, EntryHeader, HeaderBuf,
    EPOCH_FIELD, FLAG_IN_PLACE, HEADER_LEN, IN_PLACE_LEN,
};
use crate::engine::error::Error;
use crate::engine::index::{
    hint_says_away, key_tail, string_hash, word_lines, word_offset, Probe, SLOTS_PER_BUCKET,
    WORDS_PER_BUCKET,
};
use crate::engine::lz4;
use crate::engine::ring;
use crate::engine::stats::Counter;

thread_local! {
    /// Compressed and large values, validated before the caller's sink gets them; keys read
    /// back for a cuckoo move.
    pub(super) static READ_BUF: Cell<Vec<u8>> = const { Cell::new(Vec::new()) };
}

pub(super) enum Lookup {
    Absent,
    /// The slot holding the key. `damaged`: its entry failed validation (the key bytes match but
    /// the checksum does not), so its header and value are not to be trusted: readers miss, and
    /// writers replace the slot instead of looking for another one.
    Present {
        slot: usize,
        word: u64,
        header: EntryHeader,
        damaged: bool,
    },
}

/// The 128-byte pairs of ring lines that hold the first and the last of `len` bytes at `pos`,
/// the bytes cut at the ring's end (`capacity`). With no bytes (a slot word read from shared
/// memory may announce an entry of no lines) the last is no pair past the first, and never a
/// position wrapped around below 0 (which would make `prefetch_ring` loop for ever).
#[inline(always)]
fn first_and_last_pair(pos: u64, len: u64, capacity: u64) -> (u64, u64) {
    let end = (pos + len).min(capacity);
    (pos & !127, end.saturating_sub(1) & !127)
}

/// Values validated without being kept are copied to the stack up to this length (every value
/// XXH3 hashes with its short-input paths), to a per-thread buffer beyond it.
const HASH_ON_STACK_MAX: usize = 256;

/// Values at least this long are validated in a private buffer before the caller's sink is asked
/// for memory, so a damaged length field can never make the caller allocate a huge block.
const DIRECT_COPY_MAX: usize = 1 << 20;

#[inline]
pub(super) fn prefetch<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is only a hint; it never faults, even on a bad address.
    unsafe {
        std::arch::x86_64::_mm_prefetch(p.cast::<i8>(), std::arch::x86_64::_MM_HINT_T0)
    };
}

pub(super) enum EntryRead {
    /// Dead slot or another key with the same tag.
    Other,
    /// The bytes changed under us or were never consistent: a validation failure.
    Invalid,
    Same(EntryHeader),
}

/// What `read_full` found; on `Same` the header is the one it copied into the caller's
/// `EntryHeader`. (Returned inside an `EntryRead::Same`, the header was copied once more on the
/// way out of the call: a get 831 -> 815 instructions, a get of an int 704 -> 690, callgrind.)
pub(super) enum FullRead {
    Other,
    Invalid,
    Same,
}

impl FullRead {
    /// The `EntryRead` this is, with the header `read_full` wrote to `h`. (The header is left
    /// uninitialised until the read copies it in: zeroing it first cost every read five
    /// instructions, callgrind.)
    ///
    /// # Safety
    /// `h` is the header that the `read_full` or `read_full_at` call returning `self` was
    /// given: one that returns `Same` has written all of it.
    #[inline(always)]
    pub(super) unsafe fn with(self, h: &MaybeUninit<EntryHeader>) -> EntryRead {
        match self {
            FullRead::Other => EntryRead::Other,
            FullRead::Invalid => EntryRead::Invalid,
            // SAFETY: the caller's contract: a read that returns Same wrote the whole header.
            FullRead::Same => EntryRead::Same(unsafe { h.assume_init() }),
        }
    }
}

/// What one read found. An expired entry is a miss that is also counted as expired.
pub(super) enum ReadOutcome {
    Hit(ValueKind),
    Miss,
    Expired,
}

impl ReadOutcome {
    pub(super) fn kind(&self) -> Option<ValueKind> {
        match self {
            ReadOutcome::Hit(kind) => Some(*kind),
            _ => None,
        }
    }
}

/// Reads of an in-place pair that fail their check before one is called `Busy`.
const PAIR_READ_TRIES: usize = 64;

/// What a read of an in-place integer pair found.
pub(super) enum PairRead {
    Value(u64),
    /// The pair fails its check and does not change: its bytes were damaged (or the ring has
    /// reused them, which the caller's re-check of the tail tells apart).
    Damaged,
    /// The pair changed under every read: others are swapping it.
    Busy,
}

/// The only shape an in-place integer entry can have; anything else is not a whole entry.
#[inline(always)]
pub(super) fn in_place_shape(h: &EntryHeader) -> bool {
    h.flags == FLAG_IN_PLACE
        && ValueKind(h.kind) == ValueKind::INT
        && h.stored_len == IN_PLACE_LEN
        && h.raw_len == 8
        && h.value_hash == 0
}

impl Cache {
    /// Compares the stored key at ring position `pos` with `ns` + `key`, copying it out in small
    /// chunks (never forming a reference into shared memory).
    pub(super) fn stored_key_equals(&self, pos: u64, ns: &[u8], key: &[u8]) -> bool {
        let mut chunk = [0u8; 64];
        let mut at = pos;
        for part in [ns, key] {
            for want in part.chunks(chunk.len()) {
                // SAFETY: the caller checked that the whole entry (header + key) lies within the
                // ring; the copy goes to a stack buffer and is only compared.
                unsafe { self.ring.copy_out(at, chunk.as_mut_ptr(), want.len()) };
                if &chunk[..want.len()] != want {
                    return false;
                }
                at += want.len() as u64;
            }
        }
        true
    }

    /// Whether the `bytes.len()` ring bytes at `at` are `bytes`, compared word by word as they
    /// are loaded. A copy to the stack compared afterwards made the comparison's first load wait:
    /// the copy's two stores overlap (for 4 to 31 bytes), and a load that overlaps two recent
    /// stores waits until they reach the cache (docs/benchmarks.md). The caller has checked that
    /// the range lies in the ring.
    #[inline(always)]
    pub(super) fn ring_bytes_equal(&self, at: u64, bytes: &[u8]) -> bool {
        let n = bytes.len();
        let word = |i: usize| u64::from_le_bytes(bytes[i..i + 8].try_into().expect("8 bytes"));
        // SAFETY (every read_u64 below): at + i + 8 <= at + n <= capacity (the caller's check),
        // or at + 8 <= capacity (tested) for the short case.
        let ring_word = |i: usize| u64::from_le(unsafe { self.ring.read_u64(at + i as u64) });
        if n >= 8 {
            let mut i = 0;
            while i + 8 < n {
                if ring_word(i) != word(i) {
                    return false;
                }
                i += 8;
            }
            return ring_word(n - 8) == word(n - 8);
        }
        if n == 0 {
            return true;
        }
        if at + 8 > self.capacity {
            // A short key in the ring's last 8 bytes: the slow way.
            return self.stored_key_equals(at, &[], bytes);
        }
        // One word, of which the first n bytes are compared (the rest belongs to the value or
        // the next entry). The key's bytes as a word without a store: from two overlapping
        // 4-byte reads, or byte by byte.
        let key_word = if n >= 4 {
            let half =
                |i: usize| u64::from(u32::from_le_bytes(bytes[i..i + 4].try_into().expect("4")));
            half(0) | half(n - 4) << (8 * (n - 4))
        } else {
            bytes.iter().enumerate().fold(0u64, |w, (i, &b)| w | u64::from(b) << (8 * i))
        };
        ring_word(0) & ((1u64 << (8 * n)) - 1) == key_word
    }

    /// The virtual offset and ring position of the entry a slot word points at, or None when
    /// the ring has written over that place since (the word is dead).
    #[inline(always)]
    fn locate(&self, word: u64) -> Option<(u64, u64)> {
        let tail = self.tail();
        let offset = word_offset(word, tail);
        ring::is_intact(tail, offset, self.capacity).then(|| (offset, self.ring_size.pos(offset)))
    }

    /// What a header copied from `pos` says before its lengths may be trusted: None when it
    /// may be this key's entry, `Invalid` when it is not a whole entry written at `offset`
    /// (torn or overwritten), `Other` when its namespace and key lengths are another key's.
    #[inline(always)]
    fn header_rules_out(
        &self,
        h: &EntryHeader,
        offset: u64,
        pos: u64,
        ns: &[u8],
        key: &[u8],
    ) -> Option<EntryRead> {
        if h.offset != offset
            || h.total_len() > self.max_entry_len
            || pos + h.total_len() > self.capacity
        {
            return Some(EntryRead::Invalid);
        }
        if h.ns_len as usize != ns.len() || h.key_len as usize != ns.len() + key.len() {
            return Some(EntryRead::Other);
        }
        None
    }

    /// `read_key` out of line, for the paths that rarely need it (a failed validation, the
    /// check for a rival insert), so that they do not grow the reads they sit in.
    #[inline(never)]
    pub(super) fn read_key_cold(&self, word: u64, ns: &[u8], key: &[u8]) -> EntryRead {
        self.read_key(word, ns, key)
    }

    /// Establishes that the slot word points at an entry of this key, without validating the
    /// value: what a plain set needs to pick the slot it replaces. The header is unverified.
    #[inline(always)]
    pub(super) fn read_key(&self, word: u64, ns: &[u8], key: &[u8]) -> EntryRead {
        let Some((offset, pos)) = self.locate(word) else { return EntryRead::Other };
        if pos + HEADER_LEN as u64 > self.capacity {
            return EntryRead::Invalid;
        }
        self.prefetch_ring(pos, (HEADER_LEN + ns.len() + key.len()) as u64);
        let mut h = EntryHeader::default();
        // SAFETY: pos + HEADER_LEN <= capacity (checked above); the destination is a local header.
        unsafe { self.ring.copy_header_out(pos, (&mut h as *mut EntryHeader).cast::<u8>()) };
        if let Some(ruled_out) = self.header_rules_out(&h, offset, pos, ns, key) {
            return ruled_out;
        }
        // header_rules_out checked that the whole entry, so its stored names, lies in the ring.
        if self.names_equal(pos + HEADER_LEN as u64, ns, key) {
            EntryRead::Same(h)
        } else {
            EntryRead::Other
        }
    }

    /// Whether the stored namespace and key at `names_pos` are `ns` and `key` (the caller has
    /// checked the stored lengths and that the names lie in the ring).
    #[inline(always)]
    fn names_equal(&self, names_pos: u64, ns: &[u8], key: &[u8]) -> bool {
        // (The root namespace is empty: skip a comparison on every plain get.)
        (ns.is_empty() || self.ring_bytes_equal(names_pos, ns))
            && self.ring_bytes_equal(names_pos + ns.len() as u64, key)
    }

    /// Reads and validates the entry a slot word points at: the header is copied into `h`,
    /// the stored namespace and key are compared with the caller's in the ring (`names_equal`),
    /// the value goes to `sink`, then the checksum and
    /// a re-check that the ring did not reuse the bytes meanwhile decide. Compressed values
    /// arrive in the sink decompressed. `key_hash` is the key's hash, which the checksum covers
    /// in place of the key's bytes once they have compared equal. A sink that takes no value
    /// (`CheckOnly`) validates the head alone: the value is neither read nor hashed, so the
    /// cost does not depend on its size (the value's hash in the header is checked against the
    /// value by every read that takes it).
    pub(super) fn read_full<S: ValueSink, const PREFETCHED: bool>(
        &self,
        word: u64,
        ns: &[u8],
        key: &[u8],
        key_hash: u64,
        sink: &mut S,
        h: &mut MaybeUninit<EntryHeader>,
    ) -> FullRead {
        let Some((offset, pos)) = self.locate(word) else { return FullRead::Other };
        self.read_full_at::<S, PREFETCHED>(word, offset, pos, ns, key, key_hash, sink, h)
    }

    /// `read_full` of a slot word already located: `offset` and `pos` are `locate(word)`'s,
    /// taken at any time since the word was loaded (the header's offset and the re-check of
    /// the ring after the copy judge the entry, not the tail seen when locating it).
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub(super) fn read_full_at<S: ValueSink, const PREFETCHED: bool>(
        &self,
        word: u64,
        offset: u64,
        pos: u64,
        ns: &[u8],
        key: &[u8],
        key_hash: u64,
        sink: &mut S,
        h: &mut MaybeUninit<EntryHeader>,
    ) -> FullRead {
        let head_len = HEADER_LEN + ns.len() + key.len();
        // Entries never straddle the ring's end: this key's entry can't start here, so the slot
        // is another key's with the same tag (a shorter key fits where this one would not).
        if pos + head_len as u64 > self.capacity {
            return FullRead::Other;
        }
        // The whole entry, as long as the slot word says (the value's length is not known yet),
        // unless a batch already asked for it; the head alone when the value is not read.
        if !PREFETCHED {
            self.prefetch_ring(
                pos,
                if S::TAKES_VALUE { word_lines(word) * 64 } else { head_len as u64 },
            );
        }
        // The header straight into the caller's header (no second copy to read its fields,
        // none to return it); the namespace and key are compared where they lie
        // (`ring_bytes_equal`).
        // SAFETY: pos + head_len <= cap and head_len > HEADER_LEN (checked above); `h` has
        // room for a header, and it is plain integers, so the 64 bytes copied in are a valid
        // value: every return below this point has written it (`FullRead::with`).
        let h = unsafe {
            self.ring.copy_header_out(pos, h.as_mut_ptr().cast::<u8>());
            h.assume_init_ref()
        };
        if S::TAKES_VALUE && S::SHORT_STRINGS_FIRST {
            if let Some(read) =
                self.read_short_string(h, offset, pos, head_len, ns, key, key_hash, sink)
            {
                return read;
            }
        }
        match self.header_rules_out(h, offset, pos, ns, key) {
            Some(EntryRead::Invalid) => return FullRead::Invalid,
            Some(_) => return FullRead::Other,
            None => {}
        }
        if !self.names_equal(pos + HEADER_LEN as u64, ns, key) {
            return FullRead::Other;
        }
        let value_pos = pos + head_len as u64;
        let stored_len = h.stored_len as usize;
        let kind = ValueKind(h.kind);
        let head_valid = || checksum_of(h, key_hash) == h.checksum;
        let valid = if !S::TAKES_VALUE {
            head_valid() && self.unchanged_since_read(offset)
        } else if h.flags & FLAG_IN_PLACE != 0 {
            match in_place_shape(h).then(|| self.read_in_place(value_pos, offset, key_hash)) {
                Some(PairRead::Value(value))
                    if head_valid() && self.unchanged_since_read(offset) =>
                {
                    let dst = sink.buffer(kind, 8);
                    // SAFETY: the sink guarantees `dst` is writable for 8 bytes.
                    unsafe {
                        std::ptr::write_unaligned(dst.cast::<[u8; 8]>(), value.to_le_bytes())
                    };
                    true
                }
                // Swapped under us again and again: a miss, never a reason to drop the key.
                Some(PairRead::Busy) => return FullRead::Other,
                _ => false,
            }
        } else if !h.compressed() && stored_len < DIRECT_COPY_MAX {
            let dst = sink.buffer(kind, stored_len);
            // SAFETY: the value lies within the entry (head_len + stored_len <= total, and
            // pos + total <= cap); the sink guarantees `dst` is writable for stored_len bytes
            // and untouched by anyone else, so it cannot overlap the ring.
            let value_hash = unsafe { self.copy_hashed(value_pos, dst, stored_len) };
            value_hash == h.value_hash && head_valid() && self.unchanged_since_read(offset)
        } else {
            with_buffer(&READ_BUF, |stored| {
                stored.clear();
                stored.reserve(stored_len);
                // SAFETY: as above for the ring range; `stored` has capacity for stored_len
                // bytes, all initialised by the copy before set_len.
                let value_hash = unsafe {
                    let value_hash = self.copy_hashed(value_pos, stored.as_mut_ptr(), stored_len);
                    stored.set_len(stored_len);
                    value_hash
                };
                if value_hash != h.value_hash || !head_valid() || !self.unchanged_since_read(offset)
                {
                    return false;
                }
                // Validated, so the lengths can be trusted for the allocation below.
                let out_len = if h.compressed() { h.raw_len as usize } else { stored_len };
                let dst = sink.buffer(kind, out_len);
                if h.compressed() {
                    // SAFETY: the sink guarantees `dst` is writable for out_len bytes and that
                    // nobody else touches them meanwhile; as MaybeUninit they need not be
                    // initialised (decompress_exact succeeds only after writing all of them).
                    let out = unsafe {
                        std::slice::from_raw_parts_mut(dst.cast::<MaybeUninit<u8>>(), out_len)
                    };
                    lz4::decompress_exact(stored, out).is_ok()
                } else {
                    // SAFETY: `dst` is writable for out_len == stored.len() bytes (see above) and
                    // is the sink's memory, so it cannot overlap this thread's buffer.
                    unsafe { std::ptr::copy_nonoverlapping(stored.as_ptr(), dst, out_len) };
                    true
                }
            })
        };
        if !valid {
            sink.discard();
            return FullRead::Invalid;
        }
        FullRead::Same
    }

    /// `read_full_at` of the commonest entry, a string of at most SHORT_WORDS_MAX bytes stored
    /// as it is (no flag) under this key's lengths, with fewer tests waiting for the header:
    /// one comparison of its shape word with the one such an entry of this key has stands for
    /// header_rules_out's two length tests and the branches on flags and kind, and the bounds
    /// follow from the stored length, the room for the longest such entry being known before
    /// the header arrives. At scale every instruction that waits for the entry's bytes delays
    /// the next get (docs/benchmarks.md, "The avalanches dropped"). The verdict is the one the
    /// general path reaches; None for any other entry, which takes that path. (Its copy and
    /// checks repeat the general path's direct copy on purpose: the same test merged into that
    /// path's branches compiled to more instructions, a get 804 against 780, callgrind.)
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn read_short_string<S: ValueSink>(
        &self,
        h: &EntryHeader,
        offset: u64,
        pos: u64,
        head_len: usize,
        ns: &[u8],
        key: &[u8],
        key_hash: u64,
        sink: &mut S,
    ) -> Option<FullRead> {
        let shape = plain_shape_word(ns.len() + key.len(), ns.len(), ValueKind::STRING.0);
        let stored_len = h.stored_len as usize;
        let longest = align8((head_len + SHORT_WORDS_MAX) as u64);
        if h.shape_word() != shape
            || stored_len > SHORT_WORDS_MAX
            || h.offset != offset
            || longest > self.max_entry_len
            || pos + longest > self.capacity
        {
            return None;
        }
        // The whole entry lies within `longest` bytes at `pos`, so within the ring.
        if !self.names_equal(pos + HEADER_LEN as u64, ns, key) {
            return Some(FullRead::Other);
        }
        let dst = sink.buffer(ValueKind::STRING, stored_len);
        // SAFETY: the value lies within the entry (see above); the sink guarantees `dst` is
        // writable for stored_len bytes and untouched by anyone else, so it cannot overlap the
        // ring.
        let value_hash = unsafe { self.copy_hashed(pos + head_len as u64, dst, stored_len) };
        if value_hash == h.value_hash
            && checksum_of(h, key_hash) == h.checksum
            && self.unchanged_since_read(offset)
        {
            Some(FullRead::Same)
        } else {
            sink.discard();
            Some(FullRead::Invalid)
        }
    }

    /// Reads an in-place integer's pair (the value starts at ring position `value_pos`) and
    /// checks it. A pair that fails its check and reads the same twice running is damaged; one
    /// that keeps changing is being swapped by others (each failed read saw a swap land between
    /// its two loads), which ends in `Busy` after a bounded number of tries.
    #[inline(always)]
    pub(super) fn read_in_place(&self, value_pos: u64, offset: u64, key_hash: u64) -> PairRead {
        let at = pair_pos(value_pos);
        let mut last = None;
        for _ in 0..PAIR_READ_TRIES {
            // SAFETY: in_place_shape checked that the entry's value bytes, which hold the pair,
            // lie within the entry, and header_rules_out that the entry lies within the ring.
            let (value, check) = unsafe { self.ring.read_pair(at) };
            if pair_check(value, offset, key_hash) == check {
                return PairRead::Value(value);
            }
            if last == Some((value, check)) {
                return PairRead::Damaged;
            }
            last = Some((value, check));
        }
        PairRead::Busy
    }

    /// Starts loading the cache lines of `len` ring bytes at `pos`, so that an entry's header,
    /// key and value cost one memory latency rather than one per line in the order the read
    /// reaches them. Whole 128-byte pairs of lines, the unit the CPU's adjacent-line prefetcher
    /// works in: measured faster than prefetching only the entry's own lines (docs/design.md).
    /// The pair the entry starts in and the pair its last byte lies in are requested without
    /// a loop or a branch (the same pair twice when the entry fits in one): whether a small
    /// entry crosses into the next pair depends on where it starts, a branch no predictor
    /// guesses (a prefetch past the ring's end, possible only there, is a hint that reads and
    /// faults nothing). Only longer entries loop over the pairs between.
    #[inline]
    pub(super) fn prefetch_ring(&self, pos: u64, len: u64) {
        let (first, last) = first_and_last_pair(pos, len, self.capacity);
        self.ring.prefetch(first);
        self.ring.prefetch(first + 64);
        self.ring.prefetch(last);
        self.ring.prefetch(last + 64);
        let mut at = first + 128;
        while at < last {
            self.ring.prefetch(at);
            self.ring.prefetch(at + 64);
            at += 128;
        }
    }

    /// Copies `len` ring bytes at `pos` to `dst` and returns the value hash of the copy: the hash
    /// reads only the private copy, never the ring.
    ///
    /// # Safety
    /// `pos + len <= capacity`; `dst` writable for `len` bytes that nobody else accesses
    /// meanwhile.
    #[inline(always)]
    pub(super) unsafe fn copy_hashed(&self, pos: u64, dst: *mut u8, len: usize) -> u64 {
        // SAFETY: the caller's contract; after the copy `dst` holds `len` initialised bytes
        // that only this thread accesses.
        unsafe {
            if len == 8 {
                // An int or a float: one load, and the word stored is the word returned (what
                // value_hash reads back from `dst` for 8 bytes).
                let word = self.ring.read_u64(pos);
                std::ptr::write_unaligned(dst.cast::<u64>(), word);
                return word;
            }
            if (SHORT_WORDS_MIN..=SHORT_WORDS_MAX).contains(&len) {
                // The words short_hash takes, loaded once: stored to `dst` and hashed from the
                // registers. Hashing them back from `dst` made loads that overlap two of these
                // stores (where the front and back words overlap) wait for both to reach the
                // cache (perf put about a fifth of a cached small read's samples there;
                // docs/benchmarks.md, "Reads that do not load back what they have just stored").
                // Where two words hold the same byte, `dst` gets the back word's; both words
                // are hashed, so a byte that changed between the two loads fails the check.
                let source = self.ring.words_at(pos);
                let words = checksum::short_words(len, |at| {
                    let word = source.read_u64(at);
                    std::ptr::write_unaligned(dst.add(at).cast::<u64>(), word);
                    u64::from_le(word)
                });
                return checksum::short_hash(len, &words);
            }
            #[cfg(target_arch = "x86_64")]
            if len > checksum::SHORT_MAX {
                if let Some(hash) = self.ring.copy_out_hashed(pos, dst, len) {
                    return hash;
                }
            }
            self.ring.copy_out(pos, dst, len);
            checksum::value_hash(std::slice::from_raw_parts(dst.cast_const(), len))
        }
    }

    /// The value hash of `len` ring bytes at `pos`, for the listing, which validates values it
    /// does not take: hashed from a private copy, on the stack
    /// when short, else in this thread's read buffer.
    ///
    /// # Safety
    /// `pos + len <= capacity`.
    pub(super) unsafe fn hash_of_copy(&self, pos: u64, len: usize) -> u64 {
        let mut short = [MaybeUninit::<u8>::uninit(); HASH_ON_STACK_MAX];
        if len <= HASH_ON_STACK_MAX {
            // SAFETY: the caller's contract; `short` has room for len bytes.
            return unsafe { self.copy_hashed(pos, short.as_mut_ptr().cast::<u8>(), len) };
        }
        with_buffer(&READ_BUF, |copy| {
            copy.clear();
            copy.reserve(len);
            // SAFETY: the caller's contract; `copy` has capacity for len bytes.
            unsafe { self.copy_hashed(pos, copy.as_mut_ptr(), len) }
        })
    }

    /// After copying an entry out: true when the ring has not started reusing its bytes.
    pub(super) fn unchanged_since_read(&self, offset: u64) -> bool {
        fence(Ordering::Acquire);
        ring::is_intact(self.tail(), offset, self.capacity)
    }

    /// Counts a copy of the entry `word` points at that failed its checks, by cause. The read
    /// found the entry intact before it copied; if the tail has since moved past it, the ring
    /// reused the bytes during the copy (lapped, normal under heavy recycling). If it still has
    /// not, nobody was allowed to write those bytes while they were read, so what was read is
    /// what lies there: the entry is damaged (corrupt).
    #[cold]
    #[inline(never)]
    pub(super) fn count_validation_failure(&self, word: u64) {
        let tail = self.tail();
        let lapped = !ring::is_intact(tail, word_offset(word, tail), self.capacity);
        self.bump(if lapped { Counter::ValidationLapped } else { Counter::ValidationCorrupt });
    }

    /// Empties a slot whose entry a read found damaged: its key matches, but its checksum or its
    /// value's hash does not, though the ring has not reached it. Delete, exists, add and
    /// replace validate only an entry's head, so without this a key whose value bytes were
    /// damaged would stay live for them while every get misses it. (A CAS from the word read:
    /// a slot written meanwhile is left alone.)
    #[cold]
    #[inline(never)]
    pub(super) fn unlink_damaged(&self, slot: usize, word: u64) {
        self.index().swap(slot, word, 0, Ordering::AcqRel);
    }

    /// Finds the published slot holding `key`, checking every candidate with `read`: the home
    /// bucket, then the away bucket only when the home's hint says a key of this tag's group
    /// lives away. Readers and writers alike: a hint never counts fewer away words than are
    /// there (index.rs), so a writer that finds nothing may insert (docs/design.md, "Away
    /// bucket and hint", for what a damaged hint can do).
    #[inline(always)]
    pub(super) fn find(
        &self,
        probe: &Probe,
        ns: &Namespace,
        key: &[u8],
        mut read: impl FnMut(u64) -> EntryRead,
    ) -> Lookup {
        let index = self.index();
        let [home, away] = probe.buckets;
        let mut check = |slot: usize, word: u64| -> Option<Lookup> {
            match read(word) {
                EntryRead::Same(header) => {
                    Some(Lookup::Present { slot, word, header, damaged: false })
                }
                EntryRead::Invalid => {
                    self.count_validation_failure(word);
                    match self.read_key_cold(word, &ns.name, key) {
                        EntryRead::Same(header) => {
                            Some(Lookup::Present { slot, word, header, damaged: true })
                        }
                        _ => None,
                    }
                }
                EntryRead::Other => None,
            }
        };
        let words = index.bucket(home);
        for (i, word) in words[..SLOTS_PER_BUCKET].iter().enumerate() {
            let word = word.load(Ordering::Acquire);
            if probe.matches(word, false) {
                if let Some(found) = check(home as usize * WORDS_PER_BUCKET + i, word) {
                    return found;
                }
            }
        }
        // The hint is read after the home slots: a key moved away meanwhile was counted
        // before it left home (index.rs).
        if !probe.has_away()
            || !hint_says_away(words[SLOTS_PER_BUCKET].load(Ordering::Acquire), probe.tag)
        {
            return Lookup::Absent;
        }
        for (i, word) in index.bucket(away)[..SLOTS_PER_BUCKET].iter().enumerate() {
            let word = word.load(Ordering::Acquire);
            if probe.matches(word, true) {
                if let Some(found) = check(away as usize * WORDS_PER_BUCKET + i, word) {
                    return found;
                }
            }
        }
        Lookup::Absent
    }

    /// Finds `key` and validates its whole entry, the value going to `sink`.
    #[inline(always)]
    pub(super) fn find_full<S: ValueSink>(
        &self,
        probe: &Probe,
        ns: &Namespace,
        key: &[u8],
        sink: &mut S,
    ) -> Lookup {
        self.find(probe, ns, key, |word| {
            let mut h = MaybeUninit::uninit();
            let read = self.read_full::<S, false>(word, &ns.name, key, probe.hash, sink, &mut h);
            // SAFETY: `h` is the header that read was given.
            unsafe { read.with(&h) }
        })
    }

    /// Finds the slot holding `key` without validating the value (for a plain set).
    pub(super) fn find_key(&self, probe: &Probe, ns: &Namespace, key: &[u8]) -> Lookup {
        self.find(probe, ns, key, |word| self.read_key(word, &ns.name, key))
    }

    /// Looks `key` up. On a hit the value (decompressed) has been written to `sink` and its
    /// kind is returned; on a miss the sink holds nothing the caller should use.
    pub fn get_into<S: ValueSink>(
        &self,
        ns: &Namespace,
        key: &[u8],
        sink: &mut S,
    ) -> Result<Option<ValueKind>, Error> {
        self.get_into_hashed(ns, key, string_hash(key), sink)
    }

    /// `get_into` of a key whose `string_hash` the caller has at hand (PHP keeps it in every
    /// string it has hashed); it must be `string_hash(key)`. Inlined into its caller (the
    /// PHP get): one call level fewer on every get, 924 -> 870 instructions (callgrind,
    /// docs/benchmarks.md).
    #[inline(always)]
    pub fn get_into_hashed<S: ValueSink>(
        &self,
        ns: &Namespace,
        key: &[u8],
        key_string_hash: u64,
        sink: &mut S,
    ) -> Result<Option<ValueKind>, Error> {
        let outcome = self.read_hashed(ns, key, key_string_hash, sink)?;
        // Counted directly rather than through a ReadTally: one read needs no batching, and
        // the tally's loop cost a get more (docs/benchmarks.md, "Figures behind code comments").
        match outcome {
            ReadOutcome::Hit(_) => self.bump(Counter::Hits),
            ReadOutcome::Expired => {
                self.bump(Counter::Expired);
                self.bump(Counter::Misses);
            }
            ReadOutcome::Miss => self.bump(Counter::Misses),
        }
        Ok(outcome.kind())
    }

    /// `get_into_hashed` whose hit, miss or expiry this process keeps to itself until
    /// `deferred::DEFER_UP_TO` of a kind have gathered or `add_deferred_reads` is called
    /// (`stats` adds them meanwhile): no locked instruction on the read's way
    /// (`deferred.rs`). For one thread at a time per cache; a forked child calls
    /// `forget_deferred_reads` first.
    #[inline(always)]
    pub fn get_into_deferred<S: ValueSink>(
        &self,
        ns: &Namespace,
        key: &[u8],
        key_string_hash: u64,
        sink: &mut S,
    ) -> Result<Option<ValueKind>, Error> {
        let outcome = self.read_hashed(ns, key, key_string_hash, sink)?;
        if self.deferred.record(&outcome) {
            self.add_deferred_reads();
        }
        Ok(outcome.kind())
    }

    /// Adds the counts `get_into_deferred` kept back to the shared counters.
    #[cold]
    #[inline(never)]
    pub fn add_deferred_reads(&self) {
        self.deferred.take().count(self);
    }

    /// Drops the counts `get_into_deferred` kept back without adding them: in a forked child,
    /// whose copies of them are its parent's to add.
    pub fn forget_deferred_reads(&self) {
        self.deferred.forget();
    }

    /// One uncounted read of a key whose `string_hash` the caller has.
    #[inline(always)]
    fn read_hashed<S: ValueSink>(
        &self,
        ns: &Namespace,
        key: &[u8],
        key_string_hash: u64,
        sink: &mut S,
    ) -> Result<ReadOutcome, Error> {
        debug_assert_eq!(key_string_hash, string_hash(key));
        check_key(key)?;
        let probe = Probe::new(key_string_hash.wrapping_add(ns.hash), key_tail(key), self.buckets);
        let generation = self.read_generation(ns);
        Ok(self.read_probed::<S, false>(&probe, ns, key, generation, sink))
    }

    /// `get_into` that counts neither a hit nor a miss: for a listing showing values, which
    /// is not the application asking for them.
    pub fn peek_into<S: ValueSink>(
        &self,
        ns: &Namespace,
        key: &[u8],
        sink: &mut S,
    ) -> Result<Option<ValueKind>, Error> {
        check_key(key)?;
        let probe = self.probe(ns, key);
        let generation = self.read_generation(ns);
        Ok(self.read_probed::<S, false>(&probe, ns, key, generation, sink).kind())
    }

    /// One validated read of a probed key (counted by the caller).
    #[inline(always)]
    pub(super) fn read_probed<S: ValueSink, const PREFETCHED: bool>(
        &self,
        probe: &Probe,
        ns: &Namespace,
        key: &[u8],
        generation: u64,
        sink: &mut S,
    ) -> ReadOutcome {
        // `find_full` with the header copied to a 16-byte aligned buffer (`HeaderBuf`): the
        // gets need it, the writes that share `find_full` measured no faster with it.
        let lookup = self.find(probe, ns, key, |word| {
            let mut h = HeaderBuf::new();
            let read =
                self.read_full::<S, PREFETCHED>(word, &ns.name, key, probe.hash, sink, &mut h.0);
            // SAFETY: `h.0` is the header that read was given.
            unsafe { read.with(&h.0) }
        });
        self.outcome_of(lookup, generation, sink)
    }

    /// What a read's lookup means for the caller: a hit only for a live entry (the sink is
    /// emptied otherwise); a damaged entry is unlinked on the way.
    #[inline(always)]
    pub(super) fn outcome_of<S: ValueSink>(
        &self,
        lookup: Lookup,
        generation: u64,
        sink: &mut S,
    ) -> ReadOutcome {
        match lookup {
            Lookup::Present { header, damaged: false, .. } => {
                let liveness = self.liveness(&header, generation);
                if liveness == Liveness::Live {
                    return ReadOutcome::Hit(ValueKind(header.kind));
                }
                sink.discard();
                if liveness == Liveness::Expired {
                    return ReadOutcome::Expired;
                }
            }
            Lookup::Present { slot, word, damaged: true, .. } => self.unlink_damaged(slot, word),
            Lookup::Absent => {}
        }
        ReadOutcome::Miss
    }

    /// Looks `key` up; on a hit `out` holds exactly the value and its kind is returned.
    pub fn get(
        &self,
        ns: &Namespace,
        key: &[u8],
        out: &mut Vec<u8>,
    ) -> Result<Option<ValueKind>, Error> {
        let hit = self.get_into(ns, key, out)?;
        if hit.is_none() {
            out.clear();
        }
        Ok(hit)
    }

    /// Whether `key` is live (no hit/miss counted).
    pub fn exists(&self, ns: &Namespace, key: &[u8]) -> Result<bool, Error> {
        check_key(key)?;
        let probe = self.probe(ns, key);
        let generation = self.read_generation(ns);
        Ok(matches!(self.find_full(&probe, ns, key, &mut CheckOnly),
            Lookup::Present { header, damaged: false, .. } if self.liveness(&header, generation) == Liveness::Live))
    }

    /// When a live `key` expires (Unix time in seconds, 0 = never); None when it is not live.
    /// Validated like `exists` (no hit/miss counted).
    pub fn expires_at(&self, ns: &Namespace, key: &[u8]) -> Result<Option<u64>, Error> {
        Ok(self.times(ns, key)?.map(|t| t.expires_at))
    }

    /// The expiry and store time of a live `key`; None when it is not live. Validated like
    /// `exists` (no hit/miss counted).
    pub fn times(&self, ns: &Namespace, key: &[u8]) -> Result<Option<EntryTimes>, Error> {
        check_key(key)?;
        let probe = self.probe(ns, key);
        let generation = self.read_generation(ns);
        Ok(match self.find_full(&probe, ns, key, &mut CheckOnly) {
            Lookup::Present { header, damaged: false, .. }
                if self.liveness(&header, generation) == Liveness::Live =>
            {
                Some(EntryTimes::of(&header))
            }
            _ => None,
        })
    }

    /// The flush epoch an entry was written under, read straight from its header.
    pub(super) fn entry_epoch(&self, word: u64, tail: u64) -> Option<u64> {
        epoch_reads::note();
        let offset = word_offset(word, tail);
        let pos = self.ring_size.pos(offset) + EPOCH_FIELD as u64;
        if !ring::is_intact(tail, offset, self.capacity) || pos + 8 > self.capacity {
            return None;
        }
        // SAFETY: pos + 8 <= capacity (checked above).
        Some(unsafe { self.ring.read_u64(pos) })
    }

    /// The header of the entry a slot word points at, with its virtual offset and ring
    /// position: None unless the entry is still intact, its header fits before the ring's end
    /// and the header names that offset. Nothing else of the header is checked yet.
    pub(super) fn resident_header(&self, word: u64) -> Option<(u64, u64, EntryHeader)> {
        let (offset, pos) = self.locate(word)?;
        if pos + HEADER_LEN as u64 > self.capacity {
            return None;
        }
        let mut h = EntryHeader::default();
        // SAFETY: pos + HEADER_LEN <= capacity (checked above); the destination is a local
        // header of plain integers, for which any bytes are a valid value.
        unsafe { self.ring.copy_out(pos, (&mut h as *mut EntryHeader).cast::<u8>(), HEADER_LEN) };
        (h.offset == offset).then_some((offset, pos, h))
    }
}

#[cfg(test)]
mod tests {
    use super::first_and_last_pair;
    use crate::engine::{Cache, Config};

    /// The pairs `prefetch_ring` requests (the first, the last, and every pair between) are
    /// exactly those the bytes touch, wherever they start; with no bytes (a damaged slot
    /// word's length of 0) the last pair is not past the first and nothing wraps around.
    #[test]
    fn prefetched_pairs_are_the_pairs_the_bytes_touch() {
        use std::collections::BTreeSet;
        let capacity = 4096;
        let starts = (0..512).step_by(8).chain((capacity - 256..=capacity).step_by(8));
        for pos in starts {
            for len in [0, 1, 8, 64, 80, 96, 120, 128, 136, 200, 256, 1000, 5000] {
                let (first, last) = first_and_last_pair(pos, len, capacity);
                let bytes: Vec<u64> = (pos..pos + len).filter(|&b| b < capacity).collect();
                if bytes.is_empty() {
                    assert!(last <= first, "pos {pos} len {len}: last pair {last}");
                    continue;
                }
                let mut requested: BTreeSet<u64> = (first + 128..last).step_by(128).collect();
                requested.extend([first, last]);
                let touched: BTreeSet<u64> = bytes.iter().map(|b| b & !127).collect();
                assert_eq!(requested, touched, "pos {pos} len {len}");
            }
        }
    }

    /// Agrees with `==` for every length up to 80 and a difference at every position, in the
    /// middle of the ring and against its last bytes (where a short key takes the slow way).
    #[test]
    fn ring_bytes_equal_is_slice_equality() {
        let cache = Cache::create(&Config {
            keys_memory_size: 1 << 16,
            values_memory_size: 1 << 16,
            compress_threshold: 0,
        })
        .unwrap();
        let cap = cache.capacity;
        for n in 0..=80usize {
            let a: Vec<u8> = (0..n as u8).map(|i| i.wrapping_mul(37) ^ 0x5a).collect();
            for at in [1000u64, cap - n as u64] {
                // SAFETY: at + n <= cap; the test's own cache, which nobody else uses.
                unsafe { cache.ring.copy_in(at, &a) };
                assert!(cache.ring_bytes_equal(at, &a), "len {n} at {at}");
                for i in 0..n {
                    for flip in [0x01u8, 0x80] {
                        let mut b = a.clone();
                        b[i] ^= flip;
                        assert!(
                            !cache.ring_bytes_equal(at, &b),
                            "len {n} at {at}, byte {i} ^ {flip:#x}"
                        );
                    }
                }
            }
        }
    }
}

/// Counts, for the fuzzing-feature tests, the entries' epochs a thread reads (`entry_epoch`: a
/// random ring line each), as `index::lines_read` counts index lines. Nothing without the
/// feature.
pub(super) mod epoch_reads {
    #[cfg(feature = "fuzzing")]
    thread_local! {
        static READS: std::cell::Cell<Option<usize>> = const { std::cell::Cell::new(None) };
    }

    #[inline(always)]
    pub(super) fn note() {
        #[cfg(feature = "fuzzing")]
        READS.with(|r| r.set(r.get().map(|n| n + 1)));
    }

    /// Runs `f` and says how many epochs it read.
    #[cfg(feature = "fuzzing")]
    pub(in crate::engine) fn counted<R>(f: impl FnOnce() -> R) -> (R, usize) {
        READS.with(|r| r.set(Some(0)));
        let result = f();
        (result, READS.with(|r| r.take().unwrap_or(0)))
    }
}
