//! The value ring: an append-only log addressed by ever-growing virtual offsets.
//!
//! Invariant: an entry at virtual offset `o` lies in physical bytes `[o % cap, o % cap + len)`
//! without wrapping (the reservation skips to the next lap instead), so its bytes are intact as
//! long as no reservation has ended past `o + cap`, i.e. while `tail <= o + cap`.

use std::sync::atomic::{AtomicU64, Ordering};

/// Reserves `len` bytes; returns (virtual offset, whether this reservation started a new lap).
pub(crate) fn reserve(tail: &AtomicU64, cap: u64, len: u64) -> (u64, bool) {
    debug_assert!(len <= cap && len % 8 == 0);
    let mut t = tail.load(Ordering::Relaxed);
    loop {
        let pos = t % cap;
        let start = if pos + len > cap { t + (cap - pos) } else { t };
        let end = start + len;
        match tail.compare_exchange_weak(t, end, Ordering::AcqRel, Ordering::Relaxed) {
            Ok(_) => return (start, end / cap != t / cap),
            Err(now) => t = now,
        }
    }
}

/// Whether an entry at `offset` can still be intact given the reserved `tail`.
#[inline]
pub(crate) fn is_intact(tail: u64, offset: u64, cap: u64) -> bool {
    offset < tail && tail - offset <= cap
}

/// Copies `len` bytes out of the ring at physical position `pos` into `dst`.
///
/// # Safety
/// `ring` must point at a ring of at least `pos + len` bytes; the bytes may be concurrently
/// rewritten by other processes, so callers must validate what they copied.
#[inline]
pub(crate) unsafe fn copy_out(ring: *const u8, pos: u64, dst: *mut u8, len: usize) {
    // SAFETY: bounds are the caller's contract; dst is private memory of this process. A
    // concurrent writer can only make the copy inconsistent, which validation detects.
    unsafe { std::ptr::copy_nonoverlapping(ring.add(pos as usize), dst, len) }
}

/// Copies `src` into the ring at physical position `pos`.
///
/// # Safety
/// `ring` must point at a ring of at least `pos + src.len()` bytes, and `pos` must come from a
/// reservation this process made (no reader trusts those bytes before they are published).
#[inline]
pub(crate) unsafe fn copy_in(ring: *mut u8, pos: u64, src: &[u8]) {
    // SAFETY: see the function contract.
    unsafe { std::ptr::copy_nonoverlapping(src.as_ptr(), ring.add(pos as usize), src.len()) }
}
