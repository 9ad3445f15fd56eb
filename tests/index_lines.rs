//! The key index reads one cache line per lookup: at 80% of its slots used, hits and misses
//! read at most 1.1 lines on average (a key lives in its home bucket unless that is full; a
//! miss reads the away bucket only when the home's hint counts a key of its group away), and
//! the hints come back to zero when the keys living away are gone.
//!
//! Needs the `fuzzing` hooks (scripts/test.sh runs it with them):
//!
//!   cargo test --release --no-default-features --features fuzzing --target-dir target/engine \
//!     --test index_lines
#![cfg(feature = "fuzzing")]

use shmcache::engine::{Cache, Config, Namespace, ValueKind};

const STR: ValueKind = ValueKind::STRING;

fn filled(percent: u64) -> (Cache, u64) {
    let c = Cache::create(&Config {
        keys_memory_size: 4 << 20,
        values_memory_size: 64 << 20,
        compress_threshold: 0,
    })
    .unwrap();
    let keys = c.stats().slots_total * percent / 100;
    let root = Namespace::root();
    for i in 0..keys {
        assert!(c.set(&root, format!("wp:options:{i}").as_bytes(), STR, b"1", 0).unwrap());
    }
    (c, keys)
}

/// The mean number of index lines `op` reads or writes, one call per key.
fn mean_lines_of<R>(
    c: &Cache,
    keys: impl Iterator<Item = String>,
    mut op: impl FnMut(&Cache, &[u8]) -> R,
) -> (f64, u64) {
    let (mut lines, mut n) = (0u64, 0u64);
    for k in keys {
        lines += c.fuzz_index_lines(|c| op(c, k.as_bytes())).1 as u64;
        n += 1;
    }
    (lines as f64 / n as f64, n)
}

/// Lines a get reads.
fn mean_lines(c: &Cache, keys: impl Iterator<Item = String>) -> (f64, u64) {
    let root = Namespace::root();
    let mut out = Vec::new();
    mean_lines_of(c, keys, |c, k| c.get(&root, k, &mut out).unwrap())
}

#[test]
fn lookups_read_at_most_1_1_lines_at_80_percent_load() {
    let (c, keys) = filled(80);
    let root = Namespace::root();
    let (hit, n) = mean_lines(&c, (0..keys).map(|i| format!("wp:options:{i}")));
    let (miss, m) = mean_lines(&c, (0..keys).map(|i| format!("absent:{i}")));
    eprintln!("80% load: {n} hits read {hit:.4} lines each, {m} misses {miss:.4}");
    // Every key is there, whichever bucket it is in (the hinted read finds those living away).
    let kept = (0..keys)
        .filter(|i| c.exists(&root, format!("wp:options:{i}").as_bytes()).unwrap())
        .count() as u64;
    assert_eq!(kept, keys);
    assert!(hit <= 1.1, "hits read {hit} lines");
    assert!(miss <= 1.1, "misses read {miss} lines");
    assert!(hit > 1.0, "some keys live away at 80% load (else this test measures nothing)");
}

/// Writers trust the hint as readers do: an add of a new key reads its home line and, only when
/// the home is full or its hint counts a key of the group away, the away line (a second line
/// for every add, when writers read both buckets whatever the hint said). So do a delete, a
/// replace and an incr of a key that is not there; a set of a key that is reads where it lives.
#[test]
fn writes_read_one_line_at_80_percent_load() {
    let (c, keys) = filled(80);
    let root = Namespace::root();
    let absent = || (0..keys / 4).map(|i| format!("absent:{i}"));
    let (delete, _) = mean_lines_of(&c, absent(), |c, k| c.delete(&root, k).unwrap());
    let (replace, _) =
        mean_lines_of(&c, absent(), |c, k| c.replace(&root, k, STR, b"2", 0).unwrap());
    let (incr, _) = mean_lines_of(&c, absent(), |c, k| c.incr(&root, k, 1).unwrap());
    let (set, _) = mean_lines_of(&c, (0..keys).map(|i| format!("wp:options:{i}")), |c, k| {
        c.set(&root, k, STR, b"3", 0).unwrap()
    });
    // Adds of new keys at 80% load often find their home full (then the away bucket, and for
    // some a cuckoo move, read more lines); at 30% almost never.
    let add_new = |c: &Cache, n: u64| {
        mean_lines_of(c, (0..n).map(|i| format!("new:{i}")), |c, k| {
            assert!(c.add(&root, k, STR, b"4", 0).unwrap());
        })
    };
    let (add_at_80, _) = add_new(&c, keys / 16);
    let (c, keys) = filled(30);
    let (add, n) = add_new(&c, keys / 16);
    eprintln!(
        "80% load, lines a write reads: deletes of absent keys {delete:.4}, replaces \
         {replace:.4}, incrs {incr:.4}, sets of present keys {set:.4}, adds of new keys \
         {add_at_80:.4}; 30% load: {n} adds of new keys {add:.4}"
    );
    for (what, lines) in [
        ("delete", delete),
        ("replace", replace),
        ("incr", incr),
        ("set", set),
        ("add", add),
        ("add at 80%", add_at_80),
    ] {
        assert!(lines >= 1.0, "{what}: {lines} lines (reads nothing?)");
    }
    assert!(delete <= 1.1, "a delete of an absent key reads {delete} lines");
    assert!(replace <= 1.1, "a replace of an absent key reads {replace} lines");
    assert!(incr <= 1.1, "an incr of an absent key reads {incr} lines");
    assert!(set <= 1.1, "a set of a present key reads {set} lines");
    assert!(add <= 1.1, "an add of a new key reads {add} lines at 30% load");
}

/// In a saturated index (more keys set than slots: every bucket full) a cuckoo step finds no
/// room, after reading the other bucket of each of the 14 residents it tries; a process that
/// sees its steps fail in a row tries one insert in eight, so an insert of a new key reads
/// about 4 lines there instead of 16 (and one entry's epoch instead of 14: not counted here).
#[test]
fn inserts_into_a_saturated_index_read_few_lines() {
    let (c, keys) = filled(150);
    let root = Namespace::root();
    let s = c.stats();
    assert!(
        s.slots_used * 1000 >= s.slots_total * 999,
        "saturated: {} of {}",
        s.slots_used,
        s.slots_total
    );
    let (set, n) = mean_lines_of(&c, (0..keys / 20).map(|i| format!("new:{i}")), |c, k| {
        assert!(c.set(&root, k, STR, b"5", 0).unwrap());
    });
    eprintln!("saturated index: {n} sets of new keys read {set:.4} lines each");
    assert!(set >= 2.0, "a full home and a full away bucket are two lines ({set})");
    assert!(set <= 5.0, "a set of a new key reads {set} lines in a saturated index");
}

/// The entries' epochs (a random ring line each) `op` reads, summed over the keys, and how
/// many keys.
fn epoch_reads_of(
    c: &Cache,
    keys: impl Iterator<Item = String>,
    mut op: impl FnMut(&Cache, &[u8]),
) -> (usize, usize) {
    let (mut reads, mut n) = (0, 0);
    for k in keys {
        reads += c.fuzz_epoch_reads(|c| op(c, k.as_bytes())).1;
        n += 1;
    }
    (reads, n)
}

/// An insert into full buckets looks for a flushed entry to reuse only when its oldest
/// candidate was written before the last flush (`Epochs::flush_tail`): in a saturated index
/// that has never been flushed it reads no entry's epoch at all (reading the oldest's on every
/// insert, as before 21b4896, fails the first assertion). Right after a flush it reads the
/// oldest's, then those of the candidates in order up to the first flushed one, which it
/// reuses: no live key evicted. Once the buckets have been rewritten since the flush, epochs
/// are rarely read again.
#[test]
fn inserts_read_an_entrys_epoch_only_after_a_flush() {
    let (c, keys) = filled(150);
    let root = Namespace::root();
    let set = |c: &Cache, k: &[u8]| assert!(c.set(&root, k, STR, b"5", 0).unwrap());
    let (reads, n) = epoch_reads_of(&c, (0..5_000).map(|i| format!("new:{i}")), set);
    eprintln!("saturated, never flushed: {reads} epochs read by {n} inserts");
    assert_eq!(reads, 0);

    c.flush_all();
    let kicks = c.stats().kicks;
    let (reads, n) = epoch_reads_of(&c, (0..5_000).map(|i| format!("fresh:{i}")), set);
    eprintln!("just flushed: {reads} epochs read by {n} inserts");
    // (2.02 a key; 3.02 when the chosen slot's epoch was read a second time to count a kick.)
    assert!(reads >= n && reads * 10 <= n * 25, "{reads} epochs read by {n} inserts");
    assert_eq!(c.stats().kicks, kicks, "a flushed slot reused rather than a live key evicted");

    for i in 0..keys {
        set(&c, format!("again:{i}").as_bytes());
    }
    let (reads, n) = epoch_reads_of(&c, (0..5_000).map(|i| format!("later:{i}")), set);
    eprintln!("rewritten since the flush: {reads} epochs read by {n} inserts");
    assert!(reads * 20 <= n, "{reads} epochs read by {n} inserts");
}

#[test]
fn hints_return_to_zero_when_the_away_keys_are_deleted() {
    let (c, keys) = filled(85);
    let root = Namespace::root();
    assert!(c.fuzz_hint_total() > 0, "at 85% load some keys live away");
    for i in 0..keys {
        c.delete(&root, format!("wp:options:{i}").as_bytes()).unwrap();
    }
    assert_eq!(c.fuzz_hint_total(), 0, "every away word uncounted as it left");
    let (miss, _) = mean_lines(&c, (0..10_000).map(|i| format!("absent:{i}")));
    assert_eq!(miss, 1.0);
}

/// A guarded write of a key whose home bucket is full claims a pending slot in its away bucket;
/// a delete of the key made while the guard decides must find that word (through the home's
/// hint, which counts it) and clear it, so the write older than the delete never publishes.
/// Both cases: the key absent (the write inserts) and the key living away already.
#[test]
fn a_delete_clears_the_keys_pending_word_in_its_away_bucket() {
    const KEY: &[u8] = b"contested";
    let root = Namespace::root();
    for existing in [false, true] {
        // 16 buckets: keys sharing the contested key's home are quick to find.
        let c = Cache::create(&Config {
            keys_memory_size: 1024,
            values_memory_size: 1 << 20,
            compress_threshold: 0,
        })
        .unwrap();
        let [home, away] = c.fuzz_candidate_buckets(&root, KEY);
        assert_ne!(home, away);
        // Seven keys whose home is the contested key's home, and whose away bucket is not the
        // contested key's away bucket (which must keep room for it): they fill the home.
        let fillers: Vec<String> = (0u64..)
            .map(|i| format!("filler-{i}"))
            .filter(|k| {
                let [h, a] = c.fuzz_candidate_buckets(&root, k.as_bytes());
                h == home && a != away
            })
            .take(7)
            .collect();
        for k in &fillers {
            assert!(c.set(&root, k.as_bytes(), STR, b"f", 0).unwrap());
        }
        assert_eq!(c.fuzz_hint_total(), 0, "the fillers all live at home");
        if existing {
            assert!(c.set(&root, KEY, STR, b"before", 0).unwrap());
            assert_eq!(c.fuzz_index_lines(|c| c.exists(&root, KEY)).1, 2, "the key lives away");
        }
        let stored = c.set_if_current(&root, KEY, STR, b"late", 0, || {
            c.delete(&root, KEY).unwrap();
            true
        });
        assert_eq!(stored, Ok(false), "existing key: {existing}");
        let mut out = Vec::new();
        assert_eq!(
            c.get(&root, KEY, &mut out).unwrap(),
            None,
            "a write older than the delete published after it (existing key: {existing})"
        );
        for k in &fillers {
            assert!(c.exists(&root, k.as_bytes()).unwrap(), "{k} kept");
        }
    }
}
