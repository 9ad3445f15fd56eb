//! `Cache::set_if_current`: a write that sits invisible in its slot while its guard decides,
//! and loses to a delete made meanwhile (tiered mode fills its near copy this way).

use std::cell::Cell;

use shmcache::engine::{Cache, Config, Namespace, ValueKind};

const STRING: ValueKind = ValueKind::STRING;

fn cache() -> Cache {
    Cache::create(&Config {
        keys_memory_size: 1 << 16,
        values_memory_size: 1 << 20,
        compress_threshold: 0,
    })
    .unwrap()
}

fn get(c: &Cache, key: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    c.get(&Namespace::root(), key, &mut out).unwrap().map(|_| out)
}

/// The key "k" live with "before", or absent.
fn start_with(c: &Cache, existing: bool) {
    let root = Namespace::root();
    if existing {
        c.set(&root, b"k", STRING, b"before", 0).unwrap();
    } else {
        c.delete(&root, b"k").unwrap();
    }
}

#[test]
fn the_value_is_invisible_while_the_guard_decides_then_published_when_it_agrees() {
    let c = cache();
    let root = Namespace::root();
    for existing in [false, true] {
        start_with(&c, existing);
        let seen = Cell::new(Some(b"sentinel".to_vec()));
        let stored = c.set_if_current(&root, b"k", STRING, b"after", 0, || {
            seen.set(get(&c, b"k"));
            true
        });
        assert_eq!(stored, Ok(true));
        assert_eq!(
            seen.take(),
            None,
            "readable before its guard agreed (existing key: {existing})"
        );
        assert_eq!(get(&c, b"k").as_deref(), Some(&b"after"[..]));
    }
}

#[test]
fn a_guard_that_says_no_leaves_nothing_readable() {
    let c = cache();
    let root = Namespace::root();
    for existing in [false, true] {
        start_with(&c, existing);
        assert_eq!(c.set_if_current(&root, b"k", STRING, b"stale", 0, || false), Ok(false));
        assert_eq!(get(&c, b"k"), None, "existing key: {existing}");
        // The key's slot is free again: an ordinary write lands at once.
        assert_eq!(c.set(&root, b"k", STRING, b"next", 0), Ok(true));
        assert_eq!(get(&c, b"k").as_deref(), Some(&b"next"[..]));
    }
}

#[test]
fn a_delete_while_the_guard_decides_wins() {
    let c = cache();
    let root = Namespace::root();
    for existing in [false, true] {
        start_with(&c, existing);
        let stored = c.set_if_current(&root, b"k", STRING, b"late", 0, || {
            c.delete(&root, b"k").unwrap();
            true
        });
        assert_eq!(stored, Ok(false), "existing key: {existing}");
        assert_eq!(
            get(&c, b"k"),
            None,
            "a write older than the delete published after it (existing key: {existing})"
        );
    }
}
