//! The clocks the tier reads.

use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::time::Duration;

/// Test hook (`TierConfig::test_clock_ahead_ms`): this process reads the wall clock this many
/// milliseconds ahead of the machine's until CLOCK_MONOTONIC_COARSE reaches `TEST_STEP_AT_MS`,
/// then the machine's: a step back, seen by the tier's readings of the wall clock and by the
/// base the PHP side's near reads compare theirs with (not by those readings themselves, which
/// stay free of it on the near-hit path, nor by the engine's expiry checks, which then stand
/// for the true time). 0: off.
static TEST_AHEAD_MS: AtomicI64 = AtomicI64::new(0);
static TEST_STEP_AT_MS: AtomicU64 = AtomicU64::new(0);

/// Arms the test hook above: `ahead_ms` ahead from now until `after` from now.
pub fn arm_test_clock_step(ahead_ms: u64, after: Duration) {
    let at = read_ms(libc::CLOCK_MONOTONIC_COARSE).saturating_add(after.as_millis() as u64);
    TEST_STEP_AT_MS.store(at, Ordering::Relaxed);
    TEST_AHEAD_MS.store(i64::try_from(ahead_ms).unwrap_or(i64::MAX), Ordering::Relaxed);
}

/// What the test hook adds to the wall clock now (0 unless it is armed and not yet stepped).
#[inline]
pub fn test_shift_ms() -> i64 {
    let ahead = TEST_AHEAD_MS.load(Ordering::Relaxed);
    if ahead != 0 && read_ms(libc::CLOCK_MONOTONIC_COARSE) < TEST_STEP_AT_MS.load(Ordering::Relaxed)
    {
        ahead
    } else {
        0
    }
}

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
