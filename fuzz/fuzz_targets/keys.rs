//! Key and namespace handling against a model: arbitrary binary keys and namespaces (empty, at
//! and past the length limits, differing in one byte, sharing hash tags) through every engine
//! operation. Must never panic or crash, an invalid key or namespace must be refused with the
//! documented error, and every answer must be what a map from (namespace, key) to value says:
//! a hit is always this key's latest value. A miss where the model has a value is allowed only
//! if the cache evicted something meanwhile: a key (its `kicks` counter moved) or the key's
//! namespace (its generation changed: one region serves every input, so the namespace table
//! fills up with the names of earlier inputs and evicts the oldest).
//!
//! Input: byte 0 = how many keys and namespaces to build; then their bytes (see `Input::name`);
//! then operations, 3 bytes each: [op, key index, namespace index].

#![no_main]

use std::collections::HashMap;

use libfuzzer_sys::fuzz_target;
use shmcache::engine::{
    Cache, Config, Error, Namespace, ValueKind, MAX_KEY_LEN, MAX_NAMESPACE_LEN,
};

const STRING: ValueKind = ValueKind::STRING;

thread_local! {
    // One region for every input (a fresh one per input would spend the run in mmap); each
    // input starts with a full flush, which makes everything earlier dead in O(1). The ring is
    // far larger than what one input writes, so an input's own entries are never recycled.
    static CACHE: Cache = Cache::create(&Config {
        keys_memory_size: 1 << 20,
        values_memory_size: 32 << 20,
        compress_threshold: 256,
    })
    .expect("create cache");
}

struct Input<'a>(&'a [u8]);

impl Input<'_> {
    fn byte(&mut self) -> Option<u8> {
        let (&b, rest) = self.0.split_first()?;
        self.0 = rest;
        Some(b)
    }

    /// A key or namespace: selector 0 = empty, 1 = exactly `limit` bytes, 2 = one byte past the
    /// limit, otherwise up to 31 bytes taken from the input (any bytes, NUL and non-UTF-8
    /// included). Long names repeat a taken byte so they differ from each other.
    fn name(&mut self, limit: usize) -> Vec<u8> {
        let selector = self.byte().unwrap_or(3);
        match selector % 8 {
            0 => Vec::new(),
            1 => vec![self.byte().unwrap_or(b'x'); limit],
            2 => vec![self.byte().unwrap_or(b'y'); limit + 1],
            _ => {
                let n = (selector / 8) as usize;
                (0..n).map_while(|_| self.byte()).collect()
            }
        }
    }
}

#[derive(Clone, PartialEq, Eq, Debug)]
enum Stored {
    Bytes(Vec<u8>),
    Int(i64),
}

fn key_error(key: &[u8]) -> Option<Error> {
    if key.is_empty() {
        Some(Error::EmptyKey)
    } else if key.len() > MAX_KEY_LEN {
        Some(Error::KeyTooLong { len: key.len(), max: MAX_KEY_LEN })
    } else {
        None
    }
}

fuzz_target!(|data: &[u8]| {
    CACHE.with(|cache| run(cache, data));
});

fn run(cache: &Cache, data: &[u8]) {
    cache.flush_all();
    let mut input = Input(data);
    let count = (input.byte().unwrap_or(0) % 6 + 1) as usize;
    let keys: Vec<Vec<u8>> = (0..count + 2).map(|_| input.name(MAX_KEY_LEN)).collect();
    let mut spaces: Vec<Namespace> = vec![Namespace::root()];
    for _ in 0..count.min(3) {
        let name = input.name(MAX_NAMESPACE_LEN);
        match Namespace::new(&name) {
            Ok(ns) => {
                assert!(name.len() <= MAX_NAMESPACE_LEN);
                assert_eq!(ns.name(), &name[..]);
                spaces.push(ns);
            }
            Err(e) => {
                assert!(
                    name.len() > MAX_NAMESPACE_LEN,
                    "namespace of {} bytes refused: {e}",
                    name.len()
                );
                assert_eq!(e, Error::NamespaceTooLong { len: name.len(), max: MAX_NAMESPACE_LEN });
            }
        }
    }
    // Two namespaces with equal names are the same namespace: key the model by name. Each
    // value is kept with its namespace's generation at the time it was stored.
    let mut model: HashMap<(Vec<u8>, Vec<u8>), (Stored, u64)> = HashMap::new();
    let kicks_at_start = cache.stats().kicks;
    // Whether the cache may have lost a value stored under `generation` of `ns` (only asked when
    // an answer disagrees with the model: stats() reads the whole index).
    let lost_since = |generation: u64, ns: &Namespace| {
        cache.stats().kicks != kicks_at_start
            || (!ns.is_root() && cache.namespace_generation(ns) != generation)
    };
    let lost = |model: &HashMap<(Vec<u8>, Vec<u8>), (Stored, u64)>,
                slot: &(Vec<u8>, Vec<u8>),
                ns: &Namespace| {
        model.get(slot).is_some_and(|&(_, generation)| lost_since(generation, ns))
    };
    let mut seq = 0u64;
    let mut out = Vec::new();
    while let (Some(op), Some(k), Some(n)) = (input.byte(), input.byte(), input.byte()) {
        let key = &keys[k as usize % keys.len()];
        let ns = &spaces[n as usize % spaces.len()];
        let slot = (ns.name().to_vec(), key.clone());
        seq += 1;
        // Values long enough now and then to be compressed, and tagged with their sequence.
        let value: Vec<u8> = {
            let mut v = seq.to_le_bytes().to_vec();
            v.extend(std::iter::repeat(op).take(if op & 0x40 != 0 { 300 } else { 3 }));
            v
        };
        let expect_err = key_error(key);
        match op % 9 {
            0 | 1 => {
                let r = cache.set(ns, key, STRING, &value, 0);
                match &expect_err {
                    Some(e) => assert_eq!(r.as_ref().err(), Some(e)),
                    None => {
                        assert_eq!(r, Ok(true));
                        model.insert(slot, (Stored::Bytes(value), cache.namespace_generation(ns)));
                    }
                }
            }
            2 => {
                let r = cache.add(ns, key, STRING, &value, 0);
                match &expect_err {
                    Some(e) => assert_eq!(r.as_ref().err(), Some(e)),
                    None => {
                        let added = r.expect("add");
                        if model.contains_key(&slot) {
                            assert!(!added || lost(&model, &slot, ns), "add over a live key");
                        } else {
                            assert!(added, "add of an absent key failed");
                        }
                        if added {
                            model.insert(
                                slot,
                                (Stored::Bytes(value), cache.namespace_generation(ns)),
                            );
                        }
                    }
                }
            }
            3 => {
                let r = cache.replace(ns, key, STRING, &value, 0);
                match &expect_err {
                    Some(e) => assert_eq!(r.as_ref().err(), Some(e)),
                    None => {
                        let replaced = r.expect("replace");
                        if !model.contains_key(&slot) {
                            assert!(!replaced, "replace of an absent key succeeded");
                        }
                        if replaced {
                            model.insert(
                                slot,
                                (Stored::Bytes(value), cache.namespace_generation(ns)),
                            );
                        } else {
                            assert!(
                                !model.contains_key(&slot) || lost(&model, &slot, ns),
                                "replace of a live key failed"
                            );
                            model.remove(&slot);
                        }
                    }
                }
            }
            4 | 5 => {
                let r = cache.get(ns, key, &mut out);
                match &expect_err {
                    Some(e) => assert_eq!(r.as_ref().err(), Some(e)),
                    None => match (r.expect("get"), model.get(&slot).map(|(v, _)| v)) {
                        (Some(kind), Some(Stored::Bytes(v))) => {
                            assert_eq!(kind, STRING);
                            assert_eq!(&out, v, "wrong value for a key");
                        }
                        (Some(kind), Some(Stored::Int(i))) => {
                            assert_eq!(kind, ValueKind::INT);
                            assert_eq!(out, i.to_le_bytes(), "wrong counter value");
                        }
                        (Some(_), None) => panic!("a hit for a key that holds nothing"),
                        (None, Some(_)) => {
                            assert!(lost(&model, &slot, ns), "a stored key was lost");
                            model.remove(&slot);
                        }
                        (None, None) => {}
                    },
                }
            }
            6 => {
                let r = cache.delete(ns, key);
                match &expect_err {
                    Some(e) => assert_eq!(r.as_ref().err(), Some(e)),
                    None => {
                        let had = model.remove(&slot);
                        let deleted = r.expect("delete");
                        assert!(
                            deleted == had.is_some()
                                || had.is_some_and(|(_, generation)| lost_since(generation, ns)),
                            "delete disagrees with the model"
                        );
                    }
                }
            }
            7 => {
                // A counter: set as an int, then add to it.
                let r = cache.set(ns, key, ValueKind::INT, &5i64.to_le_bytes(), 0);
                match &expect_err {
                    Some(e) => assert_eq!(r.as_ref().err(), Some(e)),
                    None => {
                        assert_eq!(r, Ok(true));
                        let step = i64::from(op) - 100;
                        let r = cache.incr(ns, key, step).expect("incr");
                        assert_eq!(r, Some(5 + step));
                        model.insert(slot, (Stored::Int(5 + step), cache.namespace_generation(ns)));
                    }
                }
            }
            _ => {
                if op & 0x80 != 0 {
                    cache.flush_namespace(ns);
                    model.retain(|(space, _), _| !ns.is_root() && space != ns.name());
                } else {
                    let r = cache.exists(ns, key);
                    match &expect_err {
                        Some(e) => assert_eq!(r.as_ref().err(), Some(e)),
                        None => {
                            let live = r.expect("exists");
                            let had = model.contains_key(&slot);
                            assert!(
                                live == had || (had && lost(&model, &slot, ns)),
                                "exists disagrees with the model"
                            );
                        }
                    }
                }
            }
        }
    }
}
