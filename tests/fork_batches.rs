//! The batched writes and deletes (`write_each`, `delete_each`) racing each other and single
//! reads in forked processes: every key of a batch is handled exactly as alone, so no read
//! returns a wrong value and, of processes adding the same keys, exactly one wins each key.

mod common;

use common::{make_value, spawn, value_is_valid, wait, Rng, Shared};
use shmcache::engine::{Cache, Config, Namespace, ValueKind, WriteMode};

const PROCS: usize = 4;

fn string_item<'b>(item: &'b &(Vec<u8>, Vec<u8>)) -> (&'b [u8], ValueKind, &'b [u8]) {
    (&item.0, ValueKind::STRING, &item.1)
}

#[test]
fn batches_racing_each_other_never_give_a_wrong_value() {
    const ROUNDS: u64 = 6000;
    const KEYS: u64 = 2000;
    let cache = Cache::create(&Config {
        keys_memory_size: 16 << 10,
        values_memory_size: 512 << 10,
        compress_threshold: 256,
    })
    .unwrap();
    // Per child: [wrong, hits, writes, deletes]
    let report = Shared::new(PROCS * 4);
    let pids: Vec<_> = (0..PROCS)
        .map(|p| {
            let (cache, report) = (&cache, &report);
            spawn(move || {
                let ns = Namespace::new(b"batches").unwrap();
                let mut rng = Rng(0x51ed_2701 + p as u64 * 104_729);
                let mut out = Vec::new();
                for round in 0..ROUNDS {
                    let keys: Vec<Vec<u8>> = (0..rng.below(20) + 1)
                        .map(|_| format!("key:{}", rng.below(KEYS)).into_bytes())
                        .collect();
                    match rng.below(3) {
                        0 => {
                            let len = [16, 100, 700][rng.below(3) as usize];
                            let seq = round * PROCS as u64 + p as u64;
                            let items: Vec<_> =
                                keys.iter().map(|k| (k.clone(), make_value(k, seq, len))).collect();
                            cache.write_each(
                                &ns,
                                items.iter(),
                                string_item,
                                WriteMode::Set,
                                0,
                                |_, r| {
                                    report.add(p * 4 + 2, u64::from(r.unwrap()));
                                    true
                                },
                            );
                        }
                        1 => cache.delete_each(&ns, keys.iter(), |_, r| {
                            report.add(p * 4 + 3, u64::from(r.unwrap()));
                            true
                        }),
                        _ => {
                            for k in &keys {
                                if cache.get(&ns, k, &mut out).unwrap().is_some() {
                                    report.add(p * 4 + 1, 1);
                                    if !value_is_valid(k, &out) {
                                        report.add(p * 4, 1);
                                    }
                                }
                            }
                        }
                    }
                }
                0
            })
        })
        .collect();
    for pid in pids {
        assert_eq!(wait(pid), 0);
    }
    let sum = |i: usize| (0..PROCS).map(|p| report.get(p * 4 + i)).sum::<u64>();
    let stats = cache.stats();
    eprintln!(
        "batches: wrong={} hits={} writes={} deletes={} recycles={}",
        sum(0),
        sum(1),
        sum(2),
        sum(3),
        stats.recycles
    );
    assert_eq!(sum(0), 0, "wrong values returned");
    assert!(sum(1) > 1_000 && sum(3) > 1_000, "the run must produce hits and deletes to check");
    assert!(stats.recycles >= 5, "the ring must wrap during the run");
}

#[test]
fn processes_adding_the_same_keys_in_batches_win_each_key_once() {
    const ROUNDS: usize = 30;
    const KEYS: usize = 200;
    let cache = Cache::create(&Config {
        keys_memory_size: 256 << 10,
        values_memory_size: 4 << 20,
        compress_threshold: 4096,
    })
    .unwrap();
    // Per round and key: how many adds won.
    let wins = Shared::new(ROUNDS * KEYS);
    let pids: Vec<_> = (0..PROCS)
        .map(|p| {
            let (cache, wins) = (&cache, &wins);
            spawn(move || {
                let ns = Namespace::new(b"adds").unwrap();
                let mut rng = Rng(0x2545_f491 + p as u64 * 6_700_417);
                for round in 0..ROUNDS {
                    // Each process its own order of the round's keys.
                    let mut order: Vec<usize> = (0..KEYS).collect();
                    for i in (1..KEYS).rev() {
                        order.swap(i, rng.below(i as u64 + 1) as usize);
                    }
                    let items: Vec<(usize, Vec<u8>)> =
                        order.iter().map(|&i| (i, format!("r{round}:k{i}").into_bytes())).collect();
                    let value = [p as u8; 24];
                    cache.write_each(
                        &ns,
                        items.iter(),
                        |(_, k)| (&k[..], ValueKind::STRING, &value[..]),
                        WriteMode::Add,
                        0,
                        |(i, _), r| {
                            wins.add(round * KEYS + i, u64::from(r.unwrap()));
                            true
                        },
                    );
                }
                0
            })
        })
        .collect();
    for pid in pids {
        assert_eq!(wait(pid), 0);
    }
    for round in 0..ROUNDS {
        for i in 0..KEYS {
            assert_eq!(wins.get(round * KEYS + i), 1, "round {round}, key {i}: adds that won");
        }
    }
}
