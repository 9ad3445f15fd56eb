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

/// A reservation of ring bytes (`reserve`).
pub(crate) struct Reservation {
    /// Virtual offset of the first reserved byte.
    pub(crate) offset: u64,
    /// This reservation started a new lap.
    pub(crate) new_lap: bool,
    /// Bytes left unused at the end of the previous lap (an entry never wraps): the tail moved
    /// past them without anything written there.
    pub(crate) skipped: u64,
}

/// Reserves `len` bytes at the tail.
pub(crate) fn reserve(tail: &AtomicU64, size: RingSize, len: u64) -> Reservation {
    let cap = size.cap;
    debug_assert!(len <= cap && len.is_multiple_of(8));
    let mut t = tail.load(Ordering::Relaxed);
    loop {
        let (lap, pos) = size.split(t);
        let start = if pos + len > cap { t + (cap - pos) } else { t };
        let end = start + len;
        match tail.compare_exchange_weak(t, end, Ordering::AcqRel, Ordering::Relaxed) {
            Ok(_) => {
                return Reservation {
                    offset: start,
                    new_lap: size.split(end).0 != lap,
                    skipped: start - t,
                }
            }
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
    /// `copy_value_in` writes values at least this long with non-temporal stores (usize::MAX:
    /// never).
    stream_from: usize,
}

/// A position in the ring from which words are read (`RingView::words_at`).
#[derive(Clone, Copy)]
pub(crate) struct RingWords {
    at: *const u8,
    /// Ring bytes from `at` to the ring's end (for debug assertions).
    room: u64,
}

impl RingWords {
    /// The 8 bytes `offset` bytes past the cursor's position, as `RingView::read_u64` reads
    /// them.
    ///
    /// # Safety
    /// `offset + 8` bytes past the position lie within the ring.
    #[inline(always)]
    pub unsafe fn read_u64(&self, offset: usize) -> u64 {
        debug_assert!(offset as u64 + 8 <= self.room);
        // SAFETY: the caller's contract; see racy_word.
        unsafe { racy_word(self.at.add(offset)) }
    }
}

// SAFETY: the view only names shared memory; every access through it is atomic (see above).
unsafe impl Send for RingView {}
// SAFETY: as for Send.
unsafe impl Sync for RingView {}

impl RingView {
    /// # Safety
    /// `base` must point at `cap` bytes that stay mapped as long as the view is used.
    pub unsafe fn new(base: *mut u8, cap: u64) -> RingView {
        RingView { base, cap, stream_from: stream_threshold(cap) }
    }

    /// The view with long values streamed from `len` bytes on (at least 128), whatever the
    /// ring's size, for tests of `copy_value_in`'s streaming path on a small ring.
    #[cfg(all(test, target_arch = "x86_64"))]
    fn streaming_from(self, len: usize) -> RingView {
        assert!(len >= 128);
        RingView { stream_from: len, ..self }
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

    /// `copy_out` of a value longer than `checksum::SHORT_MAX`, returning the `value_hash` of
    /// the bytes it stored to `dst`: each stripe is hashed from the registers that carried it,
    /// so the value is read once (a copy and then a hash of the copy read it twice: half the
    /// time of a 50 KB get). None without AVX2, and then nothing is copied.
    ///
    /// A byte the last stripe reads again may have changed in between: `dst` then holds the
    /// second reading and the hash covers both, so the checksum fails, as it does for any copy
    /// that raced a writer.
    ///
    /// # Safety
    /// As `copy_out`, with `len > checksum::SHORT_MAX`.
    #[cfg(target_arch = "x86_64")]
    #[inline]
    pub unsafe fn copy_out_hashed(&self, pos: u64, dst: *mut u8, len: usize) -> Option<u64> {
        debug_assert!(pos + len as u64 <= self.cap);
        // SAFETY: the stripes asked for lie within [pos, pos + len) of the ring and of `dst`
        // (the caller's contract, and long_hash's on `at`).
        unsafe {
            let mut source = CopyingStripes { src: self.base.add(pos as usize), dst };
            crate::engine::checksum::long_hash_copying(len, &mut source)
        }
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

    /// The words near `pos`, for a read of several of them (`RingWords::read_u64`): the ring's
    /// address of `pos` is computed once. (Words read one by one with `read_u64` while the
    /// caller stores each to memory the compiler cannot tell apart from the view reloaded the
    /// view's base and re-added the position for every word: a get of a 42-byte string
    /// 769 -> 754 instructions, a multi-get 635 -> 619 a key, callgrind.)
    ///
    /// # Safety
    /// `pos <= cap`; the cursor's own contract bounds every read.
    #[inline(always)]
    pub unsafe fn words_at(&self, pos: u64) -> RingWords {
        debug_assert!(pos <= self.cap);
        // SAFETY: pos <= cap, so the address lies within (or one past) the mapping.
        RingWords { at: unsafe { self.base.add(pos as usize) }, room: self.cap - pos }
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

    /// `copy_in` of an entry's value, which may be long: from `stream_from` bytes on it is
    /// written with non-temporal stores (`racy_copy_streaming`). Only values take the test;
    /// namespaces and keys are short.
    ///
    /// # Safety
    /// As `copy_in`.
    #[inline(always)]
    pub unsafe fn copy_value_in(&self, pos: u64, src: &[u8]) {
        debug_assert!(pos + src.len() as u64 <= self.cap);
        #[cfg(target_arch = "x86_64")]
        if src.len() >= self.stream_from {
            // SAFETY: as copy_in; stream_from is at least 128 (STREAM_MIN, or a test's).
            return unsafe {
                racy_copy_streaming(src.as_ptr(), self.base.add(pos as usize), src.len())
            };
        }
        // SAFETY: the caller's contract (copy_in's).
        unsafe { self.copy_in(pos, src) }
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

/// Values at least this long are written into the ring with non-temporal stores
/// (`racy_copy_streaming`) where the ring is at least half the CPU's last-level cache. Half the
/// L1 data cache of the CPUs measured: shorter values are left to ordinary stores, as they push
/// out little. Not tuned; what 50 KB values gained is in docs/benchmarks.md.
const STREAM_MIN: usize = 16384;

/// The last-level cache assumed where the system does not say (the L3 of the CPUs measured).
const DEFAULT_LAST_LEVEL_CACHE: u64 = 32 << 20;

/// From which length `copy_value_in` streams into a ring of `cap` bytes: STREAM_MIN where the ring
/// is at least half the last-level cache, which it shares with the key table, PHP and every
/// other process, so that a long value lands on lines the caches no longer hold; never in a
/// smaller ring, whose lines ordinary stores find there. Measured with 50 KB values and a
/// 32 MB L3 (docs/benchmarks.md): with an 11 MB ring a set and the get after it were faster
/// with ordinary stores, with a 16 MB one sets and deletes were faster streamed.
fn stream_threshold(cap: u64) -> usize {
    if cfg!(target_arch = "x86_64") && cap >= last_level_cache_bytes() / 2 {
        STREAM_MIN
    } else {
        usize::MAX
    }
}

/// The size of the largest CPU cache, as Linux's sysfs gives it for cpu0 (`size` of the
/// highest `level` under `cache/index*`, such as "32768K"); DEFAULT_LAST_LEVEL_CACHE where it
/// cannot be read. (glibc's `sysconf(_SC_LEVEL3_CACHE_SIZE)` was seen giving ten times the
/// size sysfs gives in a KVM guest, so it is not used.)
fn last_level_cache_bytes() -> u64 {
    let read = |index: u32, file: &str| {
        std::fs::read_to_string(format!("/sys/devices/system/cpu/cpu0/cache/index{index}/{file}"))
            .ok()
    };
    (0..8)
        .map_while(|i| {
            let level: u32 = read(i, "level")?.trim().parse().ok()?;
            Some((level, parse_cache_size(&read(i, "size")?)?))
        })
        .max()
        .map_or(DEFAULT_LAST_LEVEL_CACHE, |(_, bytes)| bytes)
}

/// "32768K", "1M", "512" (bytes) as sysfs writes a cache's size.
fn parse_cache_size(text: &str) -> Option<u64> {
    let text = text.trim();
    let (digits, unit) = match text.as_bytes().last()? {
        b'K' => (&text[..text.len() - 1], 1 << 10),
        b'M' => (&text[..text.len() - 1], 1 << 20),
        b'G' => (&text[..text.len() - 1], 1 << 30),
        _ => (text, 1),
    };
    digits.parse::<u64>().ok()?.checked_mul(unit)
}

/// `racy_copy` into the ring of a long value. The ring goes round the whole value memory, so a
/// long value lands on lines no cache holds: ordinary stores first load each line from memory
/// and then push out of the caches what was there (the key table, the entries being read, the
/// heads just written), only for the value to be read, if ever, long after it has been pushed
/// out itself. Non-temporal stores write whole lines straight to memory. The partial lines at
/// either end (the first is shared with the entry's head) take ordinary stores.
///
/// Non-temporal stores are the one kind of x86 store that may pass an earlier store, so two
/// orderings are kept by hand. Before: none can pass the locked compare-and-swap that reserved
/// these bytes (no write passes a locked instruction), so a reader that sees one of them sees
/// the moved tail, as for ordinary stores. After: the `sfence` makes every byte visible before
/// any later store, such as the compare-and-swap that publishes the entry.
///
/// # Safety
/// As `racy_copy`, with `len >= 128`.
#[cfg(target_arch = "x86_64")]
#[inline(never)]
unsafe fn racy_copy_streaming(src: *const u8, dst: *mut u8, len: usize) {
    debug_assert!(len >= 128);
    let head = (64 - (dst as usize & 63)) & 63;
    let body = (len - head) & !63;
    // SAFETY: the caller's contract: [0, head), [head, head + body) and [head + body, len) lie
    // within both ranges; dst + head is 64-byte aligned, as movntdq needs (16 would do), and
    // body is a non-zero multiple of 64 (len >= 128 > head + 63).
    unsafe {
        racy_copy(src, dst, head);
        std::arch::asm!(
            "2:",
            "movdqu xmm0, [{src}]",
            "movdqu xmm1, [{src} + 16]",
            "movdqu xmm2, [{src} + 32]",
            "movdqu xmm3, [{src} + 48]",
            "movntdq [{dst}], xmm0",
            "movntdq [{dst} + 16], xmm1",
            "movntdq [{dst} + 32], xmm2",
            "movntdq [{dst} + 48], xmm3",
            "add {src}, 64",
            "add {dst}, 64",
            "sub {n}, 64",
            "jnz 2b",
            "sfence",
            src = inout(reg) src.add(head) => _,
            dst = inout(reg) dst.add(head) => _,
            n = inout(reg) body => _,
            out("xmm0") _,
            out("xmm1") _,
            out("xmm2") _,
            out("xmm3") _,
            options(nostack),
        );
        racy_copy(src.add(head + body), dst.add(head + body), len - head - body);
    }
}

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

/// How far ahead of the stripe it hashes `CopyingStripes` asks for the value's next lines: a
/// page, as the CPU's own prefetcher does not cross into the next page. A 50 KB get from memory
/// (the micro benchmark's 64 MB of them): 179–227k gets/s without, 231–265k with it, 1 KB ahead
/// no better than without (docs/benchmarks.md); from the CPU's caches no change.
#[cfg(target_arch = "x86_64")]
const PREFETCH_AHEAD: usize = 4096;

/// The stripes of a value in the ring, each stored to the same place in `dst` as it is handed
/// to the hash (`RingView::copy_out_hashed`).
#[cfg(target_arch = "x86_64")]
struct CopyingStripes {
    src: *const u8,
    dst: *mut u8,
}

#[cfg(target_arch = "x86_64")]
impl crate::engine::checksum::avx2::StripeSource for CopyingStripes {
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn stripe(&mut self, at: usize) -> [std::arch::x86_64::__m256i; 2] {
        use std::arch::x86_64::*;
        let (a, b): (__m256i, __m256i);
        _mm_prefetch::<_MM_HINT_T0>(self.src.wrapping_add(at + PREFETCH_AHEAD).cast::<i8>());
        // SAFETY: the trait's contract puts [at, at + 64) inside the value, which lies in the
        // ring and in `dst` (copy_out_hashed's contract). The loads are one assembly block, as
        // every read of ring bytes (see racy_copy): a Relaxed atomic load of each byte. Not
        // `pure`: two loads of the same bytes may differ, and both are needed.
        unsafe {
            std::arch::asm!(
                "vmovdqu {a}, ymmword ptr [{p}]",
                "vmovdqu {b}, ymmword ptr [{p} + 32]",
                p = in(reg) self.src.add(at),
                a = lateout(ymm_reg) a,
                b = lateout(ymm_reg) b,
                options(nostack, preserves_flags, readonly),
            );
            _mm256_storeu_si256(self.dst.add(at).cast::<__m256i>(), a);
            _mm256_storeu_si256(self.dst.add(at + 32).cast::<__m256i>(), b);
        }
        [a, b]
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

    /// The copy that hashes as it goes gives exactly the bytes, touches nothing outside them,
    /// and returns the value hash of what it stored: at every length around the hash's stripe
    /// (64) and block (1024) boundaries and beyond, at several alignments of both sides.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn the_hashing_copy_copies_exactly_and_returns_the_value_hash() {
        use crate::engine::checksum::{value_hash, SHORT_MAX};
        if !std::arch::is_x86_feature_detected!("avx2") {
            return;
        }
        const GUARD: usize = 64;
        let lengths = (SHORT_MAX + 1..=2200).chain((2201..70_000).step_by(997));
        let mut ring = vec![0u8; 70_000 + 2 * GUARD];
        for len in lengths {
            for (align, out_align) in [(0usize, 0usize), (1, 7), (13, 32), (8, 1)] {
                let pos = GUARD + align;
                for (i, b) in ring.iter_mut().enumerate() {
                    *b = ((i * 131 + len) % 251) as u8 ^ 0x5a;
                }
                // SAFETY: `ring` outlives the view.
                let view = unsafe { RingView::new(ring.as_mut_ptr(), ring.len() as u64) };
                let mut out = vec![0xa5u8; len + 2 * GUARD];
                // SAFETY: pos + len <= cap; `out` has room for GUARD + out_align + len bytes.
                let hash = unsafe {
                    view.copy_out_hashed(pos as u64, out.as_mut_ptr().add(GUARD + out_align), len)
                };
                let start = GUARD + out_align;
                assert_eq!(&out[start..start + len], &ring[pos..pos + len], "{len} bytes");
                assert!(
                    out[..start].iter().chain(&out[start + len..]).all(|&b| b == 0xa5),
                    "wrote outside {len} bytes"
                );
                assert_eq!(hash, Some(value_hash(&ring[pos..pos + len])), "hash of {len} bytes");
            }
        }
    }

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
        routines.push(("streaming", super::racy_copy_streaming, 128));
        for (name, copy, min) in routines {
            for len in (min..=1100)
                .chain([4095, 4096, 4097, 8191, 8192, 8193, 16_383, 16_384, 16_385, 20_000])
            {
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

    /// The streaming copy splits its destination at line boundaries: at every one of the 64
    /// places in a line where a destination can start, the bytes arrive exactly, and none
    /// outside the range is touched.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn the_streaming_copy_is_exact_wherever_its_destination_starts() {
        for len in [128usize, 129, 191, 192, 255, 16_384, 20_001] {
            let src: Vec<u8> = (0..len).map(|i| (i * 37 % 251) as u8 ^ 0x6b).collect();
            let mut buf = vec![0u8; len + 3 * 64];
            let base = (64 - (buf.as_ptr() as usize & 63)) & 63;
            for start in 0..64 {
                buf.fill(0x5c);
                let at = base + 64 + start;
                // SAFETY: buf holds at + len + 64 bytes at least; src len bytes; distinct.
                unsafe { super::racy_copy_streaming(src.as_ptr(), buf.as_mut_ptr().add(at), len) };
                assert_eq!(&buf[at..at + len], &src[..], "{len} bytes at line offset {start}");
                assert!(
                    buf[..at].iter().chain(&buf[at + len..]).all(|&b| b == 0x5c),
                    "{len} bytes at line offset {start}: wrote outside"
                );
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
            .chain([4095, 4096, 4097, 8191, 8192, 8193, 16_383, 16_384, 16_385, 65_536]);
        let mut ring = vec![0u8; 65_536 + 2 * GUARD + 16];
        // The view as a ring this small has it (ordinary stores), and on x86_64 also with
        // every value of 128 bytes or more streamed (`racy_copy_streaming`).
        let streamed: &[Option<usize>] =
            if cfg!(target_arch = "x86_64") { &[None, Some(128)] } else { &[None] };
        for (len, &stream) in lengths.flat_map(|len| streamed.iter().map(move |s| (len, s))) {
            for align in [0usize, 1, 7, 8, 13] {
                let pos = (GUARD + align) as u64;
                let src = pattern(len, align);
                ring.fill(0xc3);
                // SAFETY: `ring` outlives the view and holds pos + len + GUARD bytes.
                let view = unsafe { RingView::new(ring.as_mut_ptr(), ring.len() as u64) };
                let _ = stream;
                #[cfg(target_arch = "x86_64")]
                let view = match stream {
                    Some(from) => view.streaming_from(from),
                    None => view,
                };
                // SAFETY: pos + len <= cap; nobody else uses `ring` or `out`.
                unsafe { view.copy_value_in(pos, &src) };
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
    fn cache_sizes_parse_as_sysfs_writes_them() {
        assert_eq!(super::parse_cache_size("32768K\n"), Some(32 << 20));
        assert_eq!(super::parse_cache_size("1M"), Some(1 << 20));
        assert_eq!(super::parse_cache_size("2G"), Some(2 << 30));
        assert_eq!(super::parse_cache_size("512"), Some(512));
        assert_eq!(super::parse_cache_size(""), None);
        assert_eq!(super::parse_cache_size("K"), None);
        assert_eq!(super::parse_cache_size("12X"), None);
    }

    /// A ring smaller than half the last-level cache is never streamed into; from half of it
    /// on values from STREAM_MIN on are (x86_64 only).
    #[test]
    fn only_rings_of_half_the_last_level_cache_or_more_are_streamed_into() {
        let llc = super::last_level_cache_bytes();
        assert!(llc >= 1 << 16, "last-level cache of {llc} bytes");
        assert_eq!(super::stream_threshold(llc / 2 - 1), usize::MAX);
        assert_eq!(super::stream_threshold(1 << 16), usize::MAX);
        let expect = if cfg!(target_arch = "x86_64") { super::STREAM_MIN } else { usize::MAX };
        assert_eq!(super::stream_threshold(llc / 2), expect);
        assert_eq!(super::stream_threshold(1 << 40), expect);
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
