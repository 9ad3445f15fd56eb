//! Where APCu keys live and the operations on one key that every apcu_* entry point shares
//! (the functions, the hand-written handlers, `apcu_entry`, the iterator).

use ext_php_rs::ffi::zend_string;
use ext_php_rs::prelude::*;
use ext_php_rs::types::Zval;
use std::ptr::NonNull;
use std::sync::OnceLock;

use crate::engine::{string_hash, Cache, Error, Namespace, ValueKind, WriteMode, MAX_KEY_LEN};
use crate::php::args::{zend_str_hash_raw, zval_string};
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

/// An APCu key as a function was given it: its bytes and, when it came as a PHP string, that
/// string, whose hash PHP keeps in it (so a call does not hash the key again).
#[derive(Clone, Copy)]
pub(super) struct ApcuKey<'a> {
    bytes: &'a [u8],
    /// PHP's own pointer to the string `bytes` are the contents of, when the key is one: its
    /// hash is read from it (and kept in it).
    /// (NonNull: the Option then takes no word of its own.)
    string: Option<NonNull<zend_string>>,
}

impl<'a> ApcuKey<'a> {
    pub(super) fn bytes(bytes: &'a [u8]) -> ApcuKey<'a> {
        ApcuKey { bytes, string: None }
    }

    /// The key a string zval holds; None for any other zval.
    pub(super) fn string(zval: &'a Zval) -> Option<ApcuKey<'a>> {
        let s = NonNull::new(zval_string(zval)?)?;
        // SAFETY: the zval's live string, which the zval (borrowed for 'a) keeps alive.
        let bytes = unsafe { crate::php::hash::contents(s.as_ptr()) };
        Some(ApcuKey { bytes, string: Some(s) })
    }

    /// Longer than the engine takes: absent for a read or a delete (as APCu has no limit), an
    /// engine error for a write.
    fn too_long(self) -> bool {
        self.bytes.len() > MAX_KEY_LEN
    }

    /// Where the engine finds it: namespace, key and the key's `string_hash`.
    #[inline(always)]
    fn located(self) -> (&'static Namespace, &'a [u8], u64) {
        let (ns, key) = locate(self.bytes);
        let hash = match self.string {
            // (The empty key is stored as "-": its own hash.)
            // SAFETY: PHP's own pointer to the live string whose contents `bytes` borrows.
            Some(s) if !self.bytes.is_empty() => unsafe { zend_str_hash_raw(s.as_ptr()) },
            _ => string_hash(key),
        };
        (ns, key, hash)
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

#[inline]
pub(super) fn fetch_one(key: ApcuKey<'_>, out: &mut Zval) -> PhpResult<bool> {
    if key.too_long() {
        return Ok(false);
    }
    let (ns, key, hash) = key.located();
    ops::fetch_local_hashed_into(ns, key, hash, out)
}

pub(super) fn exists_one(cache: &Cache, key: &[u8]) -> bool {
    if key.len() > MAX_KEY_LEN {
        return false;
    }
    let (ns, key) = locate(key);
    cache.exists(ns, key).unwrap_or_else(failed_with_warning)
}

#[inline]
pub(super) fn delete_one(cache: &Cache, key: ApcuKey<'_>) -> bool {
    if key.too_long() {
        return false;
    }
    let (ns, key, hash) = key.located();
    cache.delete_hashed(ns, key, hash).unwrap_or_else(failed_with_warning)
}

/// Stores one value; false (after a warning) when it holds a resource or shmcache refuses it.
/// An exception from serialize() (a Closure) propagates, as in APCu.
#[inline]
pub(super) fn store_one(
    key: ApcuKey<'_>,
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
    let (ns, key, hash) = key.located();
    let mode = if exclusive { WriteMode::Add } else { WriteMode::Set };
    let r = cache.write_hashed(ns, key, hash, mode, encoded.kind, encoded.bytes(), ttl);
    Ok(r.unwrap_or_else(failed_with_warning))
}

/// Adds `delta` to an integer; a missing key is first created (with `ttl`) as 0, as in APCu.
/// None when the key holds something other than an integer.
// The increment of a key that is there inline, the creation out of line, as `shmcache_incr`
// has it (callgrind apcu_inc: 945 -> 912 instructions; 15.71-16.35 -> 16.29-16.60 M/s in
// alternating runs). With `inc_dec` inlined into its handler as well: 872 instructions but
// 14.99-15.38 M/s, not kept.
#[inline(always)]
pub(super) fn update(key: ApcuKey<'_>, delta: i64, ttl: i64) -> Option<i64> {
    let cache = cache()?;
    let (ns, key, hash) = key.located();
    match cache.incr_hashed(ns, key, hash, delta) {
        Ok(Some(n)) => Some(n),
        Ok(None) => create_then_update(cache, ns, key, hash, delta, ttl),
        Err(e) => failed_with_warning(e),
    }
}

/// `update` of a key that is missing (or not an integer, which the add leaves alone): one
/// attempt to create it, then one more increment, which also covers another process creating
/// it first.
#[cold]
#[inline(never)]
fn create_then_update(
    cache: &Cache,
    ns: &Namespace,
    key: &[u8],
    hash: u64,
    delta: i64,
    ttl: i64,
) -> Option<i64> {
    match cache.write_hashed(
        ns,
        key,
        hash,
        WriteMode::Add,
        ValueKind::INT,
        &delta.to_le_bytes(),
        ttl,
    ) {
        Ok(true) => return Some(delta),
        Ok(false) => {}
        Err(e) => return failed_with_warning(e),
    }
    cache.incr_hashed(ns, key, hash, delta).unwrap_or_else(failed_with_warning)
}
