//! Model checks, with loom, of the memory orderings the engine's lock-free protocols rely on
//! (docs/design.md, "Memory ordering").
//!
//! The engine's own types cannot run under loom: they work on a mapped region through std
//! atomics, and loom has to own every atomic whose interleavings and stale reads it explores.
//! These are therefore small models of the protocols, step for step, with the orderings and
//! fences of src/engine/cache/ (write.rs, read.rs) and src/engine/ring.rs: the ring is a few words (an entry is
//! one header word holding its offset and one value word), a slot word is the entry's offset + 1
//! (0 = empty, top bit = pending). The checksum is left out, so that the tail re-check alone
//! has to keep recycled bytes out (the checksum is a hash, a second line of defence, not a
//! proof). A change to an ordering in the engine belongs here too.
//!
//! Each model runs once with the engine's orderings, which must pass, and once with one
//! ordering weakened, where loom must find the wrong result: that shows the model can tell.

use loom::sync::atomic::{fence, AtomicU64, Ordering};
use loom::sync::Arc;
use loom::thread;

const PENDING: u64 = 1 << 63;

/// The orderings under test; ENGINE is what the engine does.
#[derive(Clone, Copy)]
struct Orders {
    /// ring.rs `reserve` → cache/write.rs `append`: a release fence after the tail CAS, before the
    /// ring stores.
    writer_fence: bool,
    /// cache/read.rs `unchanged_since_read`: an acquire fence after the copy, before the tail re-read.
    reader_fence: bool,
    /// The publishing CAS of a slot (set, incr, delete: AcqRel).
    publish: Ordering,
    /// How readers load a slot word (Acquire).
    slot_load: Ordering,
    /// Stand-in for the single total order of the insert protocol's SeqCst accesses (see
    /// `add`).
    insert_sc_order: bool,
    /// An insert that claimed its home slot reads the hint again after the claim to decide
    /// whether to scan the away slot (cache/insert.rs), instead of trusting the hint its lookup
    /// read before the claim.
    hint_after_claim: bool,
}

const ENGINE: Orders = Orders {
    writer_fence: true,
    reader_fence: true,
    publish: Ordering::AcqRel,
    slot_load: Ordering::Acquire,
    insert_sc_order: true,
    hint_after_claim: true,
};

/// One region: the tail, a ring of `CAP` entries of two words each, two slots (a key's
/// candidate slots: slot 0 in its home bucket, slot 1 in its away bucket) and the home's hint
/// (how many words slot 1 holds, counted before one enters and uncounted after it left).
struct Region {
    cap: u64,
    tail: AtomicU64,
    ring: Vec<AtomicU64>,
    slots: [AtomicU64; 2],
    hint: AtomicU64,
}

fn value_of(offset: u64) -> u64 {
    1000 + offset
}

fn is_intact(tail: u64, offset: u64, cap: u64) -> bool {
    offset < tail && tail - offset <= cap
}

impl Region {
    /// A region whose ring holds `cap` entries; with `published`, the entry at offset 0 is
    /// written and published in slot 0 (before any thread starts).
    fn new(cap: u64, published: bool) -> Arc<Region> {
        let r = Region {
            cap,
            tail: AtomicU64::new(0),
            ring: (0..2 * cap).map(|_| AtomicU64::new(0)).collect(),
            slots: [AtomicU64::new(0), AtomicU64::new(0)],
            hint: AtomicU64::new(0),
        };
        if published {
            let o = r.append(ENGINE).unwrap();
            r.slots[0].store(o + 1, Ordering::Release);
        }
        Arc::new(r)
    }

    /// cache/write.rs `append`: reserve, check the reservation is still intact, write.
    fn append(&self, orders: Orders) -> Option<u64> {
        let offset = self.tail.fetch_add(1, Ordering::AcqRel);
        if !is_intact(self.tail.load(Ordering::Acquire), offset, self.cap) {
            return None;
        }
        if orders.writer_fence {
            fence(Ordering::Release);
        }
        let at = (2 * (offset % self.cap)) as usize;
        self.ring[at].store(offset + 1, Ordering::Relaxed);
        self.ring[at + 1].store(value_of(offset), Ordering::Relaxed);
        Some(offset)
    }

    /// index.rs `KeyTable::swap` (SeqCst, as the insert protocol uses it): a word entering the
    /// away slot is counted in the hint before it is stored, one leaving uncounted after.
    fn swap(&self, slot: usize, old: u64, new: u64) -> bool {
        let enters = slot == 1 && old == 0 && new != 0;
        let leaves = slot == 1 && old != 0 && new == 0;
        if enters {
            self.hint.fetch_add(1, Ordering::SeqCst);
        }
        let swapped = self.slots[slot]
            .compare_exchange(old, new, Ordering::SeqCst, Ordering::Relaxed)
            .is_ok();
        if (swapped && leaves) || (!swapped && enters) {
            self.hint.fetch_sub(1, Ordering::SeqCst);
        }
        swapped
    }

    /// cache/read.rs `read_full` on the word of `slot`: what a get, delete or add finds there.
    fn read(&self, slot: usize, orders: Orders) -> Read {
        let word = self.slots[slot].load(orders.slot_load);
        if word == 0 || word & PENDING != 0 {
            return Read::Absent;
        }
        let offset = word - 1;
        if !is_intact(self.tail.load(Ordering::Acquire), offset, self.cap) {
            return Read::Absent;
        }
        let at = (2 * (offset % self.cap)) as usize;
        let header = self.ring[at].load(Ordering::Relaxed);
        let value = self.ring[at + 1].load(Ordering::Relaxed);
        if orders.reader_fence {
            fence(Ordering::Acquire);
        }
        if !is_intact(self.tail.load(Ordering::Acquire), offset, self.cap) {
            return Read::Recycled;
        }
        if header != offset + 1 {
            return Read::Invalid { word };
        }
        Read::Hit { word, value, offset }
    }
}

#[derive(Debug, PartialEq)]
enum Read {
    Absent,
    /// The tail re-check saw the ring reach the entry: a validation failure, as it should be.
    Recycled,
    /// The header is not the entry's (in the engine: a validation failure the tail re-check
    /// did not explain, i.e. a read of bytes the publish should have made visible).
    Invalid {
        word: u64,
    },
    Hit {
        word: u64,
        value: u64,
        offset: u64,
    },
}

impl Read {
    /// A hit must be the entry's own value; nothing but recycling may fail a read.
    fn check(&self) {
        match *self {
            Read::Hit { value, offset, .. } => assert_eq!(
                value,
                value_of(offset),
                "a read returned a value that is not its entry's"
            ),
            Read::Invalid { word } => {
                panic!("a published entry (word {word:#x}) failed validation with its bytes intact")
            }
            Read::Absent | Read::Recycled => {}
        }
    }
}

fn model(f: impl Fn() + Sync + Send + 'static) {
    let mut b = loom::model::Builder::new();
    // Every interleaving, without a bound on preemptions (whatever LOOM_MAX_PREEMPTIONS says):
    // the models are small enough (the largest, two adds with the hint, about 20 s in a release
    // build; with three rounds each instead of two it ran for more than ten minutes).
    b.preemption_bound = None;
    b.check(f);
}

/// Slot publish: a writer appends an entry and publishes it in an empty slot while a reader
/// reads the slot. A reader that sees the word must see the whole entry.
fn publish_model(orders: Orders) {
    model(move || {
        let r = Region::new(2, false);
        let w = r.clone();
        let writer = thread::spawn(move || {
            let offset = w.append(orders).unwrap();
            w.slots[0].compare_exchange(0, offset + 1, orders.publish, Ordering::Relaxed).unwrap();
        });
        r.read(0, orders).check();
        writer.join().unwrap();
    });
}

/// Tail re-check: the ring holds one entry; a writer's reservation recycles its bytes while a
/// reader copies them. The reader must never return the new bytes as the old entry's.
fn recycle_model(orders: Orders) {
    model(move || {
        let r = Region::new(1, true);
        let w = r.clone();
        let writer = thread::spawn(move || {
            w.append(orders);
        });
        r.read(0, orders).check();
        writer.join().unwrap();
    });
}

/// cache/insert.rs `insert_new` for `add`: two processes add the same new key, each preferring a
/// different one of its two candidate slots (the case where both claims can succeed). Exactly
/// one must win, leaving exactly one published slot.
///
/// Steps 4–6 of the insert protocol use SeqCst: one process claims its slot and then loads the
/// other's, so (as in Dekker's algorithm) at least one of two simultaneous claimers must see the
/// other's claim, which only the single total order of SeqCst operations promises. loom models
/// SeqCst loads and stores as AcqRel (it would report both claimers missing each other) but
/// models SeqCst fences, so the model puts a SeqCst fence between the claim and the scan: in
/// the C++20/Rust model a SeqCst fence there orders the claim before the load exactly as the
/// engine's SeqCst CAS and SeqCst load do.
///
/// Writers trust the home's hint as readers do: the lookup reads the away slot only when the
/// hint counts a word there, and so does the scan for rivals of a claim at home, with a hint
/// read after the claim. A claim away is counted before it is stored, so a hint read that
/// misses it came before it, and that claimer's own scan of home then sees our claim.
///
/// A loser retries while the winner has not published yet (in the engine, until it sees the
/// published key, yielding each time); the model gives up after `ATTEMPTS` rounds (None) so
/// that loom's exploration stays finite, and checks that no outcome breaks the protocol.
fn add(r: &Region, preferred: usize, orders: Orders) -> Option<bool> {
    let offset = r.append(orders).unwrap();
    let word = offset + 1;
    let pending = word | PENDING;
    for _ in 0..ATTEMPTS {
        // The lookup: a published copy of the key means add returns false.
        if let Read::Hit { .. } = r.read(0, orders) {
            return Some(false);
        }
        let counted = r.hint.load(Ordering::Acquire) > 0;
        if counted {
            if let Read::Hit { .. } = r.read(1, orders) {
                return Some(false);
            }
        }
        let other = 1 - preferred;
        let victim =
            if r.slots[preferred].load(Ordering::Acquire) == 0 { preferred } else { other };
        let rival_slot = 1 - victim;
        if !r.swap(victim, 0, pending) {
            thread::yield_now();
            continue;
        }
        if orders.insert_sc_order {
            fence(Ordering::SeqCst);
        }
        let withdraw = || {
            let _ = r.swap(victim, pending, 0);
        };
        let scan_rival = rival_slot == 0
            || if orders.hint_after_claim { r.hint.load(Ordering::SeqCst) > 0 } else { counted };
        let theirs = if scan_rival { r.slots[rival_slot].load(Ordering::SeqCst) } else { 0 };
        if theirs != 0 {
            if theirs & PENDING == 0 {
                withdraw();
                continue;
            }
            if (theirs & !PENDING) - 1 < offset {
                withdraw();
                thread::yield_now();
                continue;
            }
            if !r.swap(rival_slot, theirs, 0) {
                withdraw();
                continue;
            }
        }
        if r.swap(victim, pending, word) {
            return Some(true);
        }
    }
    None
}

/// Rounds of the insert protocol an add of the model tries before it gives up.
const ATTEMPTS: usize = 2;

fn insert_model(orders: Orders) {
    model(move || {
        let r = Region::new(4, false);
        let r1 = r.clone();
        let first = thread::spawn(move || add(&r1, 0, orders));
        let second = add(&r, 1, orders);
        let first = first.join().unwrap();
        assert!(first != Some(true) || second != Some(true), "both adds won");
        let words = [r.slots[0].load(Ordering::Relaxed), r.slots[1].load(Ordering::Relaxed)];
        let published = words.iter().filter(|&&w| w != 0 && w & PENDING == 0).count();
        assert!(
            words.iter().all(|&w| w & PENDING == 0),
            "a pending slot was left behind: {words:x?}"
        );
        assert_eq!(
            published,
            usize::from(first == Some(true)) + usize::from(second == Some(true)),
            "slots {words:x?} after adds {first:?}, {second:?}"
        );
        if first.is_some() && second.is_some() {
            assert!(first != second, "neither add won");
        }
        assert_eq!(
            r.hint.load(Ordering::Relaxed),
            u64::from(words[1] != 0),
            "the hint does not count the away slot's word"
        );
    });
}

/// Delete against replace: the key is live throughout (old value, then new), so delete must
/// find it live and remove it whichever goes first, and the key ends absent: a replace never
/// resurrects a deleted key, a delete never leaves the replaced value behind.
fn delete_model(orders: Orders) {
    model(move || {
        let r = Region::new(2, true);
        let w = r.clone();
        let replacer = thread::spawn(move || loop {
            // cache/write.rs `store_draft` for replace: a full read, append, CAS from the word read.
            let Read::Hit { word: old, .. } = w.read(0, orders) else { return false };
            let offset = w.append(orders).unwrap();
            if w.slots[0]
                .compare_exchange(old, offset + 1, orders.publish, Ordering::Relaxed)
                .is_ok()
            {
                return true;
            }
        });
        // cache/update.rs `delete`: a full read, then CAS the word read to 0.
        let deleted_live = loop {
            let read = r.read(0, orders);
            let (word, live) = match read {
                Read::Hit { word, .. } => (word, true),
                Read::Invalid { word } => (word, false),
                Read::Absent | Read::Recycled => break false,
            };
            if r.slots[0].compare_exchange(word, 0, orders.publish, Ordering::Relaxed).is_ok() {
                break live;
            }
        };
        replacer.join().unwrap();
        assert!(deleted_live, "delete did not find the live key");
        assert_eq!(r.slots[0].load(Ordering::Relaxed), 0, "the key outlived its delete");
    });
}

#[test]
fn a_published_entry_is_read_whole() {
    publish_model(ENGINE);
}

#[test]
#[should_panic(expected = "failed validation with its bytes intact")]
fn a_relaxed_publish_lets_a_reader_see_the_word_before_the_entry() {
    publish_model(Orders { publish: Ordering::Relaxed, ..ENGINE });
}

#[test]
fn a_recycled_entry_is_never_returned() {
    recycle_model(ENGINE);
}

#[test]
#[should_panic(expected = "a read returned a value that is not its entry's")]
fn without_the_writers_release_fence_a_recycled_entry_is_returned() {
    recycle_model(Orders { writer_fence: false, ..ENGINE });
}

#[test]
#[should_panic(expected = "a read returned a value that is not its entry's")]
fn without_the_readers_acquire_fence_a_recycled_entry_is_returned() {
    recycle_model(Orders { reader_fence: false, ..ENGINE });
}

#[test]
fn exactly_one_concurrent_add_wins() {
    insert_model(ENGINE);
}

#[test]
#[should_panic(expected = "both adds won")]
fn without_a_total_order_on_the_claims_two_adds_win() {
    insert_model(Orders { insert_sc_order: false, ..ENGINE });
}

#[test]
#[should_panic(expected = "both adds won")]
fn trusting_the_lookups_hint_for_the_scan_lets_two_adds_win() {
    insert_model(Orders { hint_after_claim: false, ..ENGINE });
}

#[test]
fn delete_and_replace_leave_the_key_absent() {
    delete_model(ENGINE);
}

#[test]
#[should_panic(expected = "delete did not find the live key")]
fn a_relaxed_slot_load_lets_delete_miss_a_replaced_value() {
    delete_model(Orders { slot_load: Ordering::Relaxed, ..ENGINE });
}

/// The away hint (src/engine/index.rs): a key moves from its home slot to its away slot, its
/// home's hint counted first, while another key of the same group enters and leaves another away
/// slot (counted before it enters, uncounted after it left), and a reader reads the home slot,
/// then the hint. A reader that sees the key gone from home must see it counted, or it would
/// skip the away bucket where the key now is. `count_first`: the mover counts before it
/// leaves home (the engine); `hint_after_home`: the reader reads the hint after the home slot
/// (the engine).
fn hint_model(count_first: bool, hint_after_home: bool) {
    model(move || {
        const KEY: u64 = 5;
        const OTHER: u64 = 9;
        let words: Arc<[AtomicU64; 4]> = Arc::new([
            AtomicU64::new(KEY),
            AtomicU64::new(0),
            AtomicU64::new(0),
            AtomicU64::new(0),
        ]);
        let (home, away, other_away, hint) = (0, 1, 2, 3);
        let count = move |w: &[AtomicU64; 4], up: bool| {
            let _ = w[hint].fetch_update(Ordering::SeqCst, Ordering::SeqCst, |h| match (h, up) {
                (0, false) => None,
                (_, true) => Some(h + 1),
                (_, false) => Some(h - 1),
            });
        };
        let m = words.clone();
        let mover = thread::spawn(move || {
            if count_first {
                count(&m, true);
            }
            m[away]
                .compare_exchange(0, KEY | PENDING, Ordering::SeqCst, Ordering::Relaxed)
                .unwrap();
            m[home].compare_exchange(KEY, 0, Ordering::SeqCst, Ordering::Relaxed).unwrap();
            if !count_first {
                count(&m, true);
            }
            m[away]
                .compare_exchange(KEY | PENDING, KEY, Ordering::SeqCst, Ordering::Relaxed)
                .unwrap();
        });
        let o = words.clone();
        let other = thread::spawn(move || {
            count(&o, true);
            o[other_away].compare_exchange(0, OTHER, Ordering::SeqCst, Ordering::Relaxed).unwrap();
            o[other_away].compare_exchange(OTHER, 0, Ordering::SeqCst, Ordering::Relaxed).unwrap();
            count(&o, false);
        });
        let (at_home, counted) = if hint_after_home {
            let at_home = words[home].load(Ordering::Acquire);
            (at_home, words[hint].load(Ordering::Acquire))
        } else {
            let counted = words[hint].load(Ordering::Acquire);
            (words[home].load(Ordering::Acquire), counted)
        };
        assert!(at_home == KEY || counted > 0, "a reader saw the key leave home but not its count");
        mover.join().unwrap();
        other.join().unwrap();
        assert_eq!(words[hint].load(Ordering::SeqCst), 1, "the hint counts the one away word left");
    });
}

#[test]
fn a_key_that_left_home_is_counted_for_every_reader() {
    hint_model(true, true);
}

#[test]
#[should_panic(expected = "a reader saw the key leave home but not its count")]
fn counting_after_leaving_home_lets_a_reader_skip_the_away_bucket() {
    hint_model(false, true);
}

#[test]
#[should_panic(expected = "a reader saw the key leave home but not its count")]
fn reading_the_hint_before_the_home_slot_lets_a_reader_skip_the_away_bucket() {
    hint_model(true, false);
}
