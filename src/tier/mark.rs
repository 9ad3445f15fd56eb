//! Which mode a region is used in: with the tier, or alone.
//!
//! Processes sharing one region (the pools of one FPM master, or every process of a named
//! region: a site's pools, its CLI, its cron) must all use the tier or none. A process without
//! `shmcache.redis` would read a near copy it never syncs, and write values Redis never had,
//! which the tiered processes would then serve as Redis' own. So tiered processes *mark* the
//! region: at every request start, and at every resync of a long request (`Tier::trusted`, at
//! least every `LEASE_SECONDS / 4`), they keep the coordination word `MARK` at the current time
//! (in seconds, written only when it changed). A process without the tier that finds a recent mark
//! stays out of the region for that request (every call misses, every write is refused, and it
//! says why); one that finds a mark older than the lease takes the region over: the tier is
//! gone (switched off everywhere, or idle that long), so it clears the epoch (a tiered process
//! coming back then empties the near copy before trusting it) and empties the region (the near
//! copy is of a Redis this process does not follow).
//!
//! The check is made at each request's start and before each write (`php::tier::on_for_write`):
//! a process whose request (a CLI script is one request) began before a tiered process marked
//! the region publishes nothing into it from then on.

use std::sync::atomic::Ordering;

use super::{word, EPOCH};
use crate::engine::Cache;

/// The coordination word holding the time (unix seconds) a tiered process last started a
/// request on the region; 0: no tiered process has, or one without the tier took it over.
pub const MARK: usize = 3;

/// How long after the last tiered request a process without the tier may take the region over.
pub const LEASE_SECONDS: u64 = 120;

/// A tiered process starts a request on `cache` (or syncs again in one) at `now`.
pub fn renew(cache: &Cache, now: u64) {
    let mark = word(cache, MARK);
    // One store a second at most: the word shares its cache line with the stream positions.
    if mark.load(Ordering::Relaxed) != now {
        // SeqCst: ordered before this request's sync loads the epoch (see `enter_alone`).
        mark.store(now, Ordering::SeqCst);
    }
}

/// Whether a tiered process has marked the region (and no process without the tier has taken it
/// over since): the cheap test a process without the tier makes before `enter_alone`.
pub fn is_marked(cache: &Cache) -> bool {
    word(cache, MARK).load(Ordering::Relaxed) != 0
}

/// What a process without the tier may do with a region.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Alone {
    /// No tiered process uses the region: use it.
    Free,
    /// The tier's last request was longer ago than the lease: the region was emptied and is
    /// this process's now.
    TakenOver { idle_seconds: u64 },
    /// A tiered process started a request `seconds_ago`: stay out.
    Tiered { seconds_ago: u64 },
}

/// A process without the tier starts a request on `cache` at `now`.
pub fn enter_alone(cache: &Cache, now: u64, lease_seconds: u64) -> Alone {
    let mark = word(cache, MARK);
    let seen = mark.load(Ordering::SeqCst);
    if seen == 0 {
        return Alone::Free;
    }
    // A clock that went backwards counts the same as one that went forwards.
    let age = now.abs_diff(seen);
    if age < lease_seconds {
        return Alone::Tiered { seconds_ago: age };
    }
    // The epoch goes first: a tiered process that marks after this point loads the epoch after
    // its mark (SeqCst both), finds 0 and empties the near copy before trusting it; one that
    // marked before makes the exchange below fail.
    word(cache, EPOCH).store(0, Ordering::SeqCst);
    if mark.compare_exchange(seen, 0, Ordering::SeqCst, Ordering::SeqCst).is_err() {
        return Alone::Tiered { seconds_ago: 0 };
    }
    cache.flush_all();
    Alone::TakenOver { idle_seconds: age }
}

/// Seconds since the Unix epoch (0 if the clock is before it).
pub fn unix_now() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{Config, Namespace, ValueKind};

    fn cache() -> Cache {
        Cache::create(&Config {
            keys_memory_size: 1 << 20,
            values_memory_size: 1 << 20,
            compress_threshold: 0,
        })
        .unwrap()
    }

    #[test]
    fn a_region_no_tiered_process_used_is_free() {
        let c = cache();
        assert_eq!(enter_alone(&c, 1_000, 120), Alone::Free);
    }

    #[test]
    fn a_recent_mark_keeps_a_process_without_the_tier_out_and_the_region_as_it_was() {
        let c = cache();
        let ns = Namespace::root();
        assert!(c.set(&ns, b"k", ValueKind(0), b"near", 0).unwrap());
        word(&c, EPOCH).store(77, Ordering::SeqCst);
        renew(&c, 1_000);
        assert_eq!(enter_alone(&c, 1_119, 120), Alone::Tiered { seconds_ago: 119 });
        // A clock set back an hour is not a lapsed lease.
        assert_eq!(enter_alone(&c, 1_000 - 119, 120), Alone::Tiered { seconds_ago: 119 });
        assert_eq!(word(&c, EPOCH).load(Ordering::SeqCst), 77);
        assert_eq!(word(&c, MARK).load(Ordering::SeqCst), 1_000);
        assert!(c.get(&ns, b"k", &mut Vec::new()).unwrap().is_some());
    }

    #[test]
    fn a_lapsed_mark_is_taken_over_the_region_emptied_and_the_epoch_cleared() {
        let c = cache();
        let ns = Namespace::root();
        assert!(c.set(&ns, b"k", ValueKind(0), b"near", 0).unwrap());
        word(&c, EPOCH).store(77, Ordering::SeqCst);
        renew(&c, 1_000);
        assert_eq!(enter_alone(&c, 1_120, 120), Alone::TakenOver { idle_seconds: 120 });
        assert_eq!(
            word(&c, EPOCH).load(Ordering::SeqCst),
            0,
            "a returning tiered process must not trust the copy"
        );
        assert_eq!(word(&c, MARK).load(Ordering::SeqCst), 0);
        assert!(
            c.get(&ns, b"k", &mut Vec::new()).unwrap().is_none(),
            "the near copy of a Redis nobody follows is gone"
        );
        // Then the region is this process's, and a later request finds it free.
        assert!(c.set(&ns, b"k", ValueKind(0), b"alone", 0).unwrap());
        assert_eq!(enter_alone(&c, 1_121, 120), Alone::Free);
        assert!(c.get(&ns, b"k", &mut Vec::new()).unwrap().is_some());
    }

    #[test]
    fn a_tiered_request_renews_the_mark_once_a_second() {
        let c = cache();
        renew(&c, 1_000);
        assert_eq!(word(&c, MARK).load(Ordering::SeqCst), 1_000);
        renew(&c, 1_500);
        assert_eq!(enter_alone(&c, 1_600, 120), Alone::Tiered { seconds_ago: 100 });
    }
}
