//! Ring entries: a fixed header, then the full key (namespace bytes + key bytes), then the value.
//!
//! The checksum covers every header field, the key and the stored value, so a reader that copied
//! an entry while another process overwrote it notices and treats the read as a miss. The head
//! (header + key) and the value are hashed separately and combined, so a reader can copy the
//! value straight into its final destination and a writer straight from its source, with no
//! intermediate copy of the whole entry.

use std::ops::Range;

use xxhash_rust::xxh3::xxh3_64_with_seed;

#[cfg(any(test, feature = "fuzzing"))]
use super::checksum::value_hash;

/// Bytes of the checksum field inside an entry; zeroed while hashing.
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

    /// The header's bytes, as they lie at the start of an entry in the ring.
    pub fn as_bytes(&self) -> &[u8] {
        // SAFETY: EntryHeader is repr(C) plain integers with explicit padding bytes that are
        // always zero-initialised (`_pad`), so viewing it as bytes reads initialised memory.
        unsafe { std::slice::from_raw_parts((self as *const EntryHeader).cast::<u8>(), HEADER_LEN) }
    }
}

/// The checksum of an entry from its head (header with the checksum field zeroed, then the
/// stored key) and its stored value. (The cache itself hashes values while copying them; this
/// form is for tests and fuzzers that forge entries.)
#[cfg(any(test, feature = "fuzzing"))]
pub fn checksum(head: &[u8], value: &[u8]) -> u64 {
    checksum_with(head, value_hash(value))
}

/// `checksum` when the value's hash is already known (from `checksum::copy_hashed`).
#[inline]
pub(crate) fn checksum_with(head: &[u8], value_hash: u64) -> u64 {
    xxh3_64_with_seed(head, value_hash)
}

/// Bytes an entry takes in the ring: header, stored key (namespace + key) and stored value,
/// rounded up to 8.
pub(crate) fn entry_len(key_len: usize, value_len: usize) -> u64 {
    align8((HEADER_LEN + key_len + value_len) as u64)
}

pub(crate) fn align8(n: u64) -> u64 {
    (n + 7) & !7
}
