//! `Cache::entries`: the live entries of one namespace, as a read-only walk of the key index.

use shmcache::engine::{Cache, Config, ListedEntry, Namespace, ValueKind};

const STR: ValueKind = ValueKind::STRING;

fn cache(keys: u64, values: u64, threshold: u64) -> Cache {
    Cache::create(&Config {
        keys_memory_size: keys,
        values_memory_size: values,
        compress_threshold: threshold,
    })
    .unwrap()
}

fn keys(listing: &[ListedEntry]) -> Vec<&[u8]> {
    listing.iter().map(|e| e.key.as_slice()).collect()
}

/// The cache's clock (expiries are computed on it).
fn now() -> u64 {
    shmcache::engine::clock_secs()
}

#[test]
fn lists_the_live_keys_of_one_namespace_in_write_order() {
    let c = cache(64 << 10, 1 << 20, 0);
    let (a, b, root) =
        (Namespace::new(b"a").unwrap(), Namespace::new(b"b").unwrap(), Namespace::root());
    assert!(c.entries(&a).is_empty(), "a namespace never written has no entries");
    assert!(c.set(&a, b"one", STR, b"1", 0).unwrap());
    assert!(c.set(&b, b"two", STR, b"22", 0).unwrap());
    assert!(c.set(&root, b"three", STR, b"333", 0).unwrap());
    assert!(c.set(&a, b"four", ValueKind(9), b"4444", 0).unwrap());
    assert!(c.set(&a, b"five", STR, b"55555", 0).unwrap());
    // Rewritten: listed once, at its new place in the write order.
    assert!(c.set(&a, b"one", STR, b"111111", 0).unwrap());
    assert_eq!(keys(&c.entries(&a)), [b"four".as_slice(), b"five", b"one"]);
    assert_eq!(keys(&c.entries(&b)), [b"two".as_slice()]);
    assert_eq!(keys(&c.entries(&root)), [b"three".as_slice()]);

    let listing = c.entries(&a);
    let four = &listing[0];
    assert_eq!((four.kind, four.value_len, four.expires_at), (ValueKind(9), 4, 0));
    // 64-byte header + "a" + "four" + 4 bytes of value, padded to 8.
    assert_eq!(four.entry_len, 80);
    assert_eq!(listing[2].value_len, 6);
    assert!(
        listing[0].written_at < listing[1].written_at
            && listing[1].written_at < listing[2].written_at
    );
}

#[test]
fn deleted_expired_and_flushed_entries_are_not_listed() {
    let c = cache(64 << 10, 1 << 20, 0);
    let (a, b) = (Namespace::new(b"a").unwrap(), Namespace::new(b"b").unwrap());
    assert!(c.set(&a, b"kept", STR, b"v", 0).unwrap());
    assert!(c.set(&a, b"deleted", STR, b"v", 0).unwrap());
    assert!(c.set(&a, b"dead", STR, b"v", -1).unwrap());
    assert!(c.set(&a, b"with-ttl", STR, b"v", 100).unwrap());
    assert!(c.delete(&a, b"deleted").unwrap());
    let listing = c.entries(&a);
    assert_eq!(keys(&listing), [b"kept".as_slice(), b"with-ttl"]);
    let expires = listing[1].expires_at;
    assert!((now() + 99..=now() + 100).contains(&expires), "expires_at {expires}");

    assert!(c.set(&b, b"other", STR, b"v", 0).unwrap());
    c.flush_namespace(&a);
    assert!(c.entries(&a).is_empty());
    assert_eq!(keys(&c.entries(&b)), [b"other".as_slice()]);
    c.flush_all();
    assert!(c.entries(&b).is_empty());
    assert!(c.set(&a, b"after", STR, b"v", 0).unwrap());
    assert_eq!(keys(&c.entries(&a)), [b"after".as_slice()]);
}

#[test]
fn compressed_values_report_their_length_before_compression() {
    let c = cache(64 << 10, 1 << 20, 64);
    let ns = Namespace::new(b"z").unwrap();
    let value = vec![b'x'; 10_000];
    assert!(c.set(&ns, b"big", STR, &value, 0).unwrap());
    let listing = c.entries(&ns);
    assert_eq!(listing.len(), 1);
    assert_eq!(listing[0].value_len, 10_000);
    assert!(
        listing[0].entry_len < 1_000,
        "the ring holds the compressed value: {}",
        listing[0].entry_len
    );
}

#[test]
fn entries_the_ring_has_overwritten_are_not_listed() {
    // 64 KiB ring: 2,000 entries of about 100 bytes go round it several times.
    let c = cache(256 << 10, 64 << 10, 0);
    let ns = Namespace::new(b"r").unwrap();
    for i in 0..2000 {
        assert!(c.set(&ns, format!("k{i}").as_bytes(), STR, &[b'v'; 40], 0).unwrap());
    }
    let listing = c.entries(&ns);
    let mut out = Vec::new();
    assert!(!listing.is_empty() && listing.len() < 2000, "{} listed", listing.len());
    for e in &listing {
        assert!(
            c.get(&ns, &e.key, &mut out).unwrap().is_some(),
            "{:?} is listed but not readable",
            e.key
        );
    }
    let readable = (0..2000).filter(|i| c.exists(&ns, format!("k{i}").as_bytes()).unwrap()).count();
    assert_eq!(listing.len(), readable, "every readable key is listed");
}

#[test]
fn a_listing_counts_nothing() {
    let c = cache(64 << 10, 1 << 20, 0);
    let ns = Namespace::new(b"a").unwrap();
    assert!(c.set(&ns, b"k", STR, b"v", 0).unwrap());
    let before = c.stats();
    assert_eq!(c.entries(&ns).len(), 1);
    let after = c.stats();
    assert_eq!(
        (before.hits, before.misses, before.validation_failures),
        (after.hits, after.misses, after.validation_failures)
    );
}

#[test]
fn peek_reads_like_get_without_counting() {
    let c = cache(64 << 10, 1 << 20, 0);
    let ns = Namespace::new(b"a").unwrap();
    assert!(c.set(&ns, b"k", STR, b"value", 0).unwrap());
    assert!(c.set(&ns, b"dead", STR, b"value", -1).unwrap());
    let before = c.stats();
    let mut out = Vec::new();
    assert_eq!(c.peek_into(&ns, b"k", &mut out).unwrap(), Some(STR));
    assert_eq!(out, b"value");
    let mut out = Vec::new();
    assert_eq!(c.peek_into(&ns, b"missing", &mut out).unwrap(), None);
    assert_eq!(c.peek_into(&ns, b"dead", &mut out).unwrap(), None);
    let after = c.stats();
    assert_eq!(
        (before.hits, before.misses, before.expired),
        (after.hits, after.misses, after.expired)
    );
}
