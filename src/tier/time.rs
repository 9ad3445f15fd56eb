//! The clocks the tier reads.

use std::time::Duration;

/// The coarse monotonic clock (the kernel's tick, a few ms: enough for `resync_interval`, and
/// read without a system call in a few nanoseconds, so every tiered call may ask it).
pub fn coarse_now() -> Duration {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a valid, writable timespec; CLOCK_MONOTONIC_COARSE exists on Linux.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC_COARSE, &mut ts) };
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// The wall clock: Unix milliseconds (0 if the clock is before the epoch).
pub fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// Seconds since the Unix epoch (0 if the clock is before it).
pub fn unix_now() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

/// CLOCK_BOOTTIME in milliseconds: monotonic, counting suspended time, never stepped.
pub(super) fn boottime_ms() -> u64 {
    read_ms(libc::CLOCK_BOOTTIME)
}

/// The wall clock minus the coarse monotonic clock, in milliseconds: the PHP side's cheap,
/// per-process test that the wall clock has not gone back since the tier last checked it (a
/// suspend moves it forward, which is safe). Two vDSO reads of the kernel's tick.
pub fn coarse_offset_ms() -> i64 {
    read_ms(libc::CLOCK_REALTIME_COARSE) as i64 - read_ms(libc::CLOCK_MONOTONIC_COARSE) as i64
}

fn read_ms(clock: libc::clockid_t) -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a valid, writable timespec, and the callers pass clocks Linux always has
    // (REALTIME/MONOTONIC and their coarse forms, BOOTTIME); on failure it stays zeroed.
    unsafe { libc::clock_gettime(clock, &mut ts) };
    (ts.tv_sec as u64).saturating_mul(1000).saturating_add(ts.tv_nsec as u64 / 1_000_000)
}
