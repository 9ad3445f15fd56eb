//! Ring entries: a fixed header, then the full key (namespace bytes + key bytes), then the value.
//!
//! The checksum covers every header field, the key and the stored value, so a reader that copied
//! an entry while another process overwrote it notices and treats the read as a miss. It is
//! built from three parts, each already at hand where entries are read and written: the header
//! fields themselves, the key's hash (the one the index is probed with) and the value's hash
//! (computed while the value is copied, so it goes straight to its final destination).
//!
//! The key enters by its hash rather than its bytes because a reader compares the stored key
//! with the caller's byte for byte before it looks at the checksum: a matching key has the
//! caller's hash, which the lookup computed anyway. A writer likewise hashes its key once for
//! both the index and the entry. Hashing the header and key bytes again took 50 to 90 of the
//! roughly 900 instructions of a small get (docs/design.md).

use std::ops::Range;

#[cfg(any(test, feature = "fuzzing"))]
use super::{checksum::value_hash, index::{key_hash, namespace_hash}};

/// Bytes of the checksum field inside an entry (not covered by the checksum).
pub(crate) const CHECKSUM_RANGE: Range<usize> = 8..16;
/// Byte position of `epoch` in the header (read alone when choosing what to evict).
pub(crate) const EPOCH_FIELD: usize = 32;

pub(crate) const FLAG_COMPRESSED: u8 = 1;

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct EntryHeader {
    /// Virtual ring offset the entry was written at; a reader compares it with the offset it
    /// followed, which catches headers of other entries that now occupy the same bytes.
    pub offset: u64,
    pub checksum: u64,
    /// Generation of the entry's namespace when written (0 for the root namespace).
    pub ns_generation: u64,
    /// Unix time in seconds after which the entry is dead; 0 = never.
    pub expires_at: u64,
    /// Global flush epoch when written.
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
}

pub(crate) const HEADER_LEN: usize = std::mem::size_of::<EntryHeader>();
/// Longest head (header + namespace + key) an entry can have.
pub(crate) const HEAD_MAX: usize = HEADER_LEN + crate::engine::MAX_NAMESPACE_LEN + crate::engine::MAX_KEY_LEN;
const _: () = assert!(HEADER_LEN == 56);
const _: () = assert!(std::mem::offset_of!(EntryHeader, epoch) == EPOCH_FIELD);
const _: () = assert!(std::mem::offset_of!(EntryHeader, checksum) == CHECKSUM_RANGE.start);

impl EntryHeader {
    pub fn total_len(&self) -> u64 {
        align8(HEADER_LEN as u64 + self.key_len as u64 + self.stored_len as u64)
    }

    pub fn compressed(&self) -> bool {
        self.flags & FLAG_COMPRESSED != 0
    }

    /// The header as the seven 64-bit words it occupies: the first five fields, then the two
    /// lengths, then key_len, ns_len, kind, flags and padding.
    #[inline(always)]
    pub fn words(&self) -> [u64; 7] {
        // SAFETY: EntryHeader is repr(C), 56 bytes (asserted below) with no implicit padding
        // (`_pad` is a field, always initialised), and any bit pattern is a valid [u64; 7].
        unsafe { std::mem::transmute::<EntryHeader, [u64; 7]>(*self) }
    }

    /// The header's bytes, as they lie at the start of an entry in the ring.
    pub fn as_bytes(&self) -> &[u8] {
        // SAFETY: EntryHeader is repr(C) plain integers with explicit padding bytes that are
        // always zero-initialised (`_pad`), so viewing it as bytes reads initialised memory.
        unsafe { std::slice::from_raw_parts((self as *const EntryHeader).cast::<u8>(), HEADER_LEN) }
    }
}

/// The checksum of an entry from its head (header, then the stored namespace and key) and its
/// stored value, all taken as they lie in the ring: the lengths come from the header, and the
/// checksum field is ignored. (The cache itself uses `checksum_of` with hashes it already has;
/// this form is for tests and fuzzers that forge entries.)
#[cfg(any(test, feature = "fuzzing"))]
pub fn checksum(head: &[u8], value: &[u8]) -> u64 {
    let mut h = EntryHeader::default();
    let n = head.len().min(HEADER_LEN);
    // SAFETY: at most HEADER_LEN bytes go into a local EntryHeader, whose fields are plain
    // integers: any bytes are a valid value.
    unsafe { std::ptr::copy_nonoverlapping(head.as_ptr(), (&mut h as *mut EntryHeader).cast::<u8>(), n) };
    let stored = &head[n..];
    let key_end = (h.key_len as usize).min(stored.len());
    let ns_end = (h.ns_len as usize).min(key_end);
    let key_hash = key_hash(namespace_hash(&stored[..ns_end]), &stored[ns_end..key_end]);
    checksum_of(&h, key_hash, value_hash(value))
}

/// Odd 64-bit constants with their top bit set, one per mixed word. No header field of a real
/// entry can equal its constant (that would take a ring offset, counter or time past 2^63, or
/// a stored length past 2^31, the longest entry), so none can zero a product and hide its
/// partner word.
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

/// XXH3's 128-bit multiply folded to 64 bits: each output bit depends on every input bit.
#[inline(always)]
fn fold_mul(a: u64, b: u64) -> u64 {
    let p = a as u128 * b as u128;
    (p as u64) ^ ((p >> 64) as u64)
}

/// The checksum of an entry with header `h` (its checksum field ignored), whose stored key
/// hashes to `key_hash` (`index::key_hash`) and stored value to `value_hash`
/// (`checksum::value_hash`). The eight 64-bit words are mixed in pairs by 128-bit multiplies
/// and the sum is avalanched: XXH3's construction for inputs of 17 to 128 bytes, on words
/// instead of bytes.
#[inline(always)]
pub(crate) fn checksum_of(h: &EntryHeader, key_hash: u64, value_hash: u64) -> u64 {
    let [offset, _checksum, generation, expires_at, epoch, lengths, shape] = h.words();
    let acc = fold_mul(offset ^ MIX[0], generation ^ MIX[1])
        .wrapping_add(fold_mul(expires_at ^ MIX[2], epoch ^ MIX[3]))
        .wrapping_add(fold_mul(lengths ^ MIX[4], shape ^ MIX[5]))
        .wrapping_add(fold_mul(key_hash ^ MIX[6], value_hash ^ MIX[7]));
    // XXH3's avalanche.
    let x = (acc ^ (acc >> 37)).wrapping_mul(0x1656_67b1_9e37_79f9);
    x ^ (x >> 32)
}

/// Bytes an entry takes in the ring: header, stored key (namespace + key) and stored value,
/// rounded up to 8.
pub(crate) fn entry_len(key_len: usize, value_len: usize) -> u64 {
    align8((HEADER_LEN + key_len + value_len) as u64)
}

pub(crate) fn align8(n: u64) -> u64 {
    (n + 7) & !7
}
