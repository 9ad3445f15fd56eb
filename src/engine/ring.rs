//! The value ring: an append-only log addressed by ever-growing virtual offsets.
//!
//! Invariant: an entry at virtual offset `o` lies in physical bytes `[o % cap, o % cap + len)`
//! without wrapping (the reservation skips to the next lap instead), so its bytes are intact as
//! long as no reservation has ended past `o + cap`, i.e. while `tail <= o + cap`.

use std::sync::atomic::{AtomicU64, Ordering};

/// The ring's capacity with a precomputed reciprocal. Every access turns a virtual offset into
/// a position, and a 64-bit division costs tens of cycles where two multiplications cost a few.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RingSize {
    cap: u64,
    /// floor((2^64 - 1) / cap): offset * inv / 2^64 undershoots the quotient by at most 1.
    /// (With cap * inv = 2^64 - 1 - r, r < cap: offset * inv / 2^64 = offset / cap -
    /// offset * (1 + r) / (cap * 2^64), and that last term is below 1 for any 64-bit offset.)
    inv: u64,
}

impl RingSize {
    pub fn new(cap: u64) -> RingSize {
        assert!(cap > 0, "ring capacity must be positive");
        RingSize { cap, inv: u64::MAX / cap }
    }

    /// (offset / cap, offset % cap)
    #[inline]
    pub fn split(&self, offset: u64) -> (u64, u64) {
        let lap = ((offset as u128 * self.inv as u128) >> 64) as u64;
        let pos = offset - lap * self.cap;
        // One step corrects the estimate (see `inv`); written without a loop, it compiles to a
        // conditional move.
        let under = pos >= self.cap;
        (lap + u64::from(under), if under { pos - self.cap } else { pos })
    }

    /// Where virtual `offset` lies in the ring: offset % cap.
    #[inline]
    pub fn pos(&self, offset: u64) -> u64 {
        self.split(offset).1
    }
}

/// Reserves `len` bytes; returns (virtual offset, whether this reservation started a new lap).
pub(crate) fn reserve(tail: &AtomicU64, size: RingSize, len: u64) -> (u64, bool) {
    let cap = size.cap;
    debug_assert!(len <= cap && len.is_multiple_of(8));
    let mut t = tail.load(Ordering::Relaxed);
    loop {
        let (lap, pos) = size.split(t);
        let start = if pos + len > cap { t + (cap - pos) } else { t };
        let end = start + len;
        match tail.compare_exchange_weak(t, end, Ordering::AcqRel, Ordering::Relaxed) {
            Ok(_) => return (start, size.split(end).0 != lap),
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

#[cfg(test)]
mod tests {
    use super::RingSize;

    #[test]
    fn split_matches_division() {
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let caps = [1u64, 2, 3, 7, 64, 1000, 4095, (1 << 20) - 8, (1 << 30) + 8, 3 << 33, u64::MAX / 3, u64::MAX - 1, u64::MAX];
        for &cap in &caps {
            let size = RingSize::new(cap);
            let mut offsets = vec![0, 1, cap - 1, cap, cap.wrapping_add(1), u64::MAX, u64::MAX - 1, u64::MAX - cap];
            for _ in 0..2000 {
                // xorshift: spread over the whole u64 range and over small values.
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                offsets.push(x);
                offsets.push(x >> (x % 64));
            }
            for o in offsets {
                assert_eq!(size.split(o), (o / cap, o % cap), "offset {o} cap {cap}");
            }
        }
    }
}
