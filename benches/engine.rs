//! Engine micro-benchmarks (no PHP): get hit, get miss and set by value size, single thread,
//! and a forked two-process 90% get / 10% set mix. Figures go in the notes, not in tests.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use shmcache::engine::{Cache, Config, Namespace, ValueKind};

const SIZES: [usize; 4] = [16, 100, 4096, 50 * 1024];
const KEYS: usize = 10_000;
const STR: ValueKind = ValueKind::STRING;

fn cache() -> Cache {
    Cache::create(&Config {
        keys_memory_size: 4 << 20,
        values_memory_size: 256 << 20,
        compress_threshold: 0,
    })
    .unwrap()
}

fn value(size: usize) -> Vec<u8> {
    (0..size).map(|i| (i * 31 % 251) as u8).collect()
}

fn keys() -> Vec<Vec<u8>> {
    (0..KEYS).map(|i| format!("wp:options:key-{i}").into_bytes()).collect()
}

fn single_thread(c: &mut Criterion) {
    let root = Namespace::root();
    let keys = keys();
    for size in SIZES {
        let cache = cache();
        let v = value(size);
        // Few enough keys that the largest values still fit the ring without recycling.
        let n = KEYS.min((128 << 20) / (size + 100));
        for k in &keys[..n] {
            cache.set(&root, k, STR, &v, 0).unwrap();
        }
        let mut g = c.benchmark_group(format!("engine/{size}B"));
        g.throughput(Throughput::Elements(1));
        let mut out = Vec::with_capacity(size);
        let mut i = 0usize;
        g.bench_function(BenchmarkId::new("get_hit", size), |b| {
            b.iter(|| {
                i = (i + 1) % n;
                black_box(cache.get(&root, &keys[i], &mut out).unwrap());
            })
        });
        g.bench_function(BenchmarkId::new("get_miss", size), |b| {
            b.iter(|| black_box(cache.get(&root, b"wp:options:absent-key", &mut out).unwrap()))
        });
        g.bench_function(BenchmarkId::new("set", size), |b| {
            b.iter(|| {
                i = (i + 1) % n;
                black_box(cache.set(&root, &keys[i], STR, &v, 0).unwrap());
            })
        });
        g.finish();
    }
}

/// Two forked processes, each doing 90% get / 10% set on 10,000 keys of 100 bytes.
fn forked_mix(c: &mut Criterion) {
    let mut g = c.benchmark_group("engine/forked");
    g.sample_size(10).measurement_time(Duration::from_secs(8));
    let cache = Cache::create(&Config {
        keys_memory_size: 1 << 20,
        values_memory_size: 64 << 20,
        compress_threshold: 0,
    })
    .unwrap();
    g.bench_function("2proc_90get_10set_100B", |b| {
        b.iter_custom(|iters| {
            let root = Namespace::root();
            let keys = keys();
            let v = value(100);
            for k in &keys {
                cache.set(&root, k, STR, &v, 0).unwrap();
            }
            // Enough operations per sample that fork and exit are noise; the time is scaled back
            // to `iters` operations below.
            let per_proc = iters.div_ceil(2).max(200_000);
            let start = Instant::now();
            let pids: Vec<_> = (0..2)
                .map(|p| {
                    // SAFETY: criterion runs benchmarks on one thread; the child only uses the
                    // cache and exits with _exit.
                    let pid = unsafe { libc::fork() };
                    if pid == 0 {
                        let mut out = Vec::new();
                        let mut x = 0x2545_f491_4f6c_dd1d_u64 ^ p;
                        for _ in 0..per_proc {
                            x ^= x << 13;
                            x ^= x >> 7;
                            x ^= x << 17;
                            let k = &keys[(x % KEYS as u64) as usize];
                            if x.is_multiple_of(10) {
                                let _ = cache.set(&root, k, STR, &v, 0);
                            } else {
                                let _ = black_box(cache.get(&root, k, &mut out));
                            }
                        }
                        // SAFETY: leave the child without running the parent's destructors.
                        unsafe { libc::_exit(0) };
                    }
                    pid
                })
                .collect();
            for pid in pids {
                let mut st = 0;
                // SAFETY: waiting for our own child.
                unsafe { libc::waitpid(pid, &mut st, 0) };
            }
            // Both processes together did 2 * per_proc operations: time per operation of the
            // pair, times the `iters` criterion asked for.
            start.elapsed().mul_f64(iters as f64 / (2 * per_proc) as f64)
        })
    });
    g.finish();
}

criterion_group!(benches, single_thread, forked_mix);
criterion_main!(benches);
