//! The hash of an entry's value inside its checksum.
//!
//! Values of up to 8 bytes are their own hash (their bytes as one word). Values of 9 to 64
//! bytes are hashed from the words a copy of them loads (`short_hash`): a reader gets those
//! words from the registers of its copy out of the ring rather than by reading back the bytes
//! it has just stored (a load that overlaps two recent stores waits for them to reach the
//! cache; docs/design.md). Values of 65 to 240 bytes are hashed with XXH3-64 as is. Longer ones
//! use XXH3-64's long-input
//! algorithm with this module's own secret, run with AVX2 when the CPU has it (detected at run
//! time; xxhash-rust picks its SIMD width when it is compiled, and a portable build gets SSE2).
//! The long hash was most of what a get of a 3 KB serialized object or a 50 KB string costs on
//! top of APCu's plain copy (docs/design.md). Without AVX2 the same hash comes from
//! xxhash-rust, so the two paths agree and every process computes the same checksum.
//!
//! Everything here hashes a `&[u8]`, so only private memory: values in the ring are copied out
//! through `ring::RingView` first (shared bytes other processes write must not be read as
//! ordinary Rust memory). The one exception keeps to that rule: a long value's copy out of the
//! ring is hashed as it is made (`long_hash_copying`), from the registers its assembly loads
//! filled (ring.rs `CopyingStripes`), so that the value is read once rather than copied and
//! then read back from the copy.

use xxhash_rust::xxh3::{xxh3_64, xxh3_64_with_secret};

const SECRET_LEN: usize = 192;
const STRIPE_LEN: usize = 64;
/// Longest value hashed by XXH3's short-input paths (which take no secret here).
pub(crate) const SHORT_MAX: usize = 240;

/// The secret of the long-input hash: 192 pseudo-random bytes (splitmix64 from a fixed seed),
/// as XXH3 asks of a custom secret. Changing it changes every checksum: regions are created
/// afresh at startup, so no stored entry outlives a binary.
static SECRET: [u8; SECRET_LEN] = make_secret();

const fn make_secret() -> [u8; SECRET_LEN] {
    let mut out = [0u8; SECRET_LEN];
    let mut state: u64 = 0x5348_4d43_4143_4845; // the bytes of "SHMCACHE"
    let mut i = 0;
    while i < SECRET_LEN {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        let bytes = z.to_le_bytes();
        let mut j = 0;
        while j < 8 {
            out[i + j] = bytes[j];
            j += 1;
        }
        i += 8;
    }
    out
}

/// Values of up to this many bytes (ints, floats, booleans, short strings) enter the checksum
/// as their own bytes rather than a hash of them: the checksum mixes its words itself, and the
/// value's length is one of them, so this is as good as hashing, and cheaper.
const TINY_MAX: usize = 8;

/// The bytes of a value of at most TINY_MAX bytes as one word. For each length every byte
/// lands somewhere in the word (from 4 to 7 bytes the two halves overlap), so two values of one
/// length give the same word only if they are equal.
///
/// # Safety
/// `p` must be readable for `len` <= TINY_MAX bytes.
#[inline(always)]
unsafe fn tiny_word(p: *const u8, len: usize) -> u64 {
    // SAFETY: every read lies within the `len` bytes at `p` (the caller's contract).
    unsafe {
        match len {
            8 => std::ptr::read_unaligned(p.cast::<u64>()),
            4..=7 => {
                let low = std::ptr::read_unaligned(p.cast::<u32>()) as u64;
                let high = std::ptr::read_unaligned(p.add(len - 4).cast::<u32>()) as u64;
                low | high << 32
            }
            1..=3 => *p as u64 | (*p.add(len / 2) as u64) << 8 | (*p.add(len - 1) as u64) << 16,
            _ => 0,
        }
    }
}

/// Values of this many bytes and more, up to `SHORT_WORDS_MAX`, are hashed by `short_hash`.
pub(crate) const SHORT_WORDS_MIN: usize = TINY_MAX + 1;
/// The longest value `short_hash` hashes.
pub(crate) const SHORT_WORDS_MAX: usize = 64;

/// The words of a value of `len` bytes (SHORT_WORDS_MIN..=SHORT_WORDS_MAX) that `short_hash`
/// takes, each read by `word_at(start)` (a little-endian word): up to four from the front and
/// four ending at the back, placed front 0..4, back 0..4 (unused places 0). Together they cover
/// every byte; the halves overlap unless the length is 16, 32 or 64. Straight-line code for
/// each of the three length classes, front words first.
#[inline(always)]
pub(crate) fn short_words(len: usize, mut word_at: impl FnMut(usize) -> u64) -> [u64; 8] {
    debug_assert!((SHORT_WORDS_MIN..=SHORT_WORDS_MAX).contains(&len));
    let mut w = [0u64; 8];
    if len <= 16 {
        w[0] = word_at(0);
        w[7] = word_at(len - 8);
    } else if len <= 32 {
        w[0] = word_at(0);
        w[1] = word_at(8);
        w[6] = word_at(len - 16);
        w[7] = word_at(len - 8);
    } else {
        for i in 0..4 {
            w[i] = word_at(8 * i);
        }
        for i in 0..4 {
            w[4 + i] = word_at(len - 32 + 8 * i);
        }
    }
    w
}

/// The 128-bit product of two words folded to 64 bits (XXH3's mixing step).
#[inline(always)]
fn fold_mul(a: u64, b: u64) -> u64 {
    let p = u128::from(a) * u128::from(b);
    (p as u64) ^ ((p >> 64) as u64)
}

/// The first eight words of `SECRET`, as constants of `short_hash`.
const SHORT_SECRET: [u64; 8] = {
    let bytes = make_secret();
    let mut words = [0u64; 8];
    let mut i = 0;
    while i < 64 {
        words[i / 8] |= (bytes[i] as u64) << (8 * (i % 8));
        i += 1;
    }
    words
};

/// The hash of a value of `len` bytes (SHORT_WORDS_MIN..=SHORT_WORDS_MAX) from its words
/// (`short_words`): pairs of words, each word xored with a secret
/// word of its own, multiplied and folded, summed with the length. The shape of XXH3's
/// short-input paths, which it replaced here for these lengths (layout 12), without their
/// final avalanche (layout 14): the hash is only compared for equality and mixed into the
/// entry checksum, and a bijection at the end changes no comparison's outcome (two values
/// collide with it exactly when they collide without it); values of up to 8 bytes already
/// enter as their own bytes.
/// Every byte lies in some word, and every word is hashed.
#[inline(always)]
pub(crate) fn short_hash(len: usize, w: &[u64; 8]) -> u64 {
    const P: u64 = 0x9e37_79b1_85eb_ca87;
    let s = |i: usize| SHORT_SECRET[i];
    let mut acc = (len as u64).wrapping_mul(P);
    if len <= 16 {
        // Each word also on its own: a word equal to its secret would zero its product.
        acc = acc
            .wrapping_add(w[0])
            .wrapping_add(w[7].rotate_left(32))
            .wrapping_add(fold_mul(w[0] ^ s(0), w[7] ^ s(1)));
    } else {
        acc = acc
            .wrapping_add(fold_mul(w[0] ^ s(0), w[1] ^ s(1)))
            .wrapping_add(fold_mul(w[6] ^ s(2), w[7] ^ s(3)));
        if len > 32 {
            acc = acc
                .wrapping_add(fold_mul(w[2] ^ s(4), w[3] ^ s(5)))
                .wrapping_add(fold_mul(w[4] ^ s(6), w[5] ^ s(7)));
        }
    }
    acc
}

/// `short_hash` of a value in private memory.
#[inline(always)]
fn short_hash_of(value: &[u8]) -> u64 {
    let w = short_words(value.len(), |at| {
        u64::from_le_bytes(value[at..at + 8].try_into().expect("8 bytes"))
    });
    short_hash(value.len(), &w)
}

/// The hash of a value, as it enters the entry checksum. (Inlined into every read and write: as
/// a call it cost a small get measurably more; docs/benchmarks.md, "Figures behind code comments".)
#[inline(always)]
pub fn value_hash(value: &[u8]) -> u64 {
    if value.len() <= TINY_MAX {
        // SAFETY: the slice holds value.len() <= TINY_MAX bytes.
        unsafe { tiny_word(value.as_ptr(), value.len()) }
    } else if value.len() <= SHORT_WORDS_MAX {
        short_hash_of(value)
    } else if value.len() <= SHORT_MAX {
        xxh3_64(value)
    } else {
        long_value_hash(value)
    }
}

/// Out of line, so that the short path stays small enough to inline into every read.
#[inline(never)]
fn long_value_hash(value: &[u8]) -> u64 {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: AVX2 is present (checked above) and the slice is longer than one stripe.
        return unsafe { avx2::long_hash(value.len(), &mut avx2::SliceStripes(value.as_ptr())) };
    }
    xxh3_64_with_secret(value, &SECRET)
}

/// `value_hash` of a value longer than SHORT_MAX whose stripes `source` yields (and copies as it
/// yields them), or None without AVX2, where the caller copies and then hashes.
///
/// # Safety
/// `len > SHORT_MAX`; `source` yields the stripe at any `at` with `at + 64 <= len`.
#[cfg(target_arch = "x86_64")]
#[inline]
pub(crate) unsafe fn long_hash_copying(
    len: usize,
    source: &mut impl avx2::StripeSource,
) -> Option<u64> {
    debug_assert!(len > SHORT_MAX);
    if !std::arch::is_x86_feature_detected!("avx2") {
        return None;
    }
    // SAFETY: AVX2 is present and the caller's contract covers the stripes.
    Some(unsafe { avx2::long_hash(len, source) })
}

/// XXH3-64's long-input algorithm (stripes of 64 bytes accumulated into eight 64-bit lanes,
/// scrambled every 16 stripes, merged and avalanched at the end), written for AVX2. Checked
/// against xxhash-rust's `xxh3_64_with_secret` in the tests.
#[cfg(target_arch = "x86_64")]
pub(crate) mod avx2 {
    use std::arch::x86_64::*;

    use super::{SECRET, SECRET_LEN, STRIPE_LEN};

    /// Where the long hash gets its 64-byte stripes: a slice (`SliceStripes`), or the ring as
    /// a value is copied out of it (ring.rs `CopyingStripes`).
    pub(crate) trait StripeSource {
        /// The 64 bytes at `at` of the input.
        ///
        /// # Safety
        /// AVX2 is available; `at + 64` is within the input.
        unsafe fn stripe(&mut self, at: usize) -> [__m256i; 2];
    }

    /// The stripes of private memory starting at the pointer.
    pub(crate) struct SliceStripes(pub(crate) *const u8);

    impl StripeSource for SliceStripes {
        #[inline]
        #[target_feature(enable = "avx2")]
        unsafe fn stripe(&mut self, at: usize) -> [__m256i; 2] {
            // SAFETY: the trait's contract: 64 readable bytes at `at`.
            unsafe { load_stripe(self.0.add(at)) }
        }
    }

    const PRIME32_1: u64 = 0x9E37_79B1;
    const PRIME32_2: u64 = 0x85EB_CA77;
    const PRIME32_3: u64 = 0xC2B2_AE3D;
    const PRIME64_1: u64 = 0x9E37_79B1_85EB_CA87;
    const PRIME64_2: u64 = 0xC2B2_AE3D_27D4_EB4F;
    const PRIME64_3: u64 = 0x1656_67B1_9E37_79F9;
    const PRIME64_4: u64 = 0x85EB_CA77_C2B2_AE63;
    const PRIME64_5: u64 = 0x27D4_EB2F_1656_67C5;
    const STRIPES_PER_BLOCK: usize = (SECRET_LEN - STRIPE_LEN) / 8;
    const BLOCK_LEN: usize = STRIPE_LEN * STRIPES_PER_BLOCK;
    /// Where in the secret the last stripe's and the merge's keys start (XXH3's constants).
    const LAST_STRIPE_SECRET: usize = SECRET_LEN - STRIPE_LEN - 7;
    const MERGE_SECRET: usize = 11;

    /// Folds one 64-byte stripe, already in registers, into the accumulators.
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn accumulate(acc: &mut [__m256i; 2], data: [__m256i; 2], key: *const u8) {
        for i in 0..2 {
            // SAFETY: `key` points at 64 readable secret bytes (callers index within SECRET).
            let k = unsafe { _mm256_loadu_si256(key.add(32 * i).cast::<__m256i>()) };
            let mixed = _mm256_xor_si256(data[i], k);
            // Each lane: low 32 bits × high 32 bits of (data ^ key) ...
            let high_halves = _mm256_shuffle_epi32::<0x31>(mixed);
            let product = _mm256_mul_epu32(mixed, high_halves);
            // ... plus the neighbouring lane's raw data.
            let swapped = _mm256_shuffle_epi32::<0x4E>(data[i]);
            acc[i] = _mm256_add_epi64(acc[i], _mm256_add_epi64(product, swapped));
        }
    }

    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn load_stripe(p: *const u8) -> [__m256i; 2] {
        // SAFETY: the caller guarantees 64 readable bytes at `p`.
        unsafe {
            [
                _mm256_loadu_si256(p.cast::<__m256i>()),
                _mm256_loadu_si256(p.add(32).cast::<__m256i>()),
            ]
        }
    }

    /// XXH3-64 with the module's secret of the `len` bytes whose stripes `src` yields. Every
    /// byte is in some stripe; a stripe is asked for once, but the last one, which ends at
    /// `len`, overlaps the stripe before it.
    ///
    /// # Safety
    /// AVX2 must be available; `len` must be at least one stripe (64 bytes); `src` must yield
    /// the stripe at any `at` with `at + 64 <= len`.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn long_hash(len: usize, src: &mut impl StripeSource) -> u64 {
        debug_assert!(len >= STRIPE_LEN);
        let secret = &SECRET;
        let s = secret.as_ptr();
        let mut acc = [
            _mm256_setr_epi64x(
                PRIME32_3 as i64,
                PRIME64_1 as i64,
                PRIME64_2 as i64,
                PRIME64_3 as i64,
            ),
            _mm256_setr_epi64x(
                PRIME64_4 as i64,
                PRIME32_2 as i64,
                PRIME64_5 as i64,
                PRIME32_1 as i64,
            ),
        ];
        // Every full stripe before the last byte, block by block; the bytes after them are
        // covered by the final stripe, which ends exactly at `len`.
        let blocks = (len - 1) / BLOCK_LEN;
        let mut at = 0;
        // SAFETY (whole body): every stripe read lies below len - 1 (or is the final
        // one, [len - 64, len)); secret offsets stay within its 192 bytes: stripe n of a block
        // uses [8n, 8n + 64) with n < 16, the scramble [128, 192), the last stripe [121, 185)
        // and the merge [11, 75).
        unsafe {
            for _ in 0..blocks {
                for n in 0..STRIPES_PER_BLOCK {
                    let data = src.stripe(at);
                    accumulate(&mut acc, data, s.add(8 * n));
                    at += STRIPE_LEN;
                }
                scramble(&mut acc, s.add(SECRET_LEN - STRIPE_LEN));
            }
            let stripes = (len - 1 - at) / STRIPE_LEN;
            for n in 0..stripes {
                let data = src.stripe(at);
                accumulate(&mut acc, data, s.add(8 * n));
                at += STRIPE_LEN;
            }
            // The final stripe ends at the last byte, overlapping bytes already hashed.
            let last = src.stripe(len - STRIPE_LEN);
            accumulate(&mut acc, last, s.add(LAST_STRIPE_SECRET));
            let mut lanes = [0u64; 8];
            _mm256_storeu_si256(lanes.as_mut_ptr().cast::<__m256i>(), acc[0]);
            _mm256_storeu_si256(lanes.as_mut_ptr().add(4).cast::<__m256i>(), acc[1]);
            merge(
                &lanes,
                &secret[MERGE_SECRET..MERGE_SECRET + 64],
                (len as u64).wrapping_mul(PRIME64_1),
            )
        }
    }

    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn scramble(acc: &mut [__m256i; 2], key: *const u8) {
        let prime = _mm256_set1_epi32(PRIME32_1 as i32);
        for (i, lane) in acc.iter_mut().enumerate() {
            // SAFETY: `key` points at the secret's last 64 bytes.
            let k = unsafe { _mm256_loadu_si256(key.add(32 * i).cast::<__m256i>()) };
            let mixed =
                _mm256_xor_si256(_mm256_xor_si256(*lane, _mm256_srli_epi64::<47>(*lane)), k);
            let high = _mm256_shuffle_epi32::<0x31>(mixed);
            *lane = _mm256_add_epi64(
                _mm256_mul_epu32(mixed, prime),
                _mm256_slli_epi64::<32>(_mm256_mul_epu32(high, prime)),
            );
        }
    }

    fn merge(lanes: &[u64; 8], key: &[u8], start: u64) -> u64 {
        let word = |i: usize| u64::from_le_bytes(key[8 * i..8 * i + 8].try_into().unwrap());
        let mut h = start;
        for pair in 0..4 {
            let product = (lanes[2 * pair] ^ word(2 * pair)) as u128
                * (lanes[2 * pair + 1] ^ word(2 * pair + 1)) as u128;
            h = h.wrapping_add(product as u64 ^ (product >> 64) as u64);
        }
        h ^= h >> 37;
        h = h.wrapping_mul(0x1656_6791_9E37_79F9);
        h ^ (h >> 32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes(len: usize, seed: u64) -> Vec<u8> {
        let mut x = seed | 1;
        (0..len)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect()
    }

    /// The AVX2 path must give xxhash-rust's answer, or processes of one machine could
    /// disagree only if they took different paths — and the tests could not tell.
    #[test]
    fn both_paths_agree_with_xxhash_rust_for_every_length() {
        let lengths = (0..2200).chain([3000, 4095, 4096, 4097, 51_200, 100_003, 1 << 20]);
        for len in lengths.filter(|&len| len > SHORT_WORDS_MAX) {
            let src = bytes(len, len as u64 + 7);
            let expected =
                if len <= SHORT_MAX { xxh3_64(&src) } else { xxh3_64_with_secret(&src, &SECRET) };
            assert_eq!(value_hash(&src), expected, "value_hash, {len} bytes");
        }
    }

    /// Values hashed by `short_hash`: every byte counts (each of its 256 values, at every
    /// position, for many values of every length), and the words it takes cover the value.
    #[test]
    fn short_values_count_every_byte() {
        for len in SHORT_WORDS_MIN..=SHORT_WORDS_MAX {
            let mut covered = vec![false; len];
            short_words(len, |at| {
                covered[at..at + 8].iter_mut().for_each(|c| *c = true);
                0
            });
            assert!(covered.iter().all(|&c| c), "{len} bytes: a byte no word holds");
            for seed in 0..20u64 {
                let v = bytes(len, seed * 131 + len as u64);
                let base = value_hash(&v);
                assert_eq!(value_hash(&v.clone()), base);
                for at in 0..len {
                    for flip in 1..=255u8 {
                        let mut w = v.clone();
                        w[at] ^= flip;
                        assert_ne!(value_hash(&w), base, "byte {at} ^ {flip:#x} of {len}");
                    }
                }
            }
        }
    }

    /// A value and the same value one byte longer or shorter (its bytes otherwise equal, as a
    /// torn length might make them) hash differently, at every length around the classes.
    #[test]
    fn short_values_of_other_lengths_differ() {
        let v = bytes(SHORT_WORDS_MAX + 1, 5);
        for len in SHORT_WORDS_MIN..SHORT_WORDS_MAX {
            assert_ne!(value_hash(&v[..len]), value_hash(&v[..len + 1]), "{len} vs {}", len + 1);
        }
    }

    /// Values of up to 8 bytes: every byte counts, and the hash is a plain function of the bytes
    /// (the same bytes, the same word).
    #[test]
    fn tiny_values_count_every_byte() {
        for len in 0..=TINY_MAX {
            for seed in 0..50u64 {
                let v = bytes(len, seed * 31 + len as u64);
                let base = value_hash(&v);
                assert_eq!(value_hash(&v.clone()), base);
                for at in 0..len {
                    for flip in [0x01u8, 0x80, 0xff] {
                        let mut w = v.clone();
                        w[at] ^= flip;
                        assert_ne!(value_hash(&w), base, "byte {at} ^ {flip:#x} of {len}");
                    }
                }
            }
        }
    }

    #[test]
    fn any_changed_byte_changes_the_hash() {
        for len in [241, 1024, 1025, 5000] {
            let v = bytes(len, 99);
            let base = value_hash(&v);
            for at in [0, 1, 63, 64, len / 2, len - 65, len - 64, len - 1] {
                let mut w = v.clone();
                w[at] ^= 0x10;
                assert_ne!(value_hash(&w), base, "byte {at} of {len}");
            }
        }
    }

    #[test]
    fn the_secret_is_not_degenerate() {
        let distinct: std::collections::HashSet<u8> = SECRET.iter().copied().collect();
        assert!(distinct.len() > 100, "{} distinct bytes", distinct.len());
    }
}
