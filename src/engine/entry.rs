//! Ring entries: a fixed header, then the full key (namespace bytes + key bytes), then the value.
//!
//! The checksum covers every header field, the key and the stored value, so a reader that copied
//! an entry while another process overwrote it notices and treats the read as a miss. It is
//! built from the header fields themselves, the value's hash among them, and the key's hash
//! (the one the index is probed with). The value enters by the hash stored in the header: a
//! read that takes the value hashes its copy (while copying, so the value goes straight to its
//! final destination) and compares that with the stored hash, while an operation that only
//! needs to know the entry is whole and live (delete, exists, add, replace) validates the head
//! alone and never reads the value, whatever its size.
//!
//! The key enters by its hash rather than its bytes because a reader compares the stored key
//! with the caller's byte for byte before it looks at the checksum: a matching key has the
//! caller's hash, which the lookup computed anyway. A writer likewise hashes its key once for
//! both the index and the entry. Hashing the header and key bytes again cost a small get more,
//! the more the longer the key (docs/design.md; docs/benchmarks.md, "Figures behind code
//! comments").

use std::ops::Range;

#[cfg(feature = "fuzzing")]
use super::{
    checksum::value_hash,
    index::{key_hash, namespace_hash},
};

/// Bytes of the checksum field inside an entry (not covered by the checksum).
pub(crate) const CHECKSUM_RANGE: Range<usize> = 8..16;
/// Byte position of `epoch` in the header (read alone when choosing what to evict).
pub(crate) const EPOCH_FIELD: usize = 32;

pub(crate) const FLAG_COMPRESSED: u8 = 1;
/// An integer stored as an in-place pair: `IN_PLACE_LEN` value bytes holding, 16-aligned
/// somewhere inside them (`pair_pos`), the integer and its check word (`pair_check`). incr,
/// decr and cas change the pair with one atomic 16-byte swap instead of appending an entry;
/// the header and its checksum never change, so they do not cover the pair (value_hash is 0)
/// and the check word vouches for it instead.
pub(crate) const FLAG_IN_PLACE: u8 = 2;
/// Stored length of an in-place integer: 16 bytes of pair plus up to 15 of alignment, rounded.
pub(crate) const IN_PLACE_LEN: u32 = 32;

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct EntryHeader {
    /// Virtual ring offset the entry was written at; a reader compares it with the offset it
    /// followed, which catches headers of other entries that now occupy the same bytes.
    pub offset: u64,
    pub checksum: u64,
    /// Generation of the entry's namespace when written (0 for the root namespace).
    pub ns_generation: u64,
    /// Unix time in seconds after which the entry is dead; 0 = never. (32 bits: until 2106; a
    /// later expiry is stored as the last second that fits.)
    pub expires_at: u32,
    /// Unix time in seconds the value was stored, for namespaces that record write times (the
    /// apcu_* functions report it as APCu's creation and modification times, and the TTL given
    /// as `expires_at - stored_at`); 0 elsewhere, so that other writes read no clock.
    pub stored_at: u32,
    /// The flush epoch when written: the global one, or in a local namespace's entry the local
    /// one with `cache::LOCAL_EPOCH` set (layout 11).
    pub epoch: u64,
    /// Bytes of value stored (compressed length when compressed).
    pub stored_len: u32,
    /// Length of the value once decompressed.
    pub raw_len: u32,
    /// Length of the stored key: namespace bytes followed by the key bytes.
    pub key_len: u16,
    pub ns_len: u16,
    pub kind: u8,
    pub flags: u8,
    pub _pad: [u8; 2],
    /// `checksum::value_hash` of the stored value (compressed bytes when compressed).
    pub value_hash: u64,
}

/// Room on the stack for the header a get copies out of the ring, aligned to 16 bytes as the
/// copy's four 16-byte moves are (`RingView::copy_header_out`); an `EntryHeader` alone needs
/// only 8. Without it a get's speed depended on where the kernel started the process's stack
/// (at a random offset): a shuffled get at 10,000 keys ran at 13.5 to 14 M/s at 6 of 8 stack
/// offsets tried and at 16.4 to 17 at the other two, on an AMD EPYC; with it, 16.4 to 17 at
/// all 8, for no more instructions (docs/benchmarks.md, ninth session). Which access suffered
/// was not isolated (that machine has no performance counters). Aligned to 64 it helped as
/// much but cost the gets that find everything in the caches 6 to 8% (a realigned frame). The
/// writes, which copy headers the same way, measured no different at any offset.
#[repr(C, align(16))]
pub(crate) struct HeaderBuf(pub std::mem::MaybeUninit<EntryHeader>);
const _: () = assert!(std::mem::align_of::<HeaderBuf>() == 16);

impl HeaderBuf {
    #[inline(always)]
    pub(crate) fn new() -> HeaderBuf {
        HeaderBuf(std::mem::MaybeUninit::uninit())
    }
}

pub(crate) const HEADER_LEN: usize = std::mem::size_of::<EntryHeader>();
const _: () = assert!(HEADER_LEN == 64);
const _: () = assert!(std::mem::offset_of!(EntryHeader, epoch) == EPOCH_FIELD);
const _: () = assert!(std::mem::offset_of!(EntryHeader, checksum) == CHECKSUM_RANGE.start);

impl EntryHeader {
    pub fn total_len(&self) -> u64 {
        align8(HEADER_LEN as u64 + self.key_len as u64 + self.stored_len as u64)
    }

    pub fn compressed(&self) -> bool {
        self.flags & FLAG_COMPRESSED != 0
    }

    /// The header as the eight 64-bit words it occupies: offset, checksum, generation, the
    /// expiry with the store time (in its high half), the epoch, then the two lengths, then
    /// key_len, ns_len, kind, flags and padding, then the value's hash.
    #[inline(always)]
    pub fn words(&self) -> [u64; 8] {
        // SAFETY: EntryHeader is repr(C), 64 bytes (asserted above) with no implicit padding
        // (`_pad` is a field, always initialised), and any bit pattern is a valid [u64; 8].
        unsafe { std::mem::transmute::<EntryHeader, [u64; 8]>(*self) }
    }

    /// The seventh word (key_len, ns_len, kind, flags, padding), as `words` has it.
    #[inline(always)]
    pub fn shape_word(&self) -> u64 {
        self.words()[6]
    }
}

/// The shape word (`EntryHeader::shape_word`) of an entry with no flag (neither compressed nor
/// an in-place integer) of `kind` under a stored key of `key_len` bytes, `ns_len` of them the
/// namespace's.
#[inline(always)]
pub(crate) fn plain_shape_word(key_len: usize, ns_len: usize, kind: u8) -> u64 {
    key_len as u64 & 0xffff | (ns_len as u64 & 0xffff) << 16 | u64::from(kind) << 32
}

/// The header and key hash of a head (header, then the stored namespace and key) as it lies
/// in the ring, for tests and fuzzers that forge entries.
#[cfg(feature = "fuzzing")]
fn forged_head(head: &[u8]) -> (EntryHeader, u64) {
    let mut h = EntryHeader::default();
    let n = head.len().min(HEADER_LEN);
    // SAFETY: at most HEADER_LEN bytes go into a local EntryHeader, whose fields are plain
    // integers: any bytes are a valid value.
    unsafe {
        std::ptr::copy_nonoverlapping(head.as_ptr(), (&mut h as *mut EntryHeader).cast::<u8>(), n)
    };
    let stored = &head[n..];
    let key_end = (h.key_len as usize).min(stored.len());
    let ns_end = (h.ns_len as usize).min(key_end);
    (h, key_hash(namespace_hash(&stored[..ns_end]), &stored[ns_end..key_end]))
}

/// The checksum of a valid entry with this head (header, then the stored namespace and key)
/// and stored value, all taken as they lie in the ring: the lengths come from the header, the
/// value's hash from `value` (a valid entry stores that hash in its header; an in-place
/// integer stores 0), and the checksum field is ignored. (The cache itself uses `checksum_of`
/// with hashes it already has; this form is for tests and fuzzers that forge entries.)
#[cfg(feature = "fuzzing")]
pub fn checksum(head: &[u8], value: &[u8]) -> u64 {
    let (mut h, key_hash) = forged_head(head);
    h.value_hash = if h.flags & FLAG_IN_PLACE != 0 { 0 } else { value_hash(value) };
    checksum_of(&h, key_hash)
}

/// Whether `value` and `check` form a valid in-place pair for the entry with this head (its
/// offset field and key), for tests and fuzzers that forge entries.
#[cfg(feature = "fuzzing")]
pub fn pair_matches(head: &[u8], value: u64, check: u64) -> bool {
    let (h, key_hash) = forged_head(head);
    pair_check(value, h.offset, key_hash) == check
}

/// Byte range of the value's hash inside an entry's header.
pub const VALUE_HASH_RANGE: Range<usize> = 56..64;
const _: () = assert!(std::mem::offset_of!(EntryHeader, value_hash) == VALUE_HASH_RANGE.start);

/// Odd 64-bit constants with their top bit set, one per mixed word.
const MIX: [u64; 8] = [
    0x9c2b_9d9f_2ae7_5e2f,
    0x82ff_349d_4f87_6aa3,
    0xe06c_85af_baec_4ef7,
    0xe715_8a80_21f6_4545,
    0xbc95_ad20_819e_d6b7,
    0xbc7b_a9e3_8be9_794d,
    0xcd31_7c68_022d_d18d,
    0x8eca_7365_7965_c0ff,
];

/// XXH3's 128-bit multiply folded to 64 bits: each output bit depends on every input bit,
/// except when an operand is 0 (the product is 0) or all ones (the fold is all ones).
#[inline(always)]
fn fold_mul(a: u64, b: u64) -> u64 {
    let p = a as u128 * b as u128;
    (p as u64) ^ ((p >> 64) as u64)
}

/// The checksum of an entry with header `h` (its checksum field ignored), whose stored key
/// hashes to `key_hash` (`index::key_hash`); the value enters by the hash in `h.value_hash`
/// (`checksum::value_hash`). The eight 64-bit words are mixed in pairs by 128-bit multiplies,
/// as XXH3 mixes inputs of 17 to 128 bytes, and the products summed. (No avalanche at the end:
/// the checksum is only ever compared for equality, and a bijection applied to both sides of a
/// comparison changes no outcome, so which damaged headers pass is the same with or without
/// it. At scale every instruction that waits for the entry's bytes costs time: layout 14.) A product
/// whose operand equals its constant or the constant's complement no longer depends on its
/// partner, so the partners that can be hidden that way are also added on their own: either
/// hash (a key or a value can be chosen whose hash hides the other) and the epoch (beside the
/// expiry word, which before layout 7 a TTL could steer onto its constant). No header word of
/// a real entry can reach either value: ring offsets and counters stay far below them (a local
/// namespace's epoch, `cache::LOCAL_EPOCH` with a counter, is the top bit and a small number,
/// which no constant here nor its complement is), stored
/// lengths below 2^31, padding is zero, and the expiry word, the expiry in its low half and the
/// store time in its high half, would need a store time of 1986 or of 2089 (or, unrecorded,
/// 0, a high half no 64-bit constant here has).
#[inline(always)]
pub(crate) fn checksum_of(h: &EntryHeader, key_hash: u64) -> u64 {
    let [offset, _checksum, generation, expires_at, epoch, lengths, shape, value_hash] = h.words();
    let products = fold_mul(offset ^ MIX[0], generation ^ MIX[1])
        .wrapping_add(fold_mul(expires_at ^ MIX[2], epoch ^ MIX[3]))
        .wrapping_add(fold_mul(lengths ^ MIX[4], shape ^ MIX[5]))
        .wrapping_add(fold_mul(key_hash ^ MIX[6], value_hash ^ MIX[7]));
    // Either hash can be made to hide the other; the epoch is added too, as a second line
    // behind the expiry word (see above).
    let exposed = epoch.wrapping_add(key_hash).wrapping_add(value_hash.rotate_left(32));
    products.wrapping_add(exposed)
}

/// Bytes an entry takes in the ring: header, stored key (namespace + key) and stored value,
/// rounded up to 8.
pub(crate) fn entry_len(key_len: usize, value_len: usize) -> u64 {
    align8((HEADER_LEN + key_len + value_len) as u64)
}

/// Ring position of an in-place integer's pair, for a value that starts at `value_pos`: the
/// first 16-aligned position (what cmpxchg16b needs; the ring's base is page-aligned).
#[inline(always)]
pub(crate) fn pair_pos(value_pos: u64) -> u64 {
    (value_pos + 15) & !15
}

/// The check word stored beside an in-place integer: a bijection of the value (an xor, then a
/// multiply by an odd constant), salted with the entry's ring offset and key hash. As a
/// bijection, every change of the value alone or of the check alone is caught, so a damaged
/// byte or a read that took one word before a swap and the other after is never a value;
/// the salt makes a pair copied from another entry, or left by an earlier lap, fail too.
#[inline(always)]
pub(crate) fn pair_check(value: u64, offset: u64, key_hash: u64) -> u64 {
    let salt = key_hash ^ offset.rotate_left(29) ^ MIX[3];
    (value ^ salt).wrapping_mul(MIX[5]) ^ MIX[6]
}

pub(crate) fn align8(n: u64) -> u64 {
    (n + 7) & !7
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header() -> EntryHeader {
        EntryHeader {
            offset: 4096,
            checksum: 0,
            ns_generation: 3,
            expires_at: 1_800_000_000,
            stored_at: 1_790_000_000,
            epoch: 2,
            stored_len: 42,
            raw_len: 42,
            key_len: 12,
            ns_len: 4,
            kind: 6,
            flags: 0,
            _pad: [0; 2],
            value_hash: 0xfedc_ba98_7654_3210,
        }
    }

    /// Every input of the checksum changes it, also where its partner in a product is chosen to
    /// make that product constant (equal to its constant: 0; to its complement: all ones).
    #[test]
    fn every_word_counts_even_beside_a_degenerate_partner() {
        let base = header();
        let key_hash = 0x0123_4567_89ab_cdef;
        let sum = checksum_of(&base, key_hash);
        // Each header word, changed alone (the value's hash included).
        for word in [0usize, 2, 3, 4, 5, 6, 7] {
            let mut w = base.words();
            w[word] ^= 1 << 17;
            // SAFETY: [u64; 8] and EntryHeader have the same size and any bits are a valid header.
            let changed: EntryHeader = unsafe { std::mem::transmute(w) };
            assert_ne!(checksum_of(&changed, key_hash), sum, "header word {word}");
        }
        // The checksum field itself is not an input.
        let mut with_sum = base;
        with_sum.checksum = sum;
        assert_eq!(checksum_of(&with_sum, key_hash), sum);
        let with_value_hash = |value_hash: u64| EntryHeader { value_hash, ..base };
        // The value's hash beside a key hash that zeroes or saturates their product, and the
        // other way round.
        for degenerate in [MIX[6], !MIX[6]] {
            assert_ne!(
                checksum_of(&with_value_hash(1), degenerate),
                checksum_of(&with_value_hash(2), degenerate),
                "key hash {degenerate:#x}"
            );
        }
        for degenerate in [MIX[7], !MIX[7]] {
            assert_ne!(
                checksum_of(&with_value_hash(degenerate), 1),
                checksum_of(&with_value_hash(degenerate), 2),
                "value hash {degenerate:#x}"
            );
        }
        // The epoch beside an expiry word that does the same to theirs.
        for expiry_word in [MIX[2], !MIX[2]] {
            let (mut a, mut b) = (base, base);
            a.expires_at = expiry_word as u32;
            a.stored_at = (expiry_word >> 32) as u32;
            b.expires_at = a.expires_at;
            b.stored_at = a.stored_at;
            b.epoch += 1;
            assert_eq!(a.words()[3], expiry_word);
            assert_ne!(
                checksum_of(&a, key_hash),
                checksum_of(&b, key_hash),
                "expiry word {expiry_word:#x}"
            );
        }
        // The store time counts on its own.
        let mut later = base;
        later.stored_at += 1;
        assert_ne!(checksum_of(&later, key_hash), sum, "store time");
    }

    #[test]
    fn plain_shape_word_is_the_headers_seventh_word() {
        let h = EntryHeader { key_len: 0x1234, ns_len: 0x0056, kind: 6, ..header() };
        assert_eq!(h.flags, 0);
        assert_eq!(plain_shape_word(0x1234, 0x56, 6), h.shape_word());
        let flagged = EntryHeader { flags: FLAG_COMPRESSED, ..h };
        assert_ne!(plain_shape_word(0x1234, 0x56, 6), flagged.shape_word());
        let padded = EntryHeader { _pad: [0, 1], ..h };
        assert_ne!(plain_shape_word(0x1234, 0x56, 6), padded.shape_word());
    }

    /// Any two bits flipped anywhere in the header, the checksum field included, fail the
    /// check: a sum of the words that is linear in them (each times a constant, no 128-bit
    /// product) lets a flip of bit 63 in one word cancel one in another, which this catches.
    #[test]
    fn every_double_bit_flip_is_caught() {
        let mut state = 0x5eed_u64;
        let mut next = || {
            state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let z = (state ^ (state >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb)
        };
        for _ in 0..4 {
            let mut h = header();
            h.offset = next() >> 20;
            h.ns_generation = next() >> 40;
            h.value_hash = next();
            let key_hash = next();
            h.checksum = checksum_of(&h, key_hash);
            let words = h.words();
            for a in 0..512 {
                for b in a + 1..512 {
                    let mut w = words;
                    w[a / 64] ^= 1 << (a % 64);
                    w[b / 64] ^= 1 << (b % 64);
                    // SAFETY: [u64; 8] and EntryHeader have the same size and any bits are a
                    // valid header.
                    let flipped: EntryHeader = unsafe { std::mem::transmute(w) };
                    assert_ne!(
                        checksum_of(&flipped, key_hash),
                        flipped.checksum,
                        "bits {a} and {b} flipped"
                    );
                }
            }
        }
    }
}
