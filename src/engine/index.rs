//! The lossy key index: buckets of 4 slots, two candidate buckets per key.
//!
//! A slot is one 64-bit word: `pending:1 | tag:15 | lines:5 | offset/8:43`, 0 = empty. The tag
//! is a slice of the key hash (its top bit forced to 1, so a used slot is never 0), the offset
//! is where the entry starts in the ring, stored modulo 2^46 (far above the largest ring) and
//! rebuilt relative to the tail (so a word must not outlive its entry by 2^46 bytes of writes:
//! dead words are swept, see `Cache::clear_dead_words`). `lines` is the entry's length in
//! 64-byte units (saturating): a reader prefetches that much of the entry as soon as it has the
//! slot, so the lines of the header, key and value arrive together instead of one miss after
//! another. It is only a hint; nothing trusts it.
//! A pending slot is an insert that is not yet visible to readers (see `Cache::insert_new`).

use xxhash_rust::xxh3::{xxh3_64, xxh3_64_with_seed};

pub(crate) const PENDING: u64 = 1 << 63;
const TAG_SHIFT: u32 = 48;
const TAG_MASK: u64 = 0x7fff;
const LINES_SHIFT: u32 = 43;
const LINES_MAX: u64 = 31;
const OFFSET_MASK: u64 = (1 << LINES_SHIFT) - 1;
/// Offsets 2^46 bytes apart give the same word: a word left in a slot while that many bytes are
/// written decodes to an offset in the current lap again (see `Cache::clear_dead_words`).
pub(crate) const OFFSET_PERIOD: u64 = (OFFSET_MASK + 1) << 3;
const _: () = assert!(super::MAX_VALUES_MEMORY < OFFSET_PERIOD);

/// The hash of a namespace name, which seeds the hashes of its keys (0 for the root namespace).
pub(crate) fn namespace_hash(name: &[u8]) -> u64 {
    if name.is_empty() { 0 } else { xxh3_64(name) }
}

/// The hash of a key in the namespace whose hash is `ns_hash`: where the index looks for it,
/// and the key's part of its entries' checksums.
#[inline]
pub(crate) fn key_hash(ns_hash: u64, key: &[u8]) -> u64 {
    xxh3_64_with_seed(key, ns_hash)
}

/// Where a key may live and how its slots are recognised.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Probe {
    /// The key's hash (`key_hash`), which the checksums of its entries include.
    pub hash: u64,
    pub tag: u64,
    pub buckets: [u64; 2],
}

#[inline]
fn fastrange(h: u64, n: u64) -> u64 {
    ((h as u128 * n as u128) >> 64) as u64
}

impl Probe {
    #[inline]
    pub fn new(hash: u64, bucket_count: u64) -> Probe {
        let first = fastrange(hash, bucket_count);
        let mut second = fastrange(hash.rotate_left(32).wrapping_mul(0x9e37_79b9_7f4a_7c15), bucket_count);
        if second == first && bucket_count > 1 {
            second = (first + 1) % bucket_count;
        }
        Probe { hash, tag: (hash & TAG_MASK) | 0x4000, buckets: [first, second] }
    }

    /// Global slot numbers of the (up to) 8 candidate slots, first bucket first.
    #[inline]
    pub fn slots(&self) -> impl Iterator<Item = u64> {
        // A plain counter rather than a flattened iterator over the buckets, whose bookkeeping
        // measured 20-odd instructions per slot (every lookup and insert walks these slots).
        let [first, second] = self.buckets;
        let n = if first == second { 4 } else { 8 };
        (0..n).map(move |i| if i < 4 { first * 4 + i } else { second * 4 + i - 4 })
    }
}

/// The slot word for an entry of `entry_len` bytes at virtual ring offset `offset`.
#[inline]
pub(crate) fn make_word(tag: u64, offset: u64, entry_len: u64) -> u64 {
    let lines = entry_len.div_ceil(64).min(LINES_MAX);
    (tag << TAG_SHIFT) | (lines << LINES_SHIFT) | ((offset >> 3) & OFFSET_MASK)
}

/// How many 64-byte units of its entry a word announces (at most 31: longer entries are read
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

/// The full virtual offset a slot word points at, given the current tail.
#[inline]
pub(crate) fn word_offset(word: u64, tail: u64) -> u64 {
    let stored = word & OFFSET_MASK;
    let t8 = tail >> 3;
    let back = t8.wrapping_sub(stored) & OFFSET_MASK;
    t8.wrapping_sub(back) << 3
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_round_trip_relative_to_tail() {
        for &(off, tail) in &[(64u64, 1024u64), (8 << 48, (8 << 48) + 4096), ((1 << 52) + 8, (1 << 52) + (1 << 20))] {
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
        for (len, lines) in [(0u64, 0u64), (1, 1), (64, 1), (65, 2), (31 * 64, 31), (1 << 30, 31)] {
            let w = make_word(0x7fff, off, len);
            assert_eq!(word_lines(w), lines, "entry of {len} bytes");
            assert_eq!(word_tag(w), 0x7fff);
            assert_eq!(word_offset(w, off + 4096), off);
            assert!(!is_pending(w));
        }
    }

    #[test]
    fn probes_stay_in_range_and_differ() {
        for n in [1u64, 2, 3, 1000, 1 << 20] {
            for h in [0u64, 1, u64::MAX, 0x1234_5678_9abc_def0] {
                let p = Probe::new(h, n);
                assert!(p.buckets[0] < n && p.buckets[1] < n);
                if n > 1 {
                    assert_ne!(p.buckets[0], p.buckets[1]);
                }
                assert_ne!(make_word(p.tag, 0, 0), 0);
            }
        }
    }
}
