//! The value ring: an append-only log addressed by ever-growing virtual offsets.
//!
//! Invariant: an entry at virtual offset `o` lies in physical bytes `[o % cap, o % cap + len)`
//! without wrapping (the reservation skips to the next lap instead), so its bytes are intact as
//! long as no reservation has ended past `o + cap`, i.e. while `tail <= o + cap`.
//!
//! Every read and write of ring bytes goes through `RingView`, whose copies are sound while
//! other processes write the same bytes (see its documentation).

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

/// True where this CPU can swap a 16-byte pair atomically, which in-place integer updates
/// need; elsewhere integers are written as ordinary entries and every update appends.
#[inline(always)]
pub(crate) fn has_pair_swap() -> bool {
    #[cfg(target_arch = "x86_64")]
    return std::is_x86_feature_detected!("cmpxchg16b");
    #[cfg(not(target_arch = "x86_64"))]
    return false;
}

/// Whether an entry at `offset` can still be intact given the reserved `tail`.
#[inline]
pub(crate) fn is_intact(tail: u64, offset: u64, cap: u64) -> bool {
    offset < tail && tail - offset <= cap
}

/// The value ring as every process sees it: the one way the engine reads or writes ring bytes.
///
/// Other processes write these bytes while this one reads them (a writer lapped by the ring, or
/// a reader still copying an entry whose bytes a newer reservation now owns), so by Rust's rules
/// an ordinary load or store of them — a `memcpy`, or a `&[u8]` over them — would be a data
/// race, undefined behaviour however the checks afterwards treat the result. Every access here
/// is an inline assembly block instead (`racy_copy`), which the compiler cannot see into: it
/// makes no assumption about what the block reads or writes beyond what the assembly does, and
/// what the assembly does is what the hardware does. That is the reasoning of RFC 3301 (atomic
/// memcpy): a copy made of byte accesses each of which is single-copy atomic on the hardware is
/// an element-wise Relaxed atomic copy, which may race with other atomic accesses without
/// undefined behaviour. The loads and stores the blocks issue (16-byte SSE2 moves, `rep movsb`,
/// `ldp`/`stp`, bytes) are at least byte-atomic on x86_64 and aarch64, so each block performs
/// exactly a Relaxed atomic load of every source byte and a Relaxed atomic store of every
/// destination byte. As atomics they take part in the fences of the tail protocol
/// (docs/design.md, "Memory ordering"): a reader's copy that read a byte stored after a
/// writer's release fence synchronises, through the reader's acquire fence, with that writer's
/// tail reservation. No other code touches ring bytes: no plain access races with these, and
/// there are no accesses of other sizes to mix with them.
///
/// What a racing copy returns may be any mix of old and new bytes; readers treat every copy as
/// untrusted until its checksum and the tail re-check pass, and hash only their private copy.
#[derive(Clone, Copy)]
pub(crate) struct RingView {
    base: *mut u8,
    cap: u64,
}

// SAFETY: the view only names shared memory; every access through it is atomic (see above).
unsafe impl Send for RingView {}
// SAFETY: as for Send.
unsafe impl Sync for RingView {}

impl RingView {
    /// # Safety
    /// `base` must point at `cap` bytes that stay mapped as long as the view is used.
    pub unsafe fn new(base: *mut u8, cap: u64) -> RingView {
        RingView { base, cap }
    }

    /// Copies `len` ring bytes at position `pos` into `dst`, which is private memory of this
    /// process. The bytes may be changing: validate before trusting them.
    ///
    /// # Safety
    /// `pos + len <= cap`; `dst` writable for `len` bytes that nobody else accesses meanwhile
    /// (so they do not overlap the ring).
    #[inline(always)]
    pub unsafe fn copy_out(&self, pos: u64, dst: *mut u8, len: usize) {
        debug_assert!(pos + len as u64 <= self.cap);
        // SAFETY: the source range lies in the ring (the caller's contract); see racy_copy.
        unsafe { racy_copy(self.base.add(pos as usize), dst, len) }
    }

    /// `copy_out` of an entry's 64-byte header to `header`, with four fixed 16-byte moves.
    ///
    /// # Safety
    /// As `copy_out` for 64 bytes at `pos`; `header` writable for 64 bytes.
    #[inline(always)]
    pub unsafe fn copy_header_out(&self, pos: u64, header: *mut u8) {
        debug_assert!(pos + 64 <= self.cap);
        // SAFETY: the caller's contract.
        unsafe { racy_copy_64(self.base.add(pos as usize), header) };
    }

    /// The 8 bytes at `pos` as one word in the machine's byte order (the order the entry
    /// header's fields are written in), with one load.
    ///
    /// # Safety
    /// `pos + 8 <= cap`.
    #[inline(always)]
    pub unsafe fn read_u64(&self, pos: u64) -> u64 {
        debug_assert!(pos + 8 <= self.cap);
        // SAFETY: the caller's contract; see racy_word.
        unsafe { racy_word(self.base.add(pos as usize)) }
    }

    /// Copies `src` into the ring at position `pos`.
    ///
    /// # Safety
    /// `pos + src.len() <= cap`, and `pos` must come from a reservation this process made (no
    /// reader trusts those bytes before they are published).
    #[inline(always)]
    pub unsafe fn copy_in(&self, pos: u64, src: &[u8]) {
        debug_assert!(pos + src.len() as u64 <= self.cap);
        // SAFETY: the destination range lies in the ring (the caller's contract) and `src` is
        // this process's own memory; see racy_copy.
        unsafe { racy_copy(src.as_ptr(), self.base.add(pos as usize), src.len()) }
    }

    /// Stores eight words (an entry header) at `pos`, straight from registers: copying them
    /// from memory would first store them to the stack as words and then load them back in
    /// wider moves, which the CPU cannot forward from those stores (a stall on every write).
    ///
    /// # Safety
    /// As `copy_in`, for 64 bytes.
    #[inline(always)]
    pub unsafe fn write_words(&self, pos: u64, w: [u64; 8]) {
        debug_assert!(pos + 64 <= self.cap);
        // SAFETY: the caller's contract; see racy_store_words.
        unsafe { racy_store_words(self.base.add(pos as usize), w) }
    }

    /// The two words of an in-place integer pair at `pos` (entry.rs `pair_pos`), the value
    /// then its check, each in one load and in that order. The pair is only ever changed
    /// whole (`swap_pair`), so a read that straddles a change gets one word of each state, and
    /// the check tells it so.
    ///
    /// # Safety
    /// `pos + 16 <= cap`.
    #[inline(always)]
    pub unsafe fn read_pair(&self, pos: u64) -> (u64, u64) {
        debug_assert!(pos + 16 <= self.cap);
        // SAFETY: the caller's contract; see racy_word.
        let value = unsafe { racy_word(self.base.add(pos as usize)) };
        // Loads are not reordered on x86_64; elsewhere the check must not be read first.
        std::sync::atomic::fence(Ordering::Acquire);
        // SAFETY: as above, for the second word.
        let check = unsafe { racy_word(self.base.add(pos as usize + 8)) };
        (value, check)
    }

    /// Stores an in-place integer pair (value, then check) at `pos`, as two words.
    ///
    /// # Safety
    /// As `copy_in`, for 16 bytes.
    #[inline(always)]
    pub unsafe fn write_pair(&self, pos: u64, pair: [u64; 2]) {
        debug_assert!(pos + 16 <= self.cap);
        // SAFETY: the caller's contract; see racy_store_word.
        unsafe {
            racy_store_word(self.base.add(pos as usize), pair[0]);
            racy_store_word(self.base.add(pos as usize + 8), pair[1]);
        }
    }

    /// Replaces the 16 bytes at `pos` by `new` if they hold `old`, in one atomic instruction
    /// (`lock cmpxchg16b`); returns what they held, which equals `old` when the swap happened.
    /// A process killed at any point leaves either the old pair or the new one.
    ///
    /// # Safety
    /// `pos` 16-aligned, `pos + 16 <= cap`, and the CPU has `cmpxchg16b` (`has_pair_swap`).
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    pub unsafe fn swap_pair(&self, pos: u64, old: (u64, u64), new: (u64, u64)) -> (u64, u64) {
        debug_assert!(pos % 16 == 0 && pos + 16 <= self.cap);
        let (mut low, mut high) = old;
        // SAFETY: the caller's contract: the 16 bytes lie in the mapped ring and are aligned as
        // cmpxchg16b requires (the ring's base is page-aligned). cmpxchg16b takes the new low
        // word in rbx, which Rust does not let an asm block name: it goes in through rsi and
        // is swapped with rbx around the instruction, which restores rbx. Every operand has a
        // fixed register: with `reg` the compiler may pick rbx for the address, which the
        // swap would then replace (a crash this code had before its registers were fixed).
        unsafe {
            std::arch::asm!(
                "xchg rsi, rbx",
                "lock cmpxchg16b xmmword ptr [rdi]",
                "mov rbx, rsi",
                in("rdi") self.base.add(pos as usize),
                inout("rsi") new.0 => _,
                inout("rax") low,
                inout("rdx") high,
                in("rcx") new.1,
                options(nostack),
            )
        };
        (low, high)
    }

    /// Asks the CPU to start loading the cache line holding position `pos` (a hint: it reads
    /// nothing the program sees and never faults).
    #[inline(always)]
    pub fn prefetch(&self, pos: u64) {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: a prefetch is only a hint; it never faults, even on a bad address.
        unsafe {
            std::arch::x86_64::_mm_prefetch(
                self.base.wrapping_add(pos as usize).cast::<i8>(),
                std::arch::x86_64::_MM_HINT_T0,
            )
        };
        #[cfg(not(target_arch = "x86_64"))]
        let _ = pos;
    }
}

/// Copies at least this many bytes with `rep movsb`, as glibc's memcpy does on CPUs with ERMS
/// (its threshold with 64-byte vectors); shorter ones with vector moves, which start faster on
/// CPUs without fast short `rep movsb`.
#[cfg(target_arch = "x86_64")]
const REP_MOVSB_MIN: usize = 8192;

/// Copies `len` bytes from `src` to `dst` inside one assembly block (see `RingView`), so that
/// one side may be shared memory that other processes access at the same time.
///
/// # Safety
/// `src` readable and `dst` writable for `len` bytes; the ranges do not overlap.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn racy_copy(src: *const u8, dst: *mut u8, len: usize) {
    // SAFETY (all three): the caller's contract; AVX2 is checked for where it is needed.
    unsafe {
        if len >= REP_MOVSB_MIN {
            racy_copy_rep_movsb(src, dst, len)
        } else if len > 64 && std::arch::is_x86_feature_detected!("avx2") {
            racy_copy_avx2(src, dst, len)
        } else {
            racy_copy_sse2(src, dst, len)
        }
    }
}

/// Copies exactly 64 bytes from `src` to `dst` inside one assembly block, as `racy_copy`.
///
/// # Safety
/// `src` readable and `dst` writable for 64 bytes; the ranges do not overlap.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn racy_copy_64(src: *const u8, dst: *mut u8) {
    // SAFETY: the caller's contract; the moves touch bytes 0..64 of each range.
    unsafe {
        std::arch::asm!(
            "movdqu xmm0, [{src}]",
            "movdqu xmm1, [{src} + 16]",
            "movdqu xmm2, [{src} + 32]",
            "movdqu xmm3, [{src} + 48]",
            "movdqu [{dst}], xmm0",
            "movdqu [{dst} + 16], xmm1",
            "movdqu [{dst} + 32], xmm2",
            "movdqu [{dst} + 48], xmm3",
            src = in(reg) src,
            dst = in(reg) dst,
            out("xmm0") _,
            out("xmm1") _,
            out("xmm2") _,
            out("xmm3") _,
            options(nostack, preserves_flags),
        );
    }
}

/// Elsewhere, the general copy.
///
/// # Safety
/// As the x86_64 one.
#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
unsafe fn racy_copy_64(src: *const u8, dst: *mut u8) {
    // SAFETY: the caller's contract.
    unsafe { racy_copy(src, dst, 64) }
}

/// `racy_copy` with `rep movsb`.
///
/// # Safety
/// As `racy_copy`.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn racy_copy_rep_movsb(src: *const u8, dst: *mut u8, len: usize) {
    // SAFETY: the caller's contract. `rep movsb` copies rcx bytes from [rsi] to [rdi] going up
    // (Rust guarantees the direction flag clear at an asm block).
    unsafe {
        std::arch::asm!(
            "rep movsb",
            inout("rcx") len => _,
            inout("rsi") src => _,
            inout("rdi") dst => _,
            options(nostack, preserves_flags),
        );
    }
}

/// `racy_copy` with 16-byte SSE2 moves (every x86_64 CPU has SSE2).
///
/// # Safety
/// As `racy_copy`.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn racy_copy_sse2(src: *const u8, dst: *mut u8, len: usize) {
    // SAFETY: the caller's contract. Every access below lies within [0, len) of either range,
    // in the manner of glibc's memcpy for short copies: 16 to 32 bytes as the first and the
    // last 16, 33 to 64 as the first and the last 32, longer as 64-byte steps while a whole
    // step fits and then the last 64; under 16 bytes, two overlapping 8-, 4- or 1-byte moves
    // (and the middle byte for 3). A byte copied twice may differ between its two reads; the
    // copy is then a mix of the source's states, as any racing copy is.
    unsafe {
        std::arch::asm!(
            "cmp rcx, 16",
            "jb 5f",
            "cmp rcx, 32",
            "ja 3f",
            "movdqu xmm0, [rsi]",
            "movdqu xmm1, [rsi + rcx - 16]",
            "movdqu [rdi], xmm0",
            "movdqu [rdi + rcx - 16], xmm1",
            "jmp 9f",
            "3:",
            "cmp rcx, 64",
            "ja 4f",
            "movdqu xmm0, [rsi]",
            "movdqu xmm1, [rsi + 16]",
            "movdqu xmm2, [rsi + rcx - 32]",
            "movdqu xmm3, [rsi + rcx - 16]",
            "movdqu [rdi], xmm0",
            "movdqu [rdi + 16], xmm1",
            "movdqu [rdi + rcx - 32], xmm2",
            "movdqu [rdi + rcx - 16], xmm3",
            "jmp 9f",
            "4:",
            "xor eax, eax",
            "lea rdx, [rcx - 64]",
            "2:",
            "movdqu xmm0, [rsi + rax]",
            "movdqu xmm1, [rsi + rax + 16]",
            "movdqu xmm2, [rsi + rax + 32]",
            "movdqu xmm3, [rsi + rax + 48]",
            "movdqu [rdi + rax], xmm0",
            "movdqu [rdi + rax + 16], xmm1",
            "movdqu [rdi + rax + 32], xmm2",
            "movdqu [rdi + rax + 48], xmm3",
            "add rax, 64",
            "cmp rax, rdx",
            "jb 2b",
            "movdqu xmm0, [rsi + rdx]",
            "movdqu xmm1, [rsi + rdx + 16]",
            "movdqu xmm2, [rsi + rdx + 32]",
            "movdqu xmm3, [rsi + rdx + 48]",
            "movdqu [rdi + rdx], xmm0",
            "movdqu [rdi + rdx + 16], xmm1",
            "movdqu [rdi + rdx + 32], xmm2",
            "movdqu [rdi + rdx + 48], xmm3",
            "jmp 9f",
            "5:",
            "cmp rcx, 8",
            "jb 6f",
            "mov rax, [rsi]",
            "mov rdx, [rsi + rcx - 8]",
            "mov [rdi], rax",
            "mov [rdi + rcx - 8], rdx",
            "jmp 9f",
            "6:",
            "cmp rcx, 4",
            "jb 7f",
            "mov eax, [rsi]",
            "mov edx, [rsi + rcx - 4]",
            "mov [rdi], eax",
            "mov [rdi + rcx - 4], edx",
            "jmp 9f",
            "7:",
            "test rcx, rcx",
            "jz 9f",
            "movzx eax, byte ptr [rsi]",
            "movzx edx, byte ptr [rsi + rcx - 1]",
            "mov [rdi], al",
            "mov [rdi + rcx - 1], dl",
            "mov rdx, rcx",
            "shr rdx, 1",
            "movzx eax, byte ptr [rsi + rdx]",
            "mov [rdi + rdx], al",
            "9:",
            in("rcx") len,
            in("rsi") src,
            in("rdi") dst,
            out("rax") _,
            out("rdx") _,
            out("xmm0") _,
            out("xmm1") _,
            out("xmm2") _,
            out("xmm3") _,
            options(nostack),
        );
    }
}

/// `racy_copy` of 65 bytes or more (below REP_MOVSB_MIN) with 32-byte moves: 65 to 128 bytes as the first and the
/// last 64, longer as 128-byte steps while a whole step fits and then the last 128: fewer
/// instructions than 16-byte moves, as glibc's memcpy does on these CPUs (docs/benchmarks.md,
/// "Figures behind code comments").
///
/// # Safety
/// As `racy_copy`, with `len > 64`; the CPU must have AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn racy_copy_avx2(src: *const u8, dst: *mut u8, len: usize) {
    // SAFETY: the caller's contract; every access lies within [0, len) of either range
    // (len > 64). vzeroupper leaves the upper halves clean for SSE code after the block.
    unsafe {
        std::arch::asm!(
            "cmp rcx, 128",
            "ja 3f",
            "vmovdqu ymm0, [rsi]",
            "vmovdqu ymm1, [rsi + 32]",
            "vmovdqu ymm2, [rsi + rcx - 64]",
            "vmovdqu ymm3, [rsi + rcx - 32]",
            "vmovdqu [rdi], ymm0",
            "vmovdqu [rdi + 32], ymm1",
            "vmovdqu [rdi + rcx - 64], ymm2",
            "vmovdqu [rdi + rcx - 32], ymm3",
            "jmp 9f",
            "3:",
            "xor eax, eax",
            "lea rdx, [rcx - 128]",
            "2:",
            "vmovdqu ymm0, [rsi + rax]",
            "vmovdqu ymm1, [rsi + rax + 32]",
            "vmovdqu ymm2, [rsi + rax + 64]",
            "vmovdqu ymm3, [rsi + rax + 96]",
            "vmovdqu [rdi + rax], ymm0",
            "vmovdqu [rdi + rax + 32], ymm1",
            "vmovdqu [rdi + rax + 64], ymm2",
            "vmovdqu [rdi + rax + 96], ymm3",
            "sub rax, -128",
            "cmp rax, rdx",
            "jb 2b",
            "vmovdqu ymm0, [rsi + rdx]",
            "vmovdqu ymm1, [rsi + rdx + 32]",
            "vmovdqu ymm2, [rsi + rdx + 64]",
            "vmovdqu ymm3, [rsi + rdx + 96]",
            "vmovdqu [rdi + rdx], ymm0",
            "vmovdqu [rdi + rdx + 32], ymm1",
            "vmovdqu [rdi + rdx + 64], ymm2",
            "vmovdqu [rdi + rdx + 96], ymm3",
            "9:",
            "vzeroupper",
            in("rcx") len,
            in("rsi") src,
            in("rdi") dst,
            out("rax") _,
            out("rdx") _,
            out("ymm0") _,
            out("ymm1") _,
            out("ymm2") _,
            out("ymm3") _,
            options(nostack),
        );
    }
}

/// Eight 8-byte stores in one assembly block (see `RingView`).
///
/// # Safety
/// `p` writable for 64 bytes.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn racy_store_words(p: *mut u8, w: [u64; 8]) {
    // SAFETY: the caller's contract; eight stores within [0, 64).
    unsafe {
        std::arch::asm!(
            "mov [{p}], {w0}",
            "mov [{p} + 8], {w1}",
            "mov [{p} + 16], {w2}",
            "mov [{p} + 24], {w3}",
            "mov [{p} + 32], {w4}",
            "mov [{p} + 40], {w5}",
            "mov [{p} + 48], {w6}",
            "mov [{p} + 56], {w7}",
            p = in(reg) p,
            w0 = in(reg) w[0], w1 = in(reg) w[1], w2 = in(reg) w[2], w3 = in(reg) w[3],
            w4 = in(reg) w[4], w5 = in(reg) w[5], w6 = in(reg) w[6], w7 = in(reg) w[7],
            options(nostack, preserves_flags),
        );
    }
}

/// Eight 8-byte stores in one assembly block (see `RingView`).
///
/// # Safety
/// `p` writable for 64 bytes.
#[cfg(target_arch = "aarch64")]
#[inline(always)]
unsafe fn racy_store_words(p: *mut u8, w: [u64; 8]) {
    // SAFETY: the caller's contract; stores within [0, 64).
    unsafe {
        std::arch::asm!(
            "stp {w0}, {w1}, [{p}]",
            "stp {w2}, {w3}, [{p}, #16]",
            "stp {w4}, {w5}, [{p}, #32]",
            "stp {w6}, {w7}, [{p}, #48]",
            p = in(reg) p,
            w0 = in(reg) w[0], w1 = in(reg) w[1], w2 = in(reg) w[2], w3 = in(reg) w[3],
            w4 = in(reg) w[4], w5 = in(reg) w[5], w6 = in(reg) w[6], w7 = in(reg) w[7],
            options(nostack, preserves_flags),
        );
    }
}

/// Elsewhere: through racy_copy.
///
/// # Safety
/// `p` writable for 64 bytes.
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
#[inline(always)]
unsafe fn racy_store_words(p: *mut u8, w: [u64; 8]) {
    // SAFETY: the caller's contract; the source is a local array.
    unsafe { racy_copy(w.as_ptr().cast::<u8>(), p, 64) }
}

/// Stores one word at `p` in one assembly block (see `RingView`).
///
/// # Safety
/// `p` writable for 8 bytes.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn racy_store_word(p: *mut u8, word: u64) {
    // SAFETY: the caller's contract; one 8-byte store (x86_64 needs no alignment).
    unsafe {
        std::arch::asm!("mov [{p}], {word}", p = in(reg) p, word = in(reg) word, options(nostack, preserves_flags))
    };
}

/// Elsewhere: through racy_copy.
///
/// # Safety
/// `p` writable for 8 bytes.
#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
unsafe fn racy_store_word(p: *mut u8, word: u64) {
    // SAFETY: the caller's contract; the source is a local array.
    unsafe { racy_copy(word.to_ne_bytes().as_ptr(), p, 8) };
}

/// The 8 bytes at `p` as one word, read in one assembly block (see `RingView`).
///
/// # Safety
/// `p` readable for 8 bytes.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn racy_word(p: *const u8) -> u64 {
    let word: u64;
    // SAFETY: the caller's contract; one 8-byte load (x86_64 needs no alignment).
    unsafe {
        std::arch::asm!("mov {word}, [{p}]", p = in(reg) p, word = lateout(reg) word, options(nostack, preserves_flags))
    };
    word
}

/// The 8 bytes at `p` as one word, read in one assembly block (see `RingView`).
///
/// # Safety
/// `p` readable for 8 bytes.
#[cfg(target_arch = "aarch64")]
#[inline(always)]
unsafe fn racy_word(p: *const u8) -> u64 {
    let word: u64;
    // SAFETY: the caller's contract; one 8-byte load (unaligned loads of normal memory are
    // allowed on aarch64).
    unsafe {
        std::arch::asm!("ldr {word}, [{p}]", p = in(reg) p, word = lateout(reg) word, options(nostack, preserves_flags))
    };
    word
}

/// Elsewhere: through racy_copy.
///
/// # Safety
/// `p` readable for 8 bytes.
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
#[inline(always)]
unsafe fn racy_word(p: *const u8) -> u64 {
    let mut bytes = [0u8; 8];
    // SAFETY: the caller's contract; the destination is a local array.
    unsafe { racy_copy(p, bytes.as_mut_ptr(), 8) };
    u64::from_ne_bytes(bytes)
}

/// As on x86_64: 16-byte `ldp`/`stp` pairs while a whole pair fits, then the last 16 bytes
/// (overlapping); under 16 bytes, one byte at a time.
///
/// # Safety
/// `src` readable and `dst` writable for `len` bytes; the ranges do not overlap.
#[cfg(target_arch = "aarch64")]
#[inline(always)]
unsafe fn racy_copy(src: *const u8, dst: *mut u8, len: usize) {
    // SAFETY: the caller's contract; every access lies within [0, len) of either range.
    unsafe {
        std::arch::asm!(
            "cmp {len}, #16",
            "b.lo 5f",
            "add {last_src}, {src}, {len}",
            "sub {last_src}, {last_src}, #16",
            "add {last_dst}, {dst}, {len}",
            "sub {last_dst}, {last_dst}, #16",
            "2:",
            "cmp {src}, {last_src}",
            "b.hs 3f",
            "ldp {a}, {b}, [{src}], #16",
            "stp {a}, {b}, [{dst}], #16",
            "b 2b",
            "3:",
            "ldp {a}, {b}, [{last_src}]",
            "stp {a}, {b}, [{last_dst}]",
            "b 9f",
            "5:",
            "cbz {len}, 9f",
            "6:",
            "ldrb {a:w}, [{src}], #1",
            "strb {a:w}, [{dst}], #1",
            "subs {len}, {len}, #1",
            "b.ne 6b",
            "9:",
            src = inout(reg) src => _,
            dst = inout(reg) dst => _,
            len = inout(reg) len => _,
            last_src = out(reg) _,
            last_dst = out(reg) _,
            a = out(reg) _,
            b = out(reg) _,
            options(nostack),
        );
    }
}

/// Elsewhere: one Relaxed atomic byte access per byte, the same semantics without assembly.
///
/// # Safety
/// `src` readable and `dst` writable for `len` bytes; the ranges do not overlap.
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
#[inline(always)]
unsafe fn racy_copy(src: *const u8, dst: *mut u8, len: usize) {
    use std::sync::atomic::AtomicU8;
    for i in 0..len {
        // SAFETY: the caller's contract; AtomicU8 has the layout of u8 and needs no alignment.
        unsafe {
            let b = (*src.add(i).cast::<AtomicU8>()).load(Ordering::Relaxed);
            (*dst.add(i).cast::<AtomicU8>()).store(b, Ordering::Relaxed);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{RingSize, RingView};

    /// Every length from 0 to past the `rep movsb` threshold, at every alignment of source and
    /// destination within a word: copy_in then copy_out give back exactly the bytes, and no
    /// byte outside the range is touched (the small paths copy with overlapping moves).
    /// Each x86_64 copy routine on its own, at every length it can be given (racy_copy picks
    /// one by length and CPU, so the test of RingView alone would miss some of them here).
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn every_x86_copy_routine_copies_exactly() {
        type Copy = unsafe fn(*const u8, *mut u8, usize);
        let mut routines: Vec<(&str, Copy, usize)> =
            vec![("sse2", super::racy_copy_sse2, 0), ("rep movsb", super::racy_copy_rep_movsb, 0)];
        if std::arch::is_x86_feature_detected!("avx2") {
            routines.push(("avx2", super::racy_copy_avx2, 65));
        }
        for (name, copy, min) in routines {
            for len in (min..=1100).chain([4095, 4096, 4097, 8191, 8192, 8193, 20_000]) {
                for align in [0usize, 1, 9] {
                    let src: Vec<u8> =
                        (0..len + align).map(|i| (i * 89 % 253) as u8 ^ 0x3c).collect();
                    let mut dst = vec![0xa5u8; len + 64];
                    // SAFETY: src holds align + len bytes, dst len + 64; distinct allocations.
                    unsafe { copy(src.as_ptr().add(align), dst.as_mut_ptr().add(align), len) };
                    assert_eq!(
                        &dst[align..align + len],
                        &src[align..],
                        "{name}, {len} bytes at +{align}"
                    );
                    assert!(
                        dst[..align].iter().chain(&dst[align + len..]).all(|&b| b == 0xa5),
                        "{name} wrote outside {len} bytes at +{align}"
                    );
                }
            }
        }
    }

    #[test]
    fn copies_move_exactly_the_bytes_asked_for() {
        const GUARD: usize = 64;
        let pattern = |len: usize, seed: usize| -> Vec<u8> {
            (0..len).map(|i| ((i * 131 + seed * 7) % 251) as u8 ^ 0x5a).collect()
        };
        let lengths = (0..=300)
            .chain((301..9000).step_by(37))
            .chain([4095, 4096, 4097, 8191, 8192, 8193, 65_536]);
        let mut ring = vec![0u8; 65_536 + 2 * GUARD + 16];
        for len in lengths {
            for align in [0usize, 1, 7, 8, 13] {
                let pos = (GUARD + align) as u64;
                let src = pattern(len, align);
                ring.fill(0xc3);
                // SAFETY: `ring` outlives the view and holds pos + len + GUARD bytes.
                let view = unsafe { RingView::new(ring.as_mut_ptr(), ring.len() as u64) };
                // SAFETY: pos + len <= cap; nobody else uses `ring` or `out`.
                unsafe { view.copy_in(pos, &src) };
                let mut out = vec![0xa5u8; len + 2 * GUARD];
                // SAFETY: as above; `out` has room for GUARD + len + GUARD bytes.
                unsafe { view.copy_out(pos, out.as_mut_ptr().add(GUARD), len) };
                assert_eq!(
                    &ring[pos as usize..pos as usize + len],
                    &src[..],
                    "copy_in, {len} bytes at +{align}"
                );
                assert!(
                    ring[..pos as usize]
                        .iter()
                        .chain(&ring[pos as usize + len..])
                        .all(|&b| b == 0xc3),
                    "copy_in wrote outside {len} bytes at +{align}"
                );
                assert_eq!(&out[GUARD..GUARD + len], &src[..], "copy_out, {len} bytes at +{align}");
                assert!(
                    out[..GUARD].iter().chain(&out[GUARD + len..]).all(|&b| b == 0xa5),
                    "copy_out wrote outside {len} bytes at +{align}"
                );
                if len >= 64 {
                    let words: [u64; 8] = std::array::from_fn(|i| {
                        u64::from_ne_bytes(src[8 * i..8 * i + 8].try_into().unwrap()) ^ 0xffff
                    });
                    // SAFETY: pos + 64 <= cap.
                    unsafe { view.write_words(pos, words) };
                    let expect: Vec<u8> = words.iter().flat_map(|w| w.to_ne_bytes()).collect();
                    assert_eq!(
                        &ring[pos as usize..pos as usize + 64],
                        &expect[..],
                        "write_words at +{align}"
                    );
                    assert!(
                        ring[..pos as usize]
                            .iter()
                            .chain(&ring[pos as usize + len..])
                            .all(|&b| b == 0xc3),
                        "write_words wrote outside at +{align}"
                    );
                    // SAFETY: as above.
                    unsafe { view.copy_in(pos, &src) };
                }
                if len >= 8 {
                    // SAFETY: pos + 8 <= cap.
                    let word = unsafe { view.read_u64(pos) };
                    assert_eq!(
                        word,
                        u64::from_ne_bytes(src[..8].try_into().unwrap()),
                        "read_u64 at +{align}"
                    );
                }
            }
        }
    }

    #[test]
    fn split_matches_division() {
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let caps = [
            1u64,
            2,
            3,
            7,
            64,
            1000,
            4095,
            (1 << 20) - 8,
            (1 << 30) + 8,
            3 << 33,
            u64::MAX / 3,
            u64::MAX - 1,
            u64::MAX,
        ];
        for &cap in &caps {
            let size = RingSize::new(cap);
            let mut offsets = vec![
                0,
                1,
                cap - 1,
                cap,
                cap.wrapping_add(1),
                u64::MAX,
                u64::MAX - 1,
                u64::MAX - cap,
            ];
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
