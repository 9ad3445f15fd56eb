//! Where APCu keys live and the operations on one key that every apcu_* entry point shares
//! (the functions, the hand-written handlers, `apcu_entry`, the iterator).

use ext_php_rs::prelude::*;
use ext_php_rs::types::Zval;
use std::sync::OnceLock;

use crate::engine::{Cache, Error, Namespace, ValueKind, MAX_KEY_LEN};
use crate::php::region::cache;
use crate::php::warn::warning;
use crate::php::{codec, ops};

pub(super) fn apcu_namespace() -> &'static Namespace {
    static NS: OnceLock<Namespace> = OnceLock::new();
    NS.get_or_init(|| {
        Namespace::new(b"apcu").expect("a short name").recording_store_times().local()
    })
}

/// Where the empty key lives (under the key "-"): a name no `apcu_*` key can reach.
pub(super) fn empty_key_namespace() -> &'static Namespace {
    static NS: OnceLock<Namespace> = OnceLock::new();
    NS.get_or_init(|| {
        Namespace::new(b"apcu\0empty-key").expect("a short name").recording_store_times().local()
    })
}

/// The namespace and shmcache key an APCu key is stored under.
pub(super) fn locate(key: &[u8]) -> (&'static Namespace, &[u8]) {
    if key.is_empty() {
        (empty_key_namespace(), b"-")
    } else {
        (apcu_namespace(), key)
    }
}

/// The two namespaces APCu entries live in: every key but the empty one, and the empty key.
pub(super) fn namespaces() -> (&'static Namespace, &'static Namespace) {
    (apcu_namespace(), empty_key_namespace())
}

/// Reads an APCu key's value for a listing, without counting a hit or a miss.
pub(super) fn peek(key: &[u8], out: &mut Zval) -> PhpResult<bool> {
    if key.len() > MAX_KEY_LEN {
        return Ok(false);
    }
    let (ns, key) = locate(key);
    ops::peek_into(ns, key, out)
}

/// An engine refusal (a key over 4096 bytes, a value too large, contention): a warning and a
/// failed operation, never an exception.
pub(super) fn failed_with_warning<T: Default>(e: Error) -> T {
    warning(e);
    T::default()
}

pub(super) fn fetch_one(key: &[u8], out: &mut Zval) -> PhpResult<bool> {
    if key.len() > MAX_KEY_LEN {
        return Ok(false);
    }
    let (ns, key) = locate(key);
    ops::fetch_local_into(ns, key, out)
}

pub(super) fn exists_one(cache: &Cache, key: &[u8]) -> bool {
    if key.len() > MAX_KEY_LEN {
        return false;
    }
    let (ns, key) = locate(key);
    cache.exists(ns, key).unwrap_or_else(failed_with_warning)
}

pub(super) fn delete_one(cache: &Cache, key: &[u8]) -> bool {
    if key.len() > MAX_KEY_LEN {
        return false;
    }
    let (ns, key) = locate(key);
    cache.delete(ns, key).unwrap_or_else(failed_with_warning)
}

/// Stores one value; false (after a warning) when it holds a resource or shmcache refuses it.
/// An exception from serialize() (a Closure) propagates, as in APCu.
#[inline]
pub(super) fn store_one(
    key: &[u8],
    value: &Zval,
    ttl: i64,
    exclusive: bool,
    what: &dyn Fn() -> String,
) -> PhpResult<bool> {
    if codec::holds_resource(value) {
        warning("Cannot store resources in apcu cache");
        return Ok(false);
    }
    let encoded = codec::encode(value, what)?;
    let Some(cache) = cache() else { return Ok(false) };
    let (ns, key) = locate(key);
    let r = if exclusive {
        cache.add(ns, key, encoded.kind, encoded.bytes(), ttl)
    } else {
        cache.set(ns, key, encoded.kind, encoded.bytes(), ttl)
    };
    Ok(r.unwrap_or_else(failed_with_warning))
}

/// Adds `delta` to an integer; a missing key is first created (with `ttl`) as 0, as in APCu.
/// None when the key holds something other than an integer.
#[inline]
pub(super) fn update(key: &[u8], delta: i64, ttl: i64) -> Option<i64> {
    let cache = cache()?;
    let (ns, key) = locate(key);
    match cache.incr(ns, key, delta) {
        Ok(Some(n)) => return Some(n),
        Ok(None) => {}
        Err(e) => return failed_with_warning(e),
    }
    // Missing (or not an integer, which the add leaves alone): one attempt to create it, then
    // one more increment, which also covers another process creating it first.
    match cache.add(ns, key, ValueKind::INT, &delta.to_le_bytes(), ttl) {
        Ok(true) => return Some(delta),
        Ok(false) => {}
        Err(e) => return failed_with_warning(e),
    }
    cache.incr(ns, key, delta).unwrap_or_else(failed_with_warning)
}
