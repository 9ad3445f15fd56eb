//! The lossy key index: one 64-byte line per bucket, seven slots and a hint word, a home and
//! an away bucket per key.
//!
//! A key lives in its home bucket whenever that has room: a lookup of it reads one line. Only
//! when its home is full does it go to its away bucket, and then its home's hint word counts it
//! first, so a lookup that does not find the key at home reads the away bucket only when the
//! hint says some key of its group lives away. At 80% of the slots used, about 9% of the keys
//! live away and about 3% of the misses read a second line (docs/design.md, "Key index").
//!
//! A slot is one 64-bit word: `pending:1 | tag:15 | lines:4 | away:1 | offset/8:43`, 0 = empty.
//! The tag is a slice of the mixed key hash (its top bit forced to 1, so a used slot is never 0), the
//! offset is where the entry starts in the ring, stored modulo 2^46 (far above the largest ring)
//! and rebuilt relative to the tail (so a word must not outlive its entry by 2^46 bytes of
//! writes: dead words are swept, see `Cache::clear_dead_words`). `lines` is the entry's length
//! in 64-byte units (saturating): a reader prefetches that much of the entry as soon as it has
//! the slot, so the lines of the header, key and value arrive together instead of one miss after
//! another. It is only a hint; nothing trusts it. `away` says the word sits in its key's away
//! bucket. A pending slot is an insert that is not yet visible to readers (see
//! `Cache::insert_new`).
//!
//! The away bucket is the home bucket plus a step that depends only on the tag, so the home of
//! a word in an away bucket is known from the word alone: whoever removes an away word (a
//! delete, an eviction, the dead-word sweep, a cuckoo move) can find the hint that counted it.
//!
//! Hint word: sixteen 4-bit counters, one per group of tags (the tag's low 4 bits), each the
//! number of away words of that group whose home is this bucket. Every change of a slot goes
//! through `KeyTable::swap`, which counts an away word before it is stored and uncounts it only
//! after it is gone: a counter is never below the number of such words present, so a lookup
//! that skips the away bucket because the counter is 0 misses nothing that was published before
//! it began. A process killed between the two steps leaves a counter one too high for good,
//! which costs misses of that group in that bucket a second line; a counter that
//! reaches 15 stays there (never wrong, only slower). Writers trust the hint as readers do:
//! an add of a new key reads one line. (A hint damaged below its count, which no process
//! writes, can then let a write publish a second copy of a key at home, hiding an older one
//! away: docs/design.md, "Away bucket and hint".)

use std::sync::atomic::{AtomicU64, Ordering};

use xxhash_rust::xxh3::xxh3_64;

/// Words of a bucket: one 64-byte cache line.
pub(crate) const WORDS_PER_BUCKET: usize = 8;
/// Slots of a bucket; the bucket's last word is its hint.
pub(crate) const SLOTS_PER_BUCKET: usize = 7;
pub(crate) const BUCKET_BYTES: usize = WORDS_PER_BUCKET * 8;
const HINT_WORD: usize = SLOTS_PER_BUCKET;

pub(crate) const PENDING: u64 = 1 << 63;
const TAG_SHIFT: u32 = 48;
const TAG_MASK: u64 = 0x7fff;
const LINES_SHIFT: u32 = 44;
const LINES_MAX: u64 = 15;
/// The word sits in its key's away bucket.
pub(crate) const AWAY: u64 = 1 << 43;
const OFFSET_MASK: u64 = (1 << 43) - 1;
/// What identifies a key's published word in one of its buckets: not pending, its tag, and
/// whether the bucket is its home or away.
const MATCH_MASK: u64 = PENDING | (TAG_MASK << TAG_SHIFT) | AWAY;
/// Offsets 2^46 bytes apart give the same word: a word left in a slot while that many bytes are
/// written decodes to an offset in the current lap again (see `Cache::clear_dead_words`).
pub(crate) const OFFSET_PERIOD: u64 = (OFFSET_MASK + 1) << 3;
const _: () = assert!(super::MAX_VALUES_MEMORY < OFFSET_PERIOD);

/// The hash of a namespace name, which seeds the hashes of its keys (0 for the root namespace).
pub(crate) fn namespace_hash(name: &[u8]) -> u64 {
    if name.is_empty() {
        0
    } else {
        xxh3_64(name)
    }
}

/// The hash of a key in the namespace whose hash is `ns_hash`: where the index looks for it,
/// and the key's part of its entries' checksums.
#[inline]
pub(crate) fn key_hash(ns_hash: u64, key: &[u8]) -> u64 {
    string_hash(key).wrapping_add(ns_hash)
}

/// What a key's trailing bytes add to its `string_hash`, and how far they move its home from
/// the base bucket of the keys that share the rest (`Probe::new`). A key ending in a digit: its
/// last two bytes, `step` = 10 × the one before + the last (mod 256), so `post:1200` to
/// `post:1299` (the base of `post:12__`) get steps 16 to 115 and keys counted in order read a
/// run of 100 neighbouring buckets before the next jump. Any other key: its last byte (0 for an
/// empty key), from the base of the rest. (Testing the byte before for a digit too, which
/// keeps letter pairs apart, cost every operation 3 instructions more, callgrind; pairs of a
/// letter and a digit share 256 steps, a family of 26 × 10 such keys about one each.)
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct KeyTail {
    /// In DJBX33A the last byte adds itself, the one before 33 times itself.
    added: u16,
    /// The home's distance from the base bucket.
    step: u8,
}

#[inline(always)]
pub(crate) fn key_tail(key: &[u8]) -> KeyTail {
    let last = key.last().copied().unwrap_or(0);
    let before = if key.len() >= 2 { key[key.len() - 2] } else { 0 };
    if last.wrapping_sub(b'0') < 10 {
        KeyTail {
            added: u16::from(before) * 33 + u16::from(last),
            step: before.wrapping_mul(10).wrapping_add(last),
        }
    } else {
        KeyTail { added: u16::from(last), step: last }
    }
}

/// The hash of a key's bytes, the very value PHP keeps in every string it has hashed
/// (`zend_string_hash_val`): DJBX33A from 5381, each byte added as a C `char` (signed on x86,
/// unsigned on ARM, as PHP adds them), the top bit set. So the PHP glue can take it from the
/// string instead of hashing the key again. Eight bytes are added at a time (`djb_word`).
#[inline]
pub fn string_hash(bytes: &[u8]) -> u64 {
    let mut h: u64 = 5381;
    let mut words = bytes.chunks_exact(8);
    for w in &mut words {
        h = h
            .wrapping_mul(POW33[8])
            .wrapping_add(djb_word(u64::from_le_bytes(w.try_into().unwrap())));
    }
    let rest = words.remainder().len();
    if rest > 0 {
        // The last `rest` bytes as the top of a word whose other bytes are 0, which add nothing.
        let word = if bytes.len() >= 8 {
            u64::from_le_bytes(bytes[bytes.len() - 8..].try_into().unwrap())
                & (u64::MAX << (8 * (8 - rest)))
        } else {
            let mut buf = [0u8; 8];
            buf[8 - rest..].copy_from_slice(words.remainder());
            u64::from_le_bytes(buf)
        };
        h = h.wrapping_mul(POW33[rest]).wrapping_add(djb_word(word));
    }
    h | 1 << 63
}

/// Powers of 33 up to the 8th.
const POW33: [u64; 9] =
    [1, 33, 1089, 35_937, 1_185_921, 39_135_393, 1_291_467_969, 42_618_442_977, 1_406_408_618_241];

/// The sum of the 8 bytes of `w` (little endian) times 33^7, 33^6, … 1, in a few multiplies:
/// byte pairs in 16-bit lanes, then pairs of pairs in 32-bit lanes (no lane can overflow:
/// at most 255·33 + 255 and 8,670·1,089 + 8,670). Bytes count as C `char`s: where those are
/// signed, a byte from 0x80 counts 256 less.
#[inline(always)]
fn djb_word(w: u64) -> u64 {
    let sum = unsigned_djb_word(w);
    if std::ffi::c_char::MIN == 0 {
        return sum;
    }
    let negative = (w >> 7) & 0x0101_0101_0101_0101;
    if negative == 0 {
        sum
    } else {
        sum.wrapping_sub(unsigned_djb_word(negative).wrapping_mul(256))
    }
}

#[inline(always)]
fn unsigned_djb_word(w: u64) -> u64 {
    const BYTES: u64 = 0x00ff_00ff_00ff_00ff;
    const PAIRS: u64 = 0x0000_ffff_0000_ffff;
    let pairs = (w & BYTES) * 33 + ((w >> 8) & BYTES);
    let quads = (pairs & PAIRS) * 1089 + ((pairs >> 16) & PAIRS);
    (quads & 0xffff_ffff) * POW33[4] + (quads >> 32)
}

#[inline]
fn fastrange(h: u64, n: u64) -> u64 {
    ((h as u128 * n as u128) >> 64) as u64
}

/// How far a key's away bucket lies after its home (modulo the bucket count): 1 to n - 1,
/// from the tag alone, so that the home of an away word can be told from the word.
#[inline]
fn away_step(tag: u64, bucket_count: u64) -> u64 {
    1 + fastrange(tag.wrapping_mul(0x9e37_79b9_7f4a_7c15), bucket_count - 1)
}

/// The away bucket of a key whose home is `home`.
#[inline]
pub(crate) fn away_bucket(home: u64, tag: u64, bucket_count: u64) -> u64 {
    if bucket_count < 2 {
        return home;
    }
    let away = home + away_step(tag, bucket_count);
    if away >= bucket_count {
        away - bucket_count
    } else {
        away
    }
}

/// The home bucket of a key whose away bucket is `away`.
#[inline]
pub(crate) fn home_bucket(away: u64, tag: u64, bucket_count: u64) -> u64 {
    if bucket_count < 2 {
        return away;
    }
    let step = away_step(tag, bucket_count);
    if away >= step {
        away - step
    } else {
        away + bucket_count - step
    }
}

/// murmur3's 64-bit finaliser without its last shift: the high half (a home bucket) depends
/// on every input bit, and so, through the middle shift, do the bits under it (a tag). (The
/// last shift cost every operation three instructions, callgrind.)
#[inline(always)]
fn mix(mut x: u64) -> u64 {
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    x.wrapping_mul(0xc4ce_b9fe_1a85_ec53)
}

/// A key's tag from its `base` (the mix its home bucket comes from) and its tail: bits of the
/// base's low half, which its home does not use (that comes from the high half), spread by the
/// tail so that the keys of one run of neighbouring buckets, which share a base, get unrelated
/// tags. One multiplication where a second mix of the whole hash cost every operation 6 to 8
/// instructions more (callgrind). Never 0: the top bit is set.
#[inline(always)]
fn tag_of(base: u64, tail: KeyTail) -> u64 {
    let spread = u64::from(tail.added).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    ((base.wrapping_add(spread) >> 17) & TAG_MASK) | 0x4000
}

/// The number of buckets, with what turns a hash into a bucket by a multiplication instead of
/// a division (Lemire's fastmod: `magic` = 2^64 / count, rounded up).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Buckets {
    pub count: u64,
    magic: u64,
}

impl Buckets {
    pub fn new(count: u64) -> Buckets {
        assert!((1..=u64::from(u32::MAX)).contains(&count));
        Buckets { count, magic: (u64::MAX / count).wrapping_add(1) }
    }

    /// `x % count`. (With one bucket the magic number wraps to 0 and so does the result: no
    /// branch for that case, which every probe paid for.)
    #[inline(always)]
    fn of(&self, x: u32) -> u64 {
        ((u128::from(self.magic.wrapping_mul(u64::from(x))) * u128::from(self.count)) >> 64) as u64
    }
}

/// Where a key may live and how its slots are recognised.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Probe {
    /// The key's hash (`key_hash`), which the checksums of its entries include.
    pub hash: u64,
    pub tag: u64,
    /// Home, then away (the same bucket only when the table has one bucket).
    pub buckets: [u64; 2],
}

impl Probe {
    /// A placeholder for arrays filled later (a batch's group); never used to look anything up.
    pub const EMPTY: Probe = Probe { hash: 0, tag: 0, buckets: [0, 0] };

    /// `hash` is the key's `key_hash`, `tail` its `key_tail`. Keys that differ only in their
    /// last byte (`post:a`, `post:b`), or in their last two digits (`post:41`, `post:42`), get
    /// neighbouring home buckets, so reading such keys in order reads the index in order;
    /// otherwise homes are spread by a strong mix. (The string hash is PHP's DJBX33A, in which
    /// the tail adds `tail.added` to 33 or 1089 times the hash of the rest: `hash - added` is
    /// the same for such keys and mixed into their base bucket. Homes taken straight from
    /// DJBX33A modulo the bucket count, as PHP's tables do, kept the same locality but crowded
    /// keys like `wp:options:N` into clusters: 27% of them had to live away at 80% load instead
    /// of 9%.) The tag takes its bits from the base's low half and the tail (`tag_of`).
    #[inline]
    pub fn new(hash: u64, tail: KeyTail, buckets: Buckets) -> Probe {
        // (`home_only` and `with_away` compute the same; written out here, as before they
        // existed, for LLVM's choices on every other read and write: built from the two, the
        // same code cost incr and cas 6 instructions more, callgrind.)
        let base = mix(hash.wrapping_sub(u64::from(tail.added)));
        let mut home = buckets.of((base >> 32) as u32) + u64::from(tail.step);
        if home >= buckets.count {
            // (A division only past the end, and a loop only in a table of under 256 buckets.)
            home %= buckets.count;
        }
        let tag = tag_of(base, tail);
        Probe { hash, tag, buckets: [home, away_bucket(home, tag, buckets.count)] }
    }

    /// `new` without the away bucket (`buckets[1]` is the home bucket until `with_away`): for
    /// a batch read, whose keys almost all are read from their home bucket's prefetched entry
    /// and need the away bucket only when read again as any read (multi-get 728 -> 704 per
    /// key, callgrind). Not a probe to look a key up with.
    #[inline]
    pub fn home_only(hash: u64, tail: KeyTail, buckets: Buckets) -> Probe {
        let base = mix(hash.wrapping_sub(u64::from(tail.added)));
        let mut home = buckets.of((base >> 32) as u32) + u64::from(tail.step);
        if home >= buckets.count {
            home %= buckets.count;
        }
        let tag = tag_of(base, tail);
        Probe { hash, tag, buckets: [home, home] }
    }

    /// A `home_only` probe completed with its away bucket: the probe `new` makes.
    #[inline(always)]
    pub fn with_away(mut self, buckets: Buckets) -> Probe {
        self.buckets[1] = away_bucket(self.buckets[0], self.tag, buckets.count);
        self
    }

    /// Whether the key has an away bucket distinct from its home.
    #[inline]
    pub fn has_away(&self) -> bool {
        self.buckets[0] != self.buckets[1]
    }

    /// Slot numbers of the (up to) 14 candidate slots, home bucket first.
    #[inline]
    pub fn slots(&self) -> impl Iterator<Item = usize> {
        // A plain counter rather than a flattened iterator over the buckets, whose bookkeeping
        // cost instructions on every slot (every insert walks these slots; docs/benchmarks.md,
        // "Figures behind code comments").
        let [home, away] = self.buckets.map(|b| b as usize * WORDS_PER_BUCKET);
        let n = if self.has_away() { 2 * SLOTS_PER_BUCKET } else { SLOTS_PER_BUCKET };
        (0..n)
            .map(move |i| if i < SLOTS_PER_BUCKET { home + i } else { away + i - SLOTS_PER_BUCKET })
    }

    /// Whether `word` is a pending word (home or away) of a key with this probe's tag.
    #[inline(always)]
    pub fn pending_match(&self, word: u64) -> bool {
        word & (PENDING | (TAG_MASK << TAG_SHIFT)) == PENDING | (self.tag << TAG_SHIFT)
    }

    /// Whether `word` is a published word of a key with this probe's tag, placed as a word in
    /// the key's home bucket (`away` false) or away bucket (`away` true) is.
    #[inline(always)]
    pub fn matches(&self, word: u64, away: bool) -> bool {
        word & MATCH_MASK == (self.tag << TAG_SHIFT) | if away { AWAY } else { 0 }
    }
}

/// The slot word for an entry of `entry_len` bytes at virtual ring offset `offset`, to be
/// stored in the key's home bucket (`| AWAY` for its away bucket).
#[inline]
pub(crate) fn make_word(tag: u64, offset: u64, entry_len: u64) -> u64 {
    let lines = entry_len.div_ceil(64).min(LINES_MAX);
    (tag << TAG_SHIFT) | (lines << LINES_SHIFT) | ((offset >> 3) & OFFSET_MASK)
}

/// How many 64-byte units of its entry a word announces (at most 15: longer entries are read
/// sequentially, which the hardware prefetcher follows on its own).
#[inline]
pub(crate) fn word_lines(word: u64) -> u64 {
    (word >> LINES_SHIFT) & LINES_MAX
}

#[inline]
pub(crate) fn word_tag(word: u64) -> u64 {
    (word >> TAG_SHIFT) & TAG_MASK
}

#[inline]
pub(crate) fn is_pending(word: u64) -> bool {
    word & PENDING != 0
}

#[inline]
pub(crate) fn is_away(word: u64) -> bool {
    word & AWAY != 0
}

/// The full virtual offset a slot word points at, given the current tail.
#[inline]
pub(crate) fn word_offset(word: u64, tail: u64) -> u64 {
    let stored = word & OFFSET_MASK;
    let t8 = tail >> 3;
    let back = t8.wrapping_sub(stored) & OFFSET_MASK;
    t8.wrapping_sub(back) << 3
}

/// Bit position of a tag's counter in a hint word.
#[inline]
fn hint_shift(tag: u64) -> u32 {
    ((tag & 15) * 4) as u32
}

/// Whether a hint word says some key of `tag`'s group may live away.
#[inline(always)]
pub(crate) fn hint_says_away(hint: u64, tag: u64) -> bool {
    (hint >> hint_shift(tag)) & 15 != 0
}

/// Which index lines (buckets) the calls of this thread read or write, for the tests of the
/// `fuzzing` feature (tests/index_lines.rs): nothing at all in other builds.
pub(crate) mod lines_read {
    #[cfg(feature = "fuzzing")]
    thread_local! {
        static TOUCHED: std::cell::RefCell<Option<Vec<usize>>> = const { std::cell::RefCell::new(None) };
    }

    #[inline(always)]
    pub(crate) fn note(bucket: usize) {
        #[cfg(feature = "fuzzing")]
        TOUCHED.with(|t| {
            if let Some(buckets) = t.borrow_mut().as_mut() {
                if !buckets.contains(&bucket) {
                    buckets.push(bucket);
                }
            }
        });
        #[cfg(not(feature = "fuzzing"))]
        let _ = bucket;
    }

    /// Runs `f` and says how many distinct index lines it touched (prefetches aside).
    #[cfg(feature = "fuzzing")]
    pub(crate) fn counted<R>(f: impl FnOnce() -> R) -> (R, usize) {
        TOUCHED.with(|t| *t.borrow_mut() = Some(Vec::new()));
        let result = f();
        let touched = TOUCHED.with(|t| t.borrow_mut().take().map_or(0, |b| b.len()));
        (result, touched)
    }
}

/// The key index as the words of the region it lies in. Slots are numbered by word: bucket
/// `b` holds slots `8b .. 8b + 7` and its hint at word `8b + 7`. Slots change only through
/// `swap`, which keeps the hints.
#[derive(Clone, Copy)]
pub(crate) struct KeyTable<'a> {
    pub words: &'a [AtomicU64],
    pub bucket_count: u64,
}

impl<'a> KeyTable<'a> {
    #[inline(always)]
    pub fn load(&self, slot: usize, order: Ordering) -> u64 {
        lines_read::note(slot / WORDS_PER_BUCKET);
        self.words[slot].load(order)
    }

    /// The eight words of `bucket`: one bounds check for all of them.
    #[inline(always)]
    pub fn bucket(&self, bucket: u64) -> &'a [AtomicU64; WORDS_PER_BUCKET] {
        let first = bucket as usize * WORDS_PER_BUCKET;
        lines_read::note(bucket as usize);
        self.words[first..first + WORDS_PER_BUCKET].try_into().expect("a bucket is eight words")
    }

    /// The first word of `bucket`, for a prefetch: only an address, computed without a bounds
    /// check (a prefetch reads nothing and never faults, whatever the address).
    #[inline(always)]
    pub fn line(&self, bucket: u64) -> *const AtomicU64 {
        self.words.as_ptr().wrapping_add(bucket as usize * WORDS_PER_BUCKET)
    }

    /// The hint word of `bucket`.
    #[inline(always)]
    pub fn hint(&self, bucket: u64, order: Ordering) -> u64 {
        lines_read::note(bucket as usize);
        self.words[bucket as usize * WORDS_PER_BUCKET + HINT_WORD].load(order)
    }

    /// Every slot number, bucket by bucket (no hint words).
    pub fn slot_numbers(&self) -> impl Iterator<Item = usize> {
        (0..self.words.len()).filter(|&w| !is_hint_word(w))
    }

    pub fn slot_count(&self) -> u64 {
        self.bucket_count * SLOTS_PER_BUCKET as u64
    }

    /// Replaces `old` by `new` in `slot` if it still holds `old`. An away word that enters is
    /// counted in its home's hint before, one that leaves is uncounted after (a word that stays,
    /// pending or not, keeps its count).
    #[inline(always)]
    pub fn swap(&self, slot: usize, old: u64, new: u64, order: Ordering) -> bool {
        debug_assert!(!is_hint_word(slot));
        lines_read::note(slot / WORDS_PER_BUCKET);
        let same_away_key = is_away(old) && is_away(new) && word_tag(old) == word_tag(new);
        let enters = is_away(new) && !same_away_key;
        let leaves = is_away(old) && !same_away_key;
        if enters {
            self.count_away(slot, new, true);
        }
        let swapped = self.words[slot].compare_exchange(old, new, order, Ordering::Relaxed).is_ok();
        if swapped && leaves {
            self.count_away(slot, old, false);
        } else if !swapped && enters {
            self.count_away(slot, new, false);
        }
        swapped
    }

    /// Adds (`up`) or removes one from the counter of the away word `word` in `slot`'s bucket,
    /// in its home's hint. A counter at 15 stays there; one at 0 is not taken below.
    #[cold]
    #[inline(never)]
    fn count_away(&self, slot: usize, word: u64, up: bool) {
        let tag = word_tag(word);
        let away = (slot / WORDS_PER_BUCKET) as u64;
        let home = home_bucket(away, tag, self.bucket_count);
        let shift = hint_shift(tag);
        lines_read::note(home as usize);
        let hint = &self.words[home as usize * WORDS_PER_BUCKET + HINT_WORD];
        let _ = hint.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |h| {
            match ((h >> shift) & 15, up) {
                (15, _) | (0, false) => None,
                (_, true) => Some(h + (1 << shift)),
                (_, false) => Some(h - (1 << shift)),
            }
        });
    }
}

#[inline(always)]
pub(crate) fn is_hint_word(word_number: usize) -> bool {
    word_number % WORDS_PER_BUCKET == HINT_WORD
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_round_trip_relative_to_tail() {
        for &(off, tail) in
            &[(64u64, 1024u64), (8 << 48, (8 << 48) + 4096), ((1 << 52) + 8, (1 << 52) + (1 << 20))]
        {
            let w = make_word(0x4abc, off, 200);
            assert_eq!(word_offset(w, tail), off);
            assert_eq!(word_tag(w), 0x4abc);
            assert_eq!(word_lines(w), 4);
            assert!(!is_pending(w));
            assert!(is_pending(w | PENDING));
        }
    }

    #[test]
    fn entry_length_hint_saturates_and_never_touches_tag_or_offset() {
        let off = (1u64 << 40) + 64;
        for (len, lines) in
            [(0u64, 0u64), (1, 1), (64, 1), (65, 2), (15 * 64, 15), (16 * 64, 15), (1 << 30, 15)]
        {
            let w = make_word(0x7fff, off, len);
            assert_eq!(word_lines(w), lines, "entry of {len} bytes");
            assert_eq!(word_tag(w), 0x7fff);
            assert_eq!(word_offset(w, off + 4096), off);
            assert!(!is_pending(w));
            assert!(!is_away(w) && is_away(w | AWAY) && word_offset(w | AWAY, off + 4096) == off);
        }
    }

    #[test]
    fn fastmod_is_the_remainder() {
        for n in [1u64, 2, 3, 7, 1000, 65_536, 262_139, 1 << 28] {
            let b = Buckets::new(n);
            for x in [
                0u32,
                1,
                2,
                63,
                64,
                65_535,
                65_536,
                999_999,
                0x7fff_ffff,
                0x8000_0000,
                u32::MAX - 1,
                u32::MAX,
            ] {
                assert_eq!(b.of(x), u64::from(x) % n, "{x} % {n}");
            }
        }
    }

    /// PHP's `zend_inline_hash_func`, one byte at a time as its portable version reads, each
    /// byte a C `char`.
    fn djbx33a_bytewise(bytes: &[u8]) -> u64 {
        let mut h: u64 = 5381;
        for &b in bytes {
            h = (h << 5).wrapping_add(h).wrapping_add(b as std::ffi::c_char as i64 as u64);
        }
        h | 1 << 63
    }

    #[test]
    fn string_hash_is_djbx33a_for_every_length_and_byte() {
        assert_eq!(string_hash(b""), 5381 | 1 << 63);
        assert_eq!(string_hash(b"a"), (5381 * 33 + 97) | 1 << 63);
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        for len in 0..70usize {
            for _ in 0..50 {
                let bytes: Vec<u8> = (0..len)
                    .map(|_| {
                        x ^= x << 13;
                        x ^= x >> 7;
                        x ^= x << 17;
                        x as u8
                    })
                    .collect();
                assert_eq!(string_hash(&bytes), djbx33a_bytewise(&bytes), "{bytes:?}");
            }
            let high = vec![0xffu8; len];
            assert_eq!(string_hash(&high), djbx33a_bytewise(&high), "{len} bytes of 0xff");
        }
    }

    fn home_of(key: &str, buckets: u64) -> u64 {
        let key = key.as_bytes();
        Probe::new(string_hash(key), key_tail(key), Buckets::new(buckets)).buckets[0]
    }

    /// Keys counted in order read the index in order: a run of 100 (two trailing digits) or
    /// of consecutive last bytes has consecutive homes; the next run starts elsewhere.
    #[test]
    fn keys_counted_in_order_get_neighbouring_homes() {
        let n = 1 << 20;
        let base = home_of("post:1200", n);
        for i in 0..100 {
            assert_eq!(home_of(&format!("post:12{i:02}"), n), (base + i) % n, "post:12{i:02}");
        }
        assert_eq!(home_of("post:7", n) + 1, home_of("post:8", n), "one trailing digit");
        assert_eq!(home_of("post:a", n) + 1, home_of("post:b", n), "a last letter");
        assert_eq!(home_of("x1", n) + 1, home_of("x2", n), "a digit after a letter");
        // (The next run is somewhere else: the chance that it follows on is 1 in a million.)
        let next = home_of("post:1300", n);
        assert!(next.abs_diff(base) > 100, "post:1300 at {next}, post:1200 at {base}");
        assert_eq!(key_tail(b"x:99").step - key_tail(b"x:00").step, 99);
        assert_eq!(key_tail(b"").step, 0);
        assert_eq!(key_tail(b"9"), KeyTail { added: u16::from(b'9'), step: b'9' });
        assert_eq!(key_tail(b"x:a"), KeyTail { added: u16::from(b'a'), step: b'a' });
        assert_eq!(
            key_tail(b"09"),
            KeyTail { added: u16::from(b'0') * 33 + u16::from(b'9'), step: 16 + 9 }
        );
    }

    /// The tag and the home come from one mix: keys that share a home bucket must still have
    /// tags as unrelated as random ones (14 random bits: a pair agrees once in 16,384), or a
    /// lookup would read other keys' entries. Keys counted in order, whose runs share a base,
    /// and keys that differ anywhere.
    #[test]
    fn keys_sharing_a_home_rarely_share_a_tag() {
        // (A power of two too: there a home is the low bits of the base's high half.)
        for (family, buckets) in [("wp:options:", 40_000), ("k-", 40_000), ("k-", 1 << 15)] {
            let buckets = Buckets::new(buckets);
            let mut homes = std::collections::HashMap::<u64, u64>::new();
            let mut home_tags = std::collections::HashMap::<(u64, u64), u64>::new();
            let mut groups = [0u64; 16];
            for i in 0..200_000u64 {
                let key = if family == "k-" {
                    format!("k-{:x}", i.wrapping_mul(0x9e37_79b9_7f4a_7c15))
                } else {
                    format!("{family}{i}")
                };
                let p = Probe::new(string_hash(key.as_bytes()), key_tail(key.as_bytes()), buckets);
                *homes.entry(p.buckets[0]).or_default() += 1;
                *home_tags.entry((p.buckets[0], p.tag)).or_default() += 1;
                groups[(p.tag & 15) as usize] += 1;
            }
            let pairs = |n: &u64| n * n.saturating_sub(1) / 2;
            let sharing_a_home: u64 = homes.values().map(pairs).sum();
            let sharing_a_tag: u64 = home_tags.values().map(pairs).sum();
            let expected = sharing_a_home / 16_384;
            assert!(
                sharing_a_tag <= 2 * expected + 20,
                "{family}: {sharing_a_tag} pairs share home and tag, {expected} expected"
            );
            // The hint's groups (the tag's low 4 bits) are evenly used.
            for (g, &n) in groups.iter().enumerate() {
                assert!((11_000..14_000).contains(&n), "{family}: group {g} has {n} of 200,000");
            }
        }
    }

    #[test]
    fn probes_stay_in_range_and_differ() {
        for n in [1u64, 2, 3, 1000, 1 << 20] {
            for h in [0u64, 1, u64::MAX, 0x1234_5678_9abc_def0] {
                let p = Probe::new(h, key_tail(b"7"), Buckets::new(n));
                assert!(p.buckets[0] < n && p.buckets[1] < n);
                if n > 1 {
                    assert_ne!(p.buckets[0], p.buckets[1]);
                }
                assert_ne!(make_word(p.tag, 0, 0), 0);
                assert_eq!(
                    home_bucket(p.buckets[1], p.tag, n),
                    p.buckets[0],
                    "the home is found from the away bucket"
                );
            }
        }
    }

    fn table(bucket_count: u64) -> Vec<AtomicU64> {
        (0..bucket_count as usize * WORDS_PER_BUCKET).map(|_| AtomicU64::new(0)).collect()
    }

    /// An away word is counted in its home's hint while it is stored, whichever way it leaves
    /// (emptied, replaced by another key's word, moved home), and a home word never is.
    #[test]
    fn hints_count_the_away_words_present() {
        let words = table(1000);
        let t = KeyTable { words: &words, bucket_count: 1000 };
        let p = Probe::new(0x1234_5678_9abc_def0, key_tail(b"x"), Buckets::new(1000));
        let away_slot = p.buckets[1] as usize * WORDS_PER_BUCKET + 3;
        let home_slot = p.buckets[0] as usize * WORDS_PER_BUCKET + 2;
        let counted = || (t.hint(p.buckets[0], Ordering::SeqCst) >> hint_shift(p.tag)) & 15;
        let w = make_word(p.tag, 4096, 100);
        assert!(t.swap(home_slot, 0, w, Ordering::SeqCst));
        assert_eq!(counted(), 0);
        assert!(t.swap(away_slot, 0, w | AWAY | PENDING, Ordering::SeqCst));
        assert_eq!(counted(), 1);
        assert!(
            p.matches(w | AWAY, true)
                && !p.matches(w | AWAY, false)
                && !p.matches(w | AWAY | PENDING, true)
        );
        assert!(hint_says_away(t.hint(p.buckets[0], Ordering::SeqCst), p.tag));
        assert!(t.swap(away_slot, w | AWAY | PENDING, w | AWAY, Ordering::SeqCst));
        assert_eq!(counted(), 1, "publishing a pending word keeps its count");
        assert!(!t.swap(away_slot, 0, w | AWAY, Ordering::SeqCst), "a failed swap");
        assert_eq!(counted(), 1, "a failed swap leaves the count");
        let other = make_word(p.tag ^ 0x100, 8192, 100) | AWAY;
        assert!(t.swap(away_slot, w | AWAY, other, Ordering::SeqCst));
        assert_eq!(counted(), 0, "another group's word replaced it");
        assert!(t.swap(away_slot, other, 0, Ordering::SeqCst));
        assert_eq!(t.hint(p.buckets[0], Ordering::SeqCst), 0);
        let other_home = home_bucket(p.buckets[1], p.tag ^ 0x100, 1000);
        assert_eq!(t.hint(other_home, Ordering::SeqCst), 0, "and its own count is gone with it");
        // Saturation: 15 stays 15.
        for i in 0..20 {
            let s = p.buckets[1] as usize * WORDS_PER_BUCKET + (i % SLOTS_PER_BUCKET);
            t.count_away(s, w | AWAY, true);
        }
        assert_eq!(counted(), 15);
        t.count_away(away_slot, w | AWAY, false);
        assert_eq!(counted(), 15, "a saturated counter stays");
    }
}
