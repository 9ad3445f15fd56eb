//! The lossy key index: buckets of 4 slots, two candidate buckets per key.
//!
//! A slot is one 64-bit word: `pending:1 | tag:15 | offset/8:48`, 0 = empty. The tag is a
//! slice of the key hash (its top bit forced to 1, so a used slot is never 0), the offset is
//! where the entry starts in the ring, stored modulo 2^51 and rebuilt relative to the tail.
//! A pending slot is an insert that is not yet visible to readers (see `Cache::insert_new`).

pub(crate) const PENDING: u64 = 1 << 63;
const TAG_SHIFT: u32 = 48;
const TAG_MASK: u64 = 0x7fff;
const OFFSET_MASK: u64 = (1 << 48) - 1;

/// Where a key may live and how its slots are recognised.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Probe {
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
        Probe { tag: (hash & TAG_MASK) | 0x4000, buckets: [first, second] }
    }

    /// Global slot numbers of the (up to) 8 candidate slots, first bucket first.
    #[inline]
    pub fn slots(&self) -> impl Iterator<Item = u64> + '_ {
        let n = if self.buckets[0] == self.buckets[1] { 1 } else { 2 };
        self.buckets[..n].iter().flat_map(|b| (0..4).map(move |i| b * 4 + i))
    }
}

#[inline]
pub(crate) fn make_word(tag: u64, offset: u64) -> u64 {
    (tag << TAG_SHIFT) | ((offset >> 3) & OFFSET_MASK)
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
            let w = make_word(0x4abc, off);
            assert_eq!(word_offset(w, tail), off);
            assert_eq!(word_tag(w), 0x4abc);
            assert!(!is_pending(w));
            assert!(is_pending(w | PENDING));
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
                assert_ne!(make_word(p.tag, 0), 0);
            }
        }
    }
}
