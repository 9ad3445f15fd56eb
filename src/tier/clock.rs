//! Near expiry that a step of the wall clock cannot stretch (issue 31, item 4).
//!
//! The API's TTLs are wall-clock seconds, and the engine keeps an entry's expiry as a Unix
//! second, checked against the wall clock (the layout every region shares, tiered or not). A
//! near copy of a value with a TTL gets the absolute time Redis' copy dies at, counted from
//! before the call (`near_expiry`). If this machine's wall clock then steps back (a manual
//! correction, a leap second, a VM resumed and resynchronized), the copy would live that much
//! longer than Redis' copy. So near lifetimes count on CLOCK_BOOTTIME, which never steps and,
//! like a region, is one per machine: the region's coordination word `CLOCK` keeps the offset
//! between the wall clock and CLOCK_BOOTTIME that its near expiries were computed with. While
//! the offset holds (within `TOLERANCE_MS`), a wall-clock expiry is a CLOCK_BOOTTIME one. A
//! tiered process that finds the wall clock gone back against it (`check`, at every call that
//! reaches the tier) empties the near copy, once per step for the whole region; a step
//! forward only moves the word (copies then die early, which is safe). A fill re-checks the
//! word before it publishes, so one computed under the old offset never lands after the reset.
//! Non-tiered use of the engine is untouched: its TTLs are wall-clock by contract.

use std::sync::atomic::Ordering;

use super::word;
use crate::engine::Cache;

/// The coordination word holding the offset (biased, 0: none yet).
pub const CLOCK: usize = 4;

/// A change of the offset smaller than this is not told apart from reading jitter (two clock
/// reads, a tick of the coarse clocks); near expiries are cut short by as much, so an unseen
/// step back of this size still cannot make a copy outlive Redis'.
pub const TOLERANCE_MS: u64 = 50;

/// Keeps any plausible offset (positive: the wall clock is far past boot) nonzero as a word.
const BIAS: i64 = 1 << 62;

/// What `check` found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Checked {
    /// The region's word now: a fill made under it re-checks that it still holds.
    pub word: u64,
    /// The wall clock went back since the near copy's expiries were computed: the caller (one
    /// per step) must empty the near copy.
    pub stepped_back: bool,
}

/// Compares the wall clock (`wall_ms`, Unix milliseconds as the caller reads it) with
/// CLOCK_BOOTTIME against the region's word, and brings the word up to date.
pub fn check(cache: &Cache, wall_ms: u64) -> Checked {
    let now = encode(wall_ms as i64 - boottime_ms() as i64);
    let cell = word(cache, CLOCK);
    let mut seen = cell.load(Ordering::SeqCst);
    loop {
        if seen != 0 && now.abs_diff(seen) <= TOLERANCE_MS {
            return Checked { word: seen, stepped_back: false };
        }
        // SeqCst: ordered before the caller's flush (see `super::Tier::fill`'s re-check).
        match cell.compare_exchange(seen, now, Ordering::SeqCst, Ordering::SeqCst) {
            Ok(_) => return Checked { word: now, stepped_back: seen != 0 && now < seen },
            // Another process moved it: compare again with what it wrote.
            Err(current) => seen = current,
        }
    }
}

/// Whether the region's word is still `word` (a fill's re-check).
pub fn holds(cache: &Cache, word_seen: u64) -> bool {
    word(cache, CLOCK).load(Ordering::SeqCst) == word_seen
}

fn encode(offset_ms: i64) -> u64 {
    offset_ms.saturating_add(BIAS) as u64
}

/// CLOCK_BOOTTIME in milliseconds: monotonic, counting suspended time, never stepped.
fn boottime_ms() -> u64 {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Config;

    fn cache() -> Cache {
        Cache::create(&Config {
            keys_memory_size: 1 << 16,
            values_memory_size: 256 << 10,
            compress_threshold: 0,
        })
        .unwrap()
    }

    #[test]
    fn a_step_back_is_reported_once_and_a_step_forward_never() {
        let c = cache();
        let wall = super::super::now_ms();
        let first = check(&c, wall);
        assert!(!first.stepped_back, "a new region has nothing to empty");
        assert_eq!(
            check(&c, wall + 10),
            Checked { word: first.word, stepped_back: false },
            "jitter"
        );
        let back = check(&c, wall - 60_000);
        assert!(back.stepped_back && back.word != first.word);
        assert!(!check(&c, wall - 60_000).stepped_back, "the same step is reported once");
        assert!(!holds(&c, first.word), "a fill made before the step must not publish");
        assert!(
            !check(&c, wall + 60_000).stepped_back,
            "a step forward only makes copies die early"
        );
    }
}
