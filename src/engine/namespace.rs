//! Namespace generations, kept in their own small table so flushing a namespace is one CAS.
//!
//! A word is `tag:24 | generation:40` (0 = empty). Generations come from one region-wide
//! counter and are never reused, so a namespace whose word was evicted or flushed can never
//! make old entries valid again. Two namespaces whose 24-bit tags collide in one bucket share
//! a generation: flushing one then also empties the other (extra misses, never wrong values).

use std::sync::atomic::{AtomicU64, Ordering};

const GEN_BITS: u32 = 40;
const GEN_MASK: u64 = (1 << GEN_BITS) - 1;

pub(crate) struct NamespaceTable<'a> {
    pub words: &'a [AtomicU64],
    pub counter: &'a AtomicU64,
}

/// Tag of a namespace hash: its low 24 bits (the bucket comes from the high bits).
#[inline]
fn tag_of_hash(hash: u64) -> u64 {
    hash & 0xff_ffff
}

#[inline]
fn tag_of(word: u64) -> u64 {
    word >> GEN_BITS
}

impl NamespaceTable<'_> {
    fn bucket(&self, hash: u64) -> &[AtomicU64] {
        let buckets = (self.words.len() / 4) as u64;
        let b = ((hash as u128 * buckets as u128) >> 64) as usize;
        &self.words[b * 4..b * 4 + 4]
    }

    fn fresh_generation(&self) -> u64 {
        loop {
            let g = self.counter.fetch_add(1, Ordering::Relaxed) & GEN_MASK;
            if g != 0 {
                return g;
            }
        }
    }

    /// The namespace's current generation, or None when it has none (nothing in it is live).
    pub fn current(&self, hash: u64) -> Option<u64> {
        let tag = tag_of_hash(hash);
        self.bucket(hash).iter().map(|w| w.load(Ordering::Acquire)).find(|&w| w != 0 && tag_of(w) == tag).map(|w| w & GEN_MASK)
    }

    /// The generation to write under, creating one (and evicting the oldest namespace of the
    /// bucket if it is full) when the namespace has none.
    pub fn for_write(&self, hash: u64) -> u64 {
        let tag = tag_of_hash(hash);
        loop {
            if let Some(g) = self.current(hash) {
                return g;
            }
            let bucket = self.bucket(hash);
            let words: Vec<u64> = bucket.iter().map(|w| w.load(Ordering::Acquire)).collect();
            let victim = words.iter().position(|&w| w == 0).unwrap_or_else(|| {
                (0..4).min_by_key(|&i| words[i] & GEN_MASK).unwrap_or(0)
            });
            let mine = (tag << GEN_BITS) | self.fresh_generation();
            if bucket[victim].compare_exchange(words[victim], mine, Ordering::AcqRel, Ordering::Relaxed).is_err() {
                continue;
            }
            // A racing creator may have claimed another slot for the same namespace: keep only
            // the first one in bucket order, which is the one readers use.
            let first = bucket.iter().position(|w| {
                let w = w.load(Ordering::Acquire);
                w != 0 && tag_of(w) == tag
            });
            if first != Some(victim) {
                let _ = bucket[victim].compare_exchange(mine, 0, Ordering::AcqRel, Ordering::Relaxed);
            }
        }
    }

    /// Gives the namespace a fresh generation, making every entry written under the old one dead.
    pub fn flush(&self, hash: u64) {
        let tag = tag_of_hash(hash);
        'retry: loop {
            for w in self.bucket(hash) {
                let cur = w.load(Ordering::Acquire);
                if cur != 0 && tag_of(cur) == tag {
                    let next = (tag << GEN_BITS) | self.fresh_generation();
                    if w.compare_exchange(cur, next, Ordering::AcqRel, Ordering::Relaxed).is_err() {
                        continue 'retry;
                    }
                    return;
                }
            }
            return;
        }
    }

    pub fn used(&self) -> u64 {
        self.words.iter().filter(|w| w.load(Ordering::Relaxed) != 0).count() as u64
    }
}
