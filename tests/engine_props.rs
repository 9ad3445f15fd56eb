//! Property tests: the cache agrees with a model map for any sequence of operations, as long as
//! nothing is evicted (the region is sized so that nothing can be).

use std::collections::HashMap;

use proptest::prelude::*;
use shmcache::engine::{Cache, Config, Namespace, ValueKind};

#[derive(Debug, Clone)]
enum Op {
    Set(u8, u8, Vec<u8>),
    Add(u8, u8, Vec<u8>),
    Replace(u8, u8, Vec<u8>),
    Delete(u8, u8),
    Incr(u8, u8, i64),
    FlushNs(u8),
}

fn op() -> impl Strategy<Value = Op> {
    let ns = 0u8..3;
    let key = 0u8..8;
    let val = proptest::collection::vec(any::<u8>(), 0..600);
    prop_oneof![
        (ns.clone(), key.clone(), val.clone()).prop_map(|(n, k, v)| Op::Set(n, k, v)),
        (ns.clone(), key.clone(), val.clone()).prop_map(|(n, k, v)| Op::Add(n, k, v)),
        (ns.clone(), key.clone(), val).prop_map(|(n, k, v)| Op::Replace(n, k, v)),
        (ns.clone(), key.clone()).prop_map(|(n, k)| Op::Delete(n, k)),
        (ns.clone(), key, -5i64..5).prop_map(|(n, k, d)| Op::Incr(n, k, d)),
        ns.prop_map(Op::FlushNs),
    ]
}

#[derive(Clone, Debug, PartialEq)]
enum V {
    Bytes(Vec<u8>),
    Int(i64),
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]
    #[test]
    fn cache_matches_a_model(ops in proptest::collection::vec(op(), 1..120)) {
        let c = Cache::create(&Config { keys_memory_size: 64 << 10, values_memory_size: 8 << 20, compress_threshold: 64 }).unwrap();
        let spaces = [Namespace::root(), Namespace::new(b"one").unwrap(), Namespace::new(b"two").unwrap()];
        let mut model: HashMap<(u8, u8), V> = HashMap::new();
        let key = |k: u8| format!("key\0{k}").into_bytes();
        for op in ops {
            match op {
                Op::Set(n, k, v) => {
                    // Every third key holds integers so incr has something to work on.
                    if k % 3 == 0 {
                        let i = v.len() as i64;
                        c.set(&spaces[n as usize], &key(k), ValueKind::INT, &i.to_le_bytes(), 0).unwrap();
                        model.insert((n, k), V::Int(i));
                    } else {
                        c.set(&spaces[n as usize], &key(k), ValueKind::STRING, &v, 0).unwrap();
                        model.insert((n, k), V::Bytes(v));
                    }
                }
                Op::Add(n, k, v) => {
                    let added = c.add(&spaces[n as usize], &key(k), ValueKind::STRING, &v, 0).unwrap();
                    prop_assert_eq!(added, !model.contains_key(&(n, k)));
                    model.entry((n, k)).or_insert(V::Bytes(v));
                }
                Op::Replace(n, k, v) => {
                    let replaced = c.replace(&spaces[n as usize], &key(k), ValueKind::STRING, &v, 0).unwrap();
                    prop_assert_eq!(replaced, model.contains_key(&(n, k)));
                    if replaced { model.insert((n, k), V::Bytes(v)); }
                }
                Op::Delete(n, k) => {
                    prop_assert_eq!(c.delete(&spaces[n as usize], &key(k)).unwrap(), model.remove(&(n, k)).is_some());
                }
                Op::Incr(n, k, d) => {
                    let got = c.incr(&spaces[n as usize], &key(k), d).unwrap();
                    let want = match model.get_mut(&(n, k)) {
                        Some(V::Int(i)) => { *i += d; Some(*i) }
                        _ => None,
                    };
                    prop_assert_eq!(got, want);
                }
                Op::FlushNs(n) => {
                    c.flush_namespace(&spaces[n as usize]);
                    if n == 0 { model.clear(); } else { model.retain(|(m, _), _| *m != n); }
                }
            }
            for n in 0..3u8 {
                for k in 0..8u8 {
                    let mut out = Vec::new();
                    let got = c.get(&spaces[n as usize], &key(k), &mut out).unwrap();
                    let got = got.map(|kind| if kind == ValueKind::INT { V::Int(i64::from_le_bytes(out[..8].try_into().unwrap())) } else { V::Bytes(out.clone()) });
                    prop_assert_eq!(got.as_ref(), model.get(&(n, k)));
                }
            }
        }
        prop_assert_eq!(c.stats().validation_failures, 0);
    }
}
