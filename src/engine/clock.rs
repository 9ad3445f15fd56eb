//! The wall clock in Unix seconds, as expiries and store times use it, read cheaply.
//!
//! PHP's `time()` reads the precise clock (gettimeofday), and so must the cache: a value stored
//! with a TTL of 1 s while `time()` says T has to be there while `time()` says T. But on this
//! kind of machine a precise read costs 22 ns (the CPU's time stamp counter, read in a virtual
//! machine), while the kernel's tick clock (`CLOCK_REALTIME_COARSE`: the time at the last
//! tick) costs 5 ns — and a get of a small value is about 60 ns. The tick clock is never ahead
//! of the precise one and normally behind it by less than a tick (1–10 ms), so it tells the
//! precise second whenever it is not in the last moments of a second:
//!
//! - `now_secs` (writes: expiry, store time) reads the tick clock and takes its second unless
//!   that is within `PRECISE_NEAR_END` of its end, where it reads the precise clock. (The
//!   tick clock behind by more than that — a virtual machine paused, its timekeeping not yet
//!   caught up — gives a second one too low: the entry dies up to a second early.)
//! - `has_passed` (reads: is an entry's expiry past?) needs the precise clock only for an
//!   expiry one second after the tick clock's: at or before it, the precise clock is past it
//!   too; two or more seconds after, the precise clock (less than a second ahead) is not.
//!
//! Measured against the precise clock alone (docs/benchmarks.md, "Figures behind code
//! comments"; medians of 5 alternating rounds): gets of values stored with a TTL 14.7 → 18.3 M/s,
//! sets with a TTL 7.3 → 10.1 M/s, an `apcu_delete` and `apcu_add` (store times) 5.6 → 6.5 M
//! pairs/s.

/// How close to the end of its second the tick clock must be for `now_secs` to read the
/// precise clock instead: five times the longest tick (10 ms at 100 Hz), the same margin the
/// tier allows a wall clock that stepped back (`tier::positions::TOLERANCE_MS`).
const PRECISE_NEAR_END: Nanos = 50_000_000;

type Nanos = u32;

fn read(clock: libc::clockid_t) -> (u64, Nanos) {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a valid, writable timespec, and Linux always has CLOCK_REALTIME and
    // CLOCK_REALTIME_COARSE; on failure `ts` stays zeroed (0 seconds, as before 1970).
    unsafe { libc::clock_gettime(clock, &mut ts) };
    (u64::try_from(ts.tv_sec).unwrap_or(0), ts.tv_nsec as Nanos)
}

/// Unix seconds on the precise clock (0 before 1970), what PHP's `time()` returns.
#[inline(never)]
fn precise_secs() -> u64 {
    read(libc::CLOCK_REALTIME).0
}

/// Unix seconds as PHP's `time()` returns them (see the module doc for the one exception).
#[inline]
pub fn now_secs() -> u64 {
    let (secs, nanos) = read(libc::CLOCK_REALTIME_COARSE);
    if nanos < 1_000_000_000 - PRECISE_NEAR_END {
        secs
    } else {
        precise_secs()
    }
}

/// Whether Unix second `t` has come on the precise clock (`t <= time()`). Out of line: only
/// entries with an expiry ask, and inlined into every read it cost the multi-get instructions.
#[inline(never)]
pub(crate) fn has_passed(t: u64) -> bool {
    let (coarse, _) = read(libc::CLOCK_REALTIME_COARSE);
    if t <= coarse {
        true
    } else if t > coarse + 1 {
        false
    } else {
        t <= precise_secs()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn far_expiries_need_no_precise_read_and_agree_with_it() {
        let now = precise_secs();
        assert!(has_passed(0) && has_passed(now - 5) && has_passed(now));
        assert!(!has_passed(now + 5) && !has_passed(u64::MAX));
        // The second right after now: not passed until the precise clock gets there.
        let next = precise_secs() + 1;
        assert!(!has_passed(next) || precise_secs() >= next);
    }

    #[test]
    fn now_is_the_precise_second_across_second_boundaries() {
        let nanos_of = |(secs, nanos): (u64, Nanos)| secs * 1_000_000_000 + u64::from(nanos);
        // 1.2 s of reads crosses at least one second boundary. Each read whose tick clock was
        // less than PRECISE_NEAR_END behind the precise one (nearly all: the others, a thread
        // descheduled between the reads or a tick clock held up, are only counted) must lie
        // between the precise seconds read around it.
        let start = std::time::Instant::now();
        let (mut checked, mut skipped, mut boundaries) = (0u64, 0u64, 0u64);
        let mut last = precise_secs();
        while start.elapsed() < std::time::Duration::from_millis(1200) {
            let before = read(libc::CLOCK_REALTIME);
            let coarse = read(libc::CLOCK_REALTIME_COARSE);
            let now = now_secs();
            let after = read(libc::CLOCK_REALTIME);
            if nanos_of(after) - nanos_of(coarse).min(nanos_of(after)) >= PRECISE_NEAR_END.into() {
                skipped += 1;
                continue;
            }
            checked += 1;
            boundaries += u64::from(after.0 != last);
            last = after.0;
            assert!(
                (before.0..=after.0).contains(&now),
                "now_secs {now} outside the precise reads {before:?} .. {after:?} (tick {coarse:?})"
            );
        }
        assert!(checked > 10_000 && checked > 10 * skipped, "{checked} checked, {skipped} not");
        assert!(boundaries >= 1, "no second boundary crossed");
    }
}
