//! Region corruption: fill a cache with values that embed their key and a checksum, apply the
//! fuzz input as byte writes into the mapped region (key index, value ring, namespace table),
//! then read every key and run more operations. Must never panic or crash, and:
//!
//! * a hit is always a value that was stored for that key (never a corrupted or foreign one);
//! * when only the value ring was corrupted (the bytes every read validates), a hit is exactly
//!   the key's latest value, and nothing deleted or flushed comes back.
//!
//! (Corrupting the index can point a slot at an older, intact version of the same key, so with
//! index or namespace-table writes a hit may be any earlier value of that key.)
//!
//! Input: byte 0 = number of writes (mod 64); then 6-byte records [area, offset u32 LE, byte];
//! the rest are operations run after the corruption.

#![no_main]

use libfuzzer_sys::fuzz_target;
use shmcache::engine::{Cache, Config, Namespace, Region, ValueKind};
use xxhash_rust::xxh3::xxh3_64;

const KEYS: usize = 24;
const STRING: ValueKind = ValueKind::STRING;

#[derive(Clone)]
struct Model {
    spaces: [Namespace; 2],
    /// Every value ever stored per (namespace, key).
    all: Vec<Vec<Vec<u8>>>,
    /// The value a correct cache may return now (None after delete / flush).
    latest: Vec<Option<Vec<u8>>>,
    /// Every value the counter of each namespace has held.
    ctr_all: [Vec<i64>; 2],
    ctr_latest: [Option<i64>; 2],
    seq: u64,
    strict: bool,
}

fn key_of(i: usize) -> Vec<u8> {
    format!("k{i}").into_bytes()
}

/// key ‖ seq ‖ payload ‖ xxh3(everything before)
fn make_value(key: &[u8], seq: u64, len: usize, compressible: bool) -> Vec<u8> {
    let mut v = Vec::with_capacity(len + key.len() + 16);
    v.extend_from_slice(key);
    v.extend_from_slice(&seq.to_le_bytes());
    let mut x = seq.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    for i in 0..len {
        if compressible {
            v.push(b'a' + (i % 7) as u8);
        } else {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            v.push(x as u8);
        }
    }
    let sum = xxh3_64(&v);
    v.extend_from_slice(&sum.to_le_bytes());
    v
}

impl Model {
    fn slot(&self, ns: usize, k: usize) -> usize {
        ns * KEYS + k
    }

    fn set(&mut self, cache: &Cache, ns: usize, k: usize, len: usize, compressible: bool, how: u8) {
        self.seq += 1;
        let key = key_of(k);
        let v = make_value(&key, self.seq, len, compressible);
        let ttl = 0;
        let r = match how % 3 {
            0 => cache.set(&self.spaces[ns], &key, STRING, &v, ttl),
            1 => cache.add(&self.spaces[ns], &key, STRING, &v, ttl),
            _ => cache.replace(&self.spaces[ns], &key, STRING, &v, ttl),
        };
        let i = self.slot(ns, k);
        match r {
            Ok(true) => {
                self.all[i].push(v.clone());
                self.latest[i] = Some(v);
            }
            Ok(false) => {
                if how % 3 == 0 {
                    panic!("set returned false");
                }
                if how % 3 == 1 {
                    // add refused: the cache holds a live value, which must be the latest one
                    if self.strict {
                        assert!(
                            self.latest[i].is_some(),
                            "add refused k{k} (ns {ns}) that was deleted or flushed"
                        );
                    }
                } else {
                    // replace refused: no readable live value (deleted, flushed or corrupted)
                    self.latest[i] = None;
                }
            }
            Err(e) => panic!("write failed: {e}"),
        }
    }

    fn check_get(&self, cache: &Cache, ns: usize, k: usize, out: &mut Vec<u8>) {
        let key = key_of(k);
        let i = self.slot(ns, k);
        match cache.get(&self.spaces[ns], &key, out).expect("get") {
            None => {}
            Some(kind) => {
                assert_eq!(kind, STRING, "wrong kind for {:?}", String::from_utf8_lossy(&key));
                if self.strict {
                    assert_eq!(
                        Some(out.as_slice()),
                        self.latest[i].as_deref(),
                        "hit is not the latest value of k{k} (ns {ns})"
                    );
                } else {
                    assert!(
                        self.all[i].iter().any(|v| v == out),
                        "hit is not a value ever stored for k{k} (ns {ns})"
                    );
                }
            }
        }
        let exists = cache.exists(&self.spaces[ns], &key).expect("exists");
        if self.strict && exists {
            assert!(self.latest[i].is_some(), "k{k} (ns {ns}) exists after delete/flush");
        }
    }

    fn check_all(&self, cache: &Cache) {
        let mut out = Vec::new();
        for ns in 0..2 {
            for k in 0..KEYS {
                self.check_get(cache, ns, k, &mut out);
            }
            match cache.get(&self.spaces[ns], b"ctr", &mut out).expect("get ctr") {
                None => {}
                Some(kind) => {
                    assert_eq!(kind, ValueKind::INT);
                    let n = i64::from_le_bytes(out.as_slice().try_into().expect("8-byte counter"));
                    if self.strict {
                        assert_eq!(Some(n), self.ctr_latest[ns], "counter is not its latest value");
                    } else {
                        assert!(
                            self.ctr_all[ns].contains(&n),
                            "counter holds a value it never had"
                        );
                    }
                }
            }
        }
    }

    fn incr(&mut self, cache: &Cache, ns: usize, by: i64) {
        match cache.incr(&self.spaces[ns], b"ctr", by).expect("incr") {
            // a miss: the counter is gone (deleted by a flush, or its entry was corrupted)
            None => self.ctr_latest[ns] = None,
            Some(n) => {
                let before = n.wrapping_sub(by);
                if self.strict {
                    assert_eq!(
                        Some(before),
                        self.ctr_latest[ns],
                        "incr did not start from the latest value"
                    );
                } else {
                    assert!(
                        self.ctr_all[ns].contains(&before),
                        "incr started from a value the counter never had"
                    );
                }
                self.ctr_all[ns].push(n);
                self.ctr_latest[ns] = Some(n);
            }
        }
    }
}

/// The filled region (an image of its bytes) and the model that goes with it, made once; each
/// run copies the image into one reused mapping, which is much faster than filling it again.
struct Pristine {
    image: Vec<u8>,
    model: Model,
    map: usize,
}

fn pristine() -> &'static Pristine {
    static P: std::sync::OnceLock<Pristine> = std::sync::OnceLock::new();
    P.get_or_init(|| {
        let config =
            Config { keys_memory_size: 1024, values_memory_size: 64 << 10, compress_threshold: 64 };
        let cache = Cache::create(&config).expect("create");
        let mut m = Model {
            spaces: [Namespace::root(), Namespace::new(b"fuzz-ns").unwrap()],
            all: vec![Vec::new(); 2 * KEYS],
            latest: vec![None; 2 * KEYS],
            ctr_all: [vec![100], vec![200]],
            ctr_latest: [Some(100), Some(200)],
            seq: 0,
            strict: true,
        };
        // Two versions of some keys (older intact versions stay in the ring), sizes 8 B..3 KB,
        // some compressible, and an integer counter per namespace.
        const SIZES: [usize; 6] = [8, 40, 300, 1500, 3000, 700];
        for ns in 0..2 {
            for k in 0..KEYS {
                m.set(&cache, ns, k, SIZES[k % SIZES.len()] / (ns + 1), k % 4 == 3, 0);
                if k % 5 == 0 {
                    m.set(&cache, ns, k, 20 + k, false, 0);
                }
            }
            assert!(cache
                .set(&m.spaces[ns], b"ctr", ValueKind::INT, &m.ctr_all[ns][0].to_le_bytes(), 0)
                .unwrap());
        }
        m.check_all(&cache);
        let l = cache.region().fuzz_layout();
        // SAFETY: the whole mapping is readable; nothing else uses it now.
        let image = unsafe { std::slice::from_raw_parts(l.base, l.len) }.to_vec();
        // SAFETY: a fresh private anonymous mapping of the image's size.
        let map = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                l.len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        assert_ne!(map, libc::MAP_FAILED);
        Pristine { image, model: m, map: map as usize }
    })
}

fuzz_target!(|data: &[u8]| {
    let p = pristine();
    let base = p.map as *mut u8;
    // SAFETY: the mapping is p.image.len() bytes, page aligned, used by this run only.
    let cache = unsafe {
        std::ptr::copy_nonoverlapping(p.image.as_ptr(), base, p.image.len());
        Cache::over(Region::attach(base, p.image.len()).expect("attach"))
    };
    let mut m = p.model.clone();

    // Corruption.
    let layout = cache.region().fuzz_layout();
    let (&n, rest) = data.split_first().unwrap_or((&0, &[]));
    let n = (n % 64) as usize;
    let writes = n.min(rest.len() / 6);
    let (records, ops) = rest.split_at(writes * 6);
    for r in records.chunks_exact(6) {
        let off = u32::from_le_bytes([r[1], r[2], r[3], r[4]]) as usize;
        let (start, len) = match r[0] % 4 {
            0 | 1 => layout.ring,
            2 => layout.index,
            _ => layout.ns_table,
        };
        if r[0] % 4 >= 2 {
            m.strict = false;
        }
        let at = start + off % len;
        assert!(at < layout.len);
        // SAFETY: `at` is inside the mapping; this process is the only one using it.
        unsafe { std::ptr::write_volatile(layout.base.add(at), r[5]) };
    }
    m.check_all(&cache);

    // Operations on the corrupted cache, each followed by a check of what it touched.
    let mut out = Vec::new();
    for op in ops.chunks(2) {
        let a = op[0];
        let b = *op.get(1).unwrap_or(&0);
        let ns = (b & 1) as usize;
        let k = (b as usize >> 1) % KEYS;
        match a % 10 {
            0..=2 => m.set(&cache, ns, k, (a as usize * 37) % 4000, a & 0x80 != 0, a / 10),
            3 => m.incr(&cache, ns, (a as i64) - 100),
            4 => {
                let live = cache.delete(&m.spaces[ns], &key_of(k)).expect("delete");
                let i = m.slot(ns, k);
                if live && m.strict {
                    assert!(
                        m.latest[i].is_some(),
                        "delete removed a live entry the model had deleted"
                    );
                }
                m.latest[i] = None;
            }
            5 => {
                if let Some(cur) = m.ctr_latest[ns] {
                    let swapped = cache.cas(&m.spaces[ns], b"ctr", cur, cur ^ 0x55).expect("cas");
                    if swapped {
                        m.ctr_all[ns].push(cur ^ 0x55);
                        m.ctr_latest[ns] = Some(cur ^ 0x55);
                    } else if m.strict {
                        // the counter entry was corrupted: it is gone
                        m.ctr_latest[ns] = None;
                    }
                }
            }
            6 if a & 0x40 != 0 => {
                cache.flush_namespace(&m.spaces[ns]);
                let range = if ns == 0 { 0..2 * KEYS } else { KEYS..2 * KEYS };
                for i in range {
                    m.latest[i] = None;
                }
                if ns == 0 {
                    m.ctr_latest = [None, None];
                } else {
                    m.ctr_latest[1] = None;
                }
            }
            7 => {
                let s = cache.stats();
                assert!(
                    s.slots_used <= s.slots_total,
                    "slots_used {} > slots_total {}",
                    s.slots_used,
                    s.slots_total
                );
                assert!(s.ring_used <= s.values_memory_size);
            }
            _ => m.check_get(&cache, ns, k, &mut out),
        }
        m.check_get(&cache, ns, k, &mut out);
    }
    m.check_all(&cache);
});
