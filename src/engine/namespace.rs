//! Namespace generations, kept in their own small table so flushing a namespace is one CAS.
//!
//! A word is `tag:24 | generation:40` (0 = empty). Generations come from one region-wide
//! counter and are never reused, so a namespace whose word was evicted or flushed can never
//! make old entries valid again. Two namespaces whose 24-bit tags collide in one bucket share
//! a generation: flushing one then also empties the other (extra misses, never wrong values).
//!
//! Each word has a twin in `used`: the value of the generation counter when the namespace was
//! last read or written. When a namespace needs a word and its bucket is full, the word least
//! recently used goes — not the one with the oldest generation, which would be a namespace in
//! steady use that nobody flushes, while the words of namespaces abandoned since (a site whose
//! flushes retire its namespace names) stayed. The counter is a clock that only moves when
//! namespaces are created or flushed, which is exactly when eviction can happen; a use stores
//! into the twin only when the counter moved since, so steady reads write nothing.

use std::sync::atomic::{AtomicU64, Ordering};

const GEN_BITS: u32 = 40;
const GEN_MASK: u64 = (1 << GEN_BITS) - 1;
/// What a read compares entries' generations with when the namespace has none: no
/// generation equals it (they fit GEN_MASK). A plain u64 rather than an `Option`, for the
/// comparison that waits for the entry's header: one compare and branch where the `Option`'s
/// took five instructions (bench/waiting.sh: 99 -> 96 instructions of a get wait for the
/// entry; callgrind: a get 780 -> 774).
pub(crate) const NO_GENERATION: u64 = u64::MAX;
const _: () = assert!(GEN_MASK < NO_GENERATION);

pub(crate) struct NamespaceTable<'a> {
    pub words: &'a [AtomicU64],
    /// `used[i]`: the counter's value at the last use of `words[i]`'s namespace.
    pub used: &'a [AtomicU64],
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
    /// Index of the first word of the namespace's bucket.
    #[inline]
    fn bucket_start(&self, hash: u64) -> usize {
        let buckets = (self.words.len() / 4) as u64;
        ((hash as u128 * buckets as u128) >> 64) as usize * 4
    }

    fn bucket(&self, hash: u64) -> &[AtomicU64] {
        let b = self.bucket_start(hash);
        &self.words[b..b + 4]
    }

    /// Marks word `i` as used now (see the module doc). Relaxed: the stamp only steers which
    /// word an eviction picks; any value read is a valid choice.
    #[inline]
    fn touch(&self, i: usize) {
        let now = self.counter.load(Ordering::Relaxed);
        if self.used[i].load(Ordering::Relaxed) != now {
            self.used[i].store(now, Ordering::Relaxed);
        }
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
    // Inlined into every read of a namespace (the table's size is then a constant and the
    // call is gone): callgrind apcu_fetch 942 -> 908, ShmCache::get 1039 -> 1004.
    #[inline]
    pub fn current(&self, hash: u64) -> Option<u64> {
        let tag = tag_of_hash(hash);
        let start = self.bucket_start(hash);
        for i in start..start + 4 {
            let w = self.words[i].load(Ordering::Acquire);
            if w != 0 && tag_of(w) == tag {
                self.touch(i);
                return Some(w & GEN_MASK);
            }
        }
        None
    }

    /// The generation to write under, creating one (and evicting the oldest namespace of the
    /// bucket if it is full) when the namespace has none.
    // The lookup inline, the creation out of line: as one function the creation's frame was
    // set up on every write (callgrind: apcu_add with apcu_delete 1108 -> 1087 instructions a
    // call, apcu_store 1598 -> 1553).
    #[inline]
    pub fn for_write(&self, hash: u64) -> u64 {
        match self.current(hash) {
            Some(g) => g,
            None => self.create(hash),
        }
    }

    /// `for_write` of a namespace that has no generation yet.
    #[cold]
    #[inline(never)]
    fn create(&self, hash: u64) -> u64 {
        let tag = tag_of_hash(hash);
        loop {
            if let Some(g) = self.current(hash) {
                return g;
            }
            let bucket = self.bucket(hash);
            let words: [u64; 4] = std::array::from_fn(|i| bucket[i].load(Ordering::Acquire));
            let start = self.bucket_start(hash);
            let victim = words.iter().position(|&w| w == 0).unwrap_or_else(|| {
                (0..4).min_by_key(|&i| self.used[start + i].load(Ordering::Relaxed)).unwrap_or(0)
            });
            let mine = (tag << GEN_BITS) | self.fresh_generation();
            if bucket[victim]
                .compare_exchange(words[victim], mine, Ordering::AcqRel, Ordering::Relaxed)
                .is_err()
            {
                continue;
            }
            self.touch(start + victim);
            // A racing creator may have claimed another slot for the same namespace: keep only
            // the first one in bucket order, which is the one readers use.
            let first = bucket.iter().position(|w| {
                let w = w.load(Ordering::Acquire);
                w != 0 && tag_of(w) == tag
            });
            if first != Some(victim) {
                let _ =
                    bucket[victim].compare_exchange(mine, 0, Ordering::AcqRel, Ordering::Relaxed);
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
