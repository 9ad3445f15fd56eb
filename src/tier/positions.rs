//! The region's coordination words, every one of them, and both halves of each pairing: the
//! claim (`raise` of `CLAIMED` and `fill_is_stale`), the mark (`renew_mark` and `enter_alone`),
//! the clock (`check_clock_word` and `clock_word_holds`). What each word means: `super`'s doc.

use std::sync::atomic::{AtomicU64, Ordering};

use super::time::boottime_ms;
use super::wire::is_exact;
use crate::engine::{Cache, COORDINATION_WORDS};

// Every coordination word of the region (`Cache::coordination_words`), here and nowhere else.
// Neither a flush nor the ring's recycling touches them; zero in a new region.

/// The highest stream position an applier has begun to apply (raised before its deletes).
pub(super) const CLAIMED: usize = 0;
/// The highest stream position whose invalidations are all applied (raised after the deletes).
pub(super) const APPLIED: usize = 1;
/// A hash of the epoch of the Redis the positions belong to (0: none yet).
pub(super) const EPOCH: usize = 2;
/// The time (unix seconds) a tiered process last started a request on the region; 0: no tiered
/// process has, or one without the tier took it over.
pub(super) const MARK: usize = 3;
/// The offset between the wall clock and CLOCK_BOOTTIME the near copy's expiries were computed
/// with (biased, 0: none yet).
pub(super) const CLOCK: usize = 4;
/// The highest stream position a value in the near copy may come from (a fill's, a local
/// write's), raised before the value is inserted: a sync checks that its entry is still in the
/// stream, or Redis lost writes this server has seen (restarted from an older snapshot, an AOF
/// fsynced every second, a failover to a replica that lagged) and the near copy starts over.
pub(super) const SEEN: usize = 5;
// The region's layout has room for exactly these (the engine keeps the count with the layout).
const _: () = assert!(SEEN + 1 == COORDINATION_WORDS);

pub(super) fn word(cache: &Cache, which: usize) -> &AtomicU64 {
    &cache.coordination_words()[which]
}

/// Raises a position to at least `to`. A read-modify-write even when it is already higher, so
/// that Dekker's pairing with `fill` holds by the language's rules, not only the hardware's.
pub(super) fn raise(cache: &Cache, which: usize, to: u64) {
    word(cache, which).fetch_max(to, Ordering::SeqCst);
}

/// True when an invalidation newer than `q` may have been applied. A `q` that is not exact
/// (`is_exact`) stands for several entries, any of which an applier may have claimed.
pub(super) fn fill_is_stale(cache: &Cache, q: u64) -> bool {
    let claimed = word(cache, CLAIMED).load(Ordering::SeqCst);
    if is_exact(q) {
        claimed > q
    } else {
        claimed >= q
    }
}

// Which mode a region is used in: with the tier, or alone.
//
// Processes sharing one region (the pools of one FPM master, or every process of a named
// region: a site's pools, its CLI, its cron) must all use the tier or none. A process without
// `shmcache.redis` would read a near copy it never syncs, and write values Redis never had,
// which the tiered processes would then serve as Redis' own. So tiered processes *mark* the
// region: at every request start, and at every resync of a long request (`Tier::trusted`, at
// least every `LEASE_SECONDS / 4`), they keep the coordination word `MARK` at the current time
// (in seconds, written only when it changed). A process without the tier that finds a recent mark
// stays out of the region for that request (every call misses, every write is refused, and it
// says why); one that finds a mark older than the lease takes the region over: the tier is
// gone (switched off everywhere, or idle that long), so it clears the epoch (a tiered process
// coming back then empties the near copy before trusting it) and empties the near copy (of a
// Redis this process does not follow; the local namespaces' entries, the `apcu_*` functions',
// stay, as they do at every reset).
//
// The check is made at each request's start and before each write (`php::tier::on_for_write`):
// a process whose request (a CLI script is one request) began before a tiered process marked
// the region publishes nothing into it from then on.

/// How long after the last tiered request a process without the tier may take the region over.
pub const LEASE_SECONDS: u64 = 120;

/// A tiered process starts a request on `cache` (or syncs again in one) at `now`.
pub fn renew_mark(cache: &Cache, now: u64) {
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
    cache.flush_all_but_local();
    Alone::TakenOver { idle_seconds: age }
}

/// A process without the tier wrote into the region after a tiered process marked it (a request
/// of another pool of the same FPM master that began before the mark): the tier's positions no
/// longer describe the region. Every tiered process's next sync finds no epoch and empties the
/// near copy before trusting it (as after `enter_alone`'s takeover; a fill in flight re-checks
/// the epoch and withdraws).
pub fn disown(cache: &Cache) {
    word(cache, EPOCH).store(0, Ordering::SeqCst);
}

// Near expiry that a step of the wall clock cannot stretch (issue 31, item 4).
//
// The API's TTLs are wall-clock seconds, and the engine keeps an entry's expiry as a Unix
// second, checked against the wall clock (the layout every region shares, tiered or not). A
// near copy of a value with a TTL gets the absolute time Redis' copy dies at, counted from
// before the call (`near_expiry`). If this machine's wall clock then steps back (a manual
// correction, a leap second, a VM resumed and resynchronized), the copy would live that much
// longer than Redis' copy. So near lifetimes count on CLOCK_BOOTTIME, which never steps and,
// like a region, is one per machine: the region's coordination word `CLOCK` keeps the offset
// between the wall clock and CLOCK_BOOTTIME that its near expiries were computed with. While
// the offset holds (within `TOLERANCE_MS`), a wall-clock expiry is a CLOCK_BOOTTIME one. A
// tiered process that finds the wall clock gone back against it (`check_clock_word`, at every call that
// reaches the tier) empties the near copy, once per step for the whole region; a step
// forward only moves the word (copies then die early, which is safe). A fill re-checks the
// word before it publishes, so one computed under the old offset never lands after the reset.
// Non-tiered use of the engine is untouched: its TTLs are wall-clock by contract.

/// A change of the offset smaller than this is not told apart from reading jitter (two clock
/// reads, a tick of the coarse clocks); near expiries are cut short by as much, so an unseen
/// step back of this size still cannot make a copy outlive Redis'.
pub const TOLERANCE_MS: u64 = 50;

/// Keeps any plausible offset (positive: the wall clock is far past boot) nonzero as a word.
const BIAS: i64 = 1 << 62;

/// What `check_clock_word` found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Checked {
    /// The region's word now: a fill made under it re-checks that it still holds.
    pub word: u64,
    /// The wall clock went back since the near copy's expiries were computed: the caller (one
    /// per step) must empty the near copy.
    pub stepped_back: bool,
}

/// Compares the wall clock (`wall_ms`, Unix milliseconds as the caller reads it) with
/// CLOCK_BOOTTIME against the region's word, and brings the word up to date.
pub(super) fn check_clock_word(cache: &Cache, wall_ms: u64) -> Checked {
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
pub(super) fn clock_word_holds(cache: &Cache, word_seen: u64) -> bool {
    word(cache, CLOCK).load(Ordering::SeqCst) == word_seen
}

fn encode(offset_ms: i64) -> u64 {
    offset_ms.saturating_add(BIAS) as u64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{Config, Namespace, ValueKind};
    use crate::tier::wire::parse_id;

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
        renew_mark(&c, 1_000);
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
        renew_mark(&c, 1_000);
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
        renew_mark(&c, 1_000);
        assert_eq!(word(&c, MARK).load(Ordering::SeqCst), 1_000);
        renew_mark(&c, 1_500);
        assert_eq!(enter_alone(&c, 1_600, 120), Alone::Tiered { seconds_ago: 100 });
    }

    #[test]
    fn claimed_never_goes_down_not_even_across_a_flush_of_the_region() {
        let config = crate::engine::Config {
            keys_memory_size: 1 << 16,
            values_memory_size: 256 << 10,
            compress_threshold: 0,
        };
        let cache = Cache::create(&config).unwrap();
        raise(&cache, CLAIMED, 10);
        cache.flush_all();
        // A late raise from a worker that read an older position (a reset that began earlier).
        raise(&cache, CLAIMED, 5);
        assert!(fill_is_stale(&cache, 7), "a fill older than an applied invalidation must lose");
        assert!(!fill_is_stale(&cache, 10));
    }

    #[test]
    fn a_fill_at_an_id_past_the_sequence_limit_loses_to_a_claim_of_the_same_packed_id() {
        let config = crate::engine::Config {
            keys_memory_size: 1 << 16,
            values_memory_size: 256 << 10,
            compress_threshold: 0,
        };
        let cache = Cache::create(&config).unwrap();
        let cut = parse_id(b"1700000000000-65535").unwrap();
        assert_eq!(parse_id(b"1700000000000-70000"), Some(cut), "both cut to the same position");
        assert!(!is_exact(cut) && is_exact(parse_id(b"1700000000000-65534").unwrap()));
        // An applier claimed 1700000000000-70000; a fill read at 1700000000000-65535 is older.
        raise(&cache, CLAIMED, cut);
        assert!(fill_is_stale(&cache, cut));
        assert!(!fill_is_stale(&cache, parse_id(b"1700000000001-0").unwrap()));
    }

    #[test]
    fn a_step_back_is_reported_once_and_a_step_forward_never() {
        let c = cache();
        let wall = crate::tier::time::now_ms();
        let first = check_clock_word(&c, wall);
        assert!(!first.stepped_back, "a new region has nothing to empty");
        assert_eq!(
            check_clock_word(&c, wall + 10),
            Checked { word: first.word, stepped_back: false },
            "jitter"
        );
        let back = check_clock_word(&c, wall - 60_000);
        assert!(back.stepped_back && back.word != first.word);
        assert!(
            !check_clock_word(&c, wall - 60_000).stepped_back,
            "the same step is reported once"
        );
        assert!(!clock_word_holds(&c, first.word), "a fill made before the step must not publish");
        assert!(
            !check_clock_word(&c, wall + 60_000).stepped_back,
            "a step forward only makes copies die early"
        );
    }
}
