//! The operations behind both the `shmcache_*` functions and the `ShmCache` methods. `func` is
//! the PHP-visible name used in error messages ("shmcache_get", "ShmCache::get").

use ext_php_rs::boxed::ZBox;
use ext_php_rs::exception::PhpException;
use ext_php_rs::prelude::PhpResult;
use std::marker::PhantomData;

use ext_php_rs::ffi::{zend_string, IS_STRING};
use ext_php_rs::types::{ZendHashTable, Zval};

use super::args::{
    arg, array_key_bytes, key_bytes, key_string_hash, plain_string_key, type_error, type_name,
    unchecked_key_bytes, value_error, zend_str_hash_raw, ArrayArg, Found, IntArg, KeyBytes,
};
use super::batch;
use super::cache;
use super::codec;
use super::hash::{self, HashBuilder, Key};
use super::kinds;
use super::sink::ZvalSink;
use super::tier;
use super::warn;
use crate::engine::{Cache, Error, Namespace, ValueKind, ValueSink, WriteMode, MAX_KEY_LEN};
use crate::tier::Near;

/// An engine error as PHP sees it: a caller's bad key is a ValueError, any other refusal (a
/// value too large, contention) a warning and `false`.
///
/// The warning may run a user error handler, which may end the request with a fatal error
/// that longjmps past every Rust frame: `warn::warning` copies the message to the stack and
/// drops the error before raising it, and callers hold nothing that needs dropping while they
/// call this (keys are `KeyBytes`, encoded values are dropped first).
pub(super) fn error_or_warning(e: Error) -> PhpResult<bool> {
    match e {
        Error::EmptyKey | Error::KeyTooLong { .. } | Error::NamespaceTooLong { .. } => {
            Err(value_error(e.to_string()))
        }
        other => {
            // (Dropped before PHP runs the error handler: see warn.rs.)
            warn::warning(other);
            Ok(false)
        }
    }
}

/// Where a call goes: this region alone, or through the tier in front of it (`super::tier`,
/// which also refuses for a process without the tier that must stay out of the region). Picked
/// once per call (per key of a `_multi` write, whose encoding of each value may run user code
/// for as long as it likes: a mark may come between two keys; `delete_multi`'s batch, which
/// runs none, once), by the one test that call needs.
#[derive(Clone, Copy)]
enum Backend {
    Local(&'static Cache),
    Tiered(&'static Cache),
}

impl Backend {
    /// For a call that only reads: tiered whenever this process uses the tier.
    #[inline(always)]
    fn for_read() -> Option<Backend> {
        let cache = cache()?;
        Some(if tier::on() { Backend::Tiered(cache) } else { Backend::Local(cache) })
    }

    /// For a call that writes: also tiered when a process without the tier finds the region
    /// marked since its request started (`tier::on_for_write`).
    #[inline(always)]
    fn for_write() -> Option<Backend> {
        cache().map(Backend::write_to)
    }

    /// `for_write` on a region the caller has.
    #[inline(always)]
    fn write_to(cache: &'static Cache) -> Backend {
        if tier::on_for_write(cache) {
            Backend::Tiered(cache)
        } else {
            Backend::Local(cache)
        }
    }
}

/// Reads one key into `out`, which must hold nothing that needs releasing (null); false on a
/// miss. Strings and numbers are written into `out` field by field: building a zval with
/// ext-php-rs' setters and then moving it costs a store-forwarding stall on every get.
/// Always inlined, so that the handler makes the tier test and calls the read itself (LLVM
/// otherwise came to inline the read into this instead, one call level the same but a get
/// 864 -> 870 instructions, callgrind).
#[inline(always)]
pub(super) fn fetch_into(
    ns: &Namespace,
    key: &[u8],
    key_string_hash: u64,
    out: &mut Zval,
) -> PhpResult<bool> {
    // `Backend::for_read`'s test, made before the region is looked up: a tiered near read
    // first checks that the request trusts its near copy.
    if tier::on() {
        return fetch_near_into(ns, key, out);
    }
    fetch_local_hashed_into(ns, key, key_string_hash, out)
}

/// `fetch_into` in tiered mode. A near hit, once the request trusts its near copy (a load and
/// a clock read, `tier::near_readable`), costs what a get without the tier costs plus a count;
/// the rest of the tier (the sync, a read from Redis, a failure to report) is out of line.
/// (Out of line itself, so the path without the tier stays as it was.)
#[inline(never)]
fn fetch_near_into(ns: &Namespace, key: &[u8], out: &mut Zval) -> PhpResult<bool> {
    if !tier::near_readable() {
        return fetch_tiered_into(ns, key, out);
    }
    let Some(cache) = cache() else { return Ok(false) };
    let mut sink = ZvalSink::new();
    match tier::read_near(cache, ns, key, &mut sink) {
        Near::Hit(kind) => take_value(kind, &mut sink, out),
        Near::Absent => Ok(false),
        Near::Miss => fetch_from_redis_into(cache, ns, key, &mut sink, out),
    }
}

/// `fetch_into` in tiered mode while the request does not trust its near copy yet (its first
/// call syncs) or at all (Redis failed, or the process stays out of the region).
#[cold]
#[inline(never)]
fn fetch_tiered_into(ns: &Namespace, key: &[u8], out: &mut Zval) -> PhpResult<bool> {
    let Some(cache) = cache() else { return Ok(false) };
    let mut sink = ZvalSink::new();
    let hit = tier::get_into(cache, ns, key, &mut sink);
    tier::warn_pending();
    match hit {
        Some(kind) => take_value(kind, &mut sink, out),
        None => Ok(false),
    }
}

/// A near miss in a trusted request: the value from Redis (which also fills the near copy).
#[cold]
#[inline(never)]
fn fetch_from_redis_into(
    cache: &crate::engine::Cache,
    ns: &Namespace,
    key: &[u8],
    sink: &mut ZvalSink,
    out: &mut Zval,
) -> PhpResult<bool> {
    let hit = tier::fetch_into_sink(cache, ns, key, sink);
    tier::warn_pending();
    match hit {
        Some(kind) => take_value(kind, sink, out),
        None => Ok(false),
    }
}

/// `fetch_into` from this region only, also in tiered mode (the apcu_* functions: APCu has
/// no shared tier), of a key whose string hash the caller has (`args::key_string_hash`).
#[inline]
pub(super) fn fetch_local_hashed_into(
    ns: &Namespace,
    key: &[u8],
    key_string_hash: u64,
    out: &mut Zval,
) -> PhpResult<bool> {
    let Some(cache) = cache() else { return Ok(false) };
    let mut sink = ZvalSink::new();
    // Counted in this process until the request ends (`Cache::get_into_deferred`): PHP runs
    // one request at a time per process here (no ZTS, build.rs).
    match cache.get_into_deferred(ns, key, key_string_hash, &mut sink) {
        Ok(Some(kind)) => take_value(kind, &mut sink, out),
        Ok(None) => Ok(false),
        Err(e) => Err(value_error(e.to_string())),
    }
}

/// `fetch_into` that leaves the hit and miss counters alone (`Cache::peek_into`).
pub(super) fn peek_into(ns: &Namespace, key: &[u8], out: &mut Zval) -> PhpResult<bool> {
    let Some(cache) = cache() else { return Ok(false) };
    let mut sink = ZvalSink::new();
    match cache.peek_into(ns, key, &mut sink) {
        Ok(Some(kind)) => take_value(kind, &mut sink, out),
        Ok(None) => Ok(false),
        Err(e) => Err(value_error(e.to_string())),
    }
}

/// Turns the value a read left in `sink` into `out` (null), emptying the sink.
#[inline(always)]
fn take_value(kind: ValueKind, sink: &mut ZvalSink, out: &mut Zval) -> PhpResult<bool> {
    match sink.take_string() {
        // The sink's string is always one it allocated (`ZvalSink::buffer`).
        Some(s) if kind == kinds::STRING => {
            codec::put_new_string(out, s);
            Ok(true)
        }
        // unserialize() runs user code, which may end in a fatal error that skips our frames:
        // release the sink's buffer first; the string is PHP's, freed with the request.
        Some(s) => {
            sink.release_buffer();
            codec::decode_serialized(kind, s, out)
        }
        None => {
            let r = match codec::decode_number(kind, sink.bytes(), out) {
                Some(hit) => Ok(hit),
                None => codec::decode_into(kind, sink.bytes(), out),
            };
            sink.discard();
            r
        }
    }
}

/// The value of `key`, or false (`found` tells them apart), written into `out` (null).
/// Inlined into each handler, as is the engine's read under it: a get 934 -> 870 instructions
/// for the two (callgrind, docs/benchmarks.md).
#[inline(always)]
pub fn get_into(
    ns: &Namespace,
    func: &str,
    key: &Zval,
    found: &mut Found,
    out: &mut Zval,
) -> PhpResult<()> {
    let bytes = match plain_string_key(key) {
        Some(bytes) => bytes,
        None => key_bytes(key, &arg(func, 1, "key"))?,
    };
    let hit = fetch_into(ns, &bytes, key_string_hash(key, &bytes), out)?;
    found.set(hit);
    if !hit {
        codec::put_false(out);
    }
    Ok(())
}

pub fn get(ns: &Namespace, func: &str, key: &Zval, found: &mut Found) -> PhpResult<Zval> {
    let mut out = Zval::new();
    get_into(ns, func, key, found, &mut out)?;
    Ok(out)
}

pub fn get_multi(ns: &Namespace, func: &str, keys: ArrayArg) -> PhpResult<ZBox<ZendHashTable>> {
    let what = arg(func, 1, "keys");
    let keys = keys.get(&what)?;
    let element = || format!("{} element", what());
    // Every key is checked before anything is read, so a bad one leaves no trace in the counters.
    // Most calls pass plain strings only (no reference, a valid length): one tight pass tells
    // (`zend_str` sees through a reference, hence the separate test); the others are checked
    // key by key, every error reported by key_bytes.
    let mut referenced = false;
    let all_plain = hash::values(keys).all(PlainKey::is_plain);
    if !all_plain {
        hash::try_for_each(keys, |_, k| {
            referenced |= k.is_reference();
            key_bytes(k.dereference(), &element).map(drop)
        })?;
    }
    let mut out = ZendHashTable::with_capacity(keys.len() as u32);
    let cache = match Backend::for_read() {
        None => return Ok(out),
        Some(Backend::Tiered(_)) => return get_multi_tiered(ns, keys, out),
        Some(Backend::Local(cache)) => cache,
    };
    if all_plain {
        // The common call: an array of strings, each the key and the result's key as it is.
        let batch = hash::values(keys).filter_map(PlainKey::of);
        read_batch(cache, ns, batch, &mut out)?;
        return Ok(out);
    }
    // The array itself cannot change while we read (it is ours by value), but a key held by
    // reference can: unserialize() of an earlier value runs user code (__wakeup), which may
    // assign the referenced variable and free the string a waiting key points at. Such keys
    // are read from a copy that holds each string (PHP memory, released with the request even
    // if user code bails out), as they were when get_multi was called.
    let snapshot;
    let keys = if referenced {
        let mut copy = ZendHashTable::with_capacity(keys.len() as u32);
        hash::try_for_each(keys, |_, k| copy.push(k.dereference().shallow_clone()))
            .map_err(|e| value_error(e.to_string()))?;
        snapshot = copy;
        &*snapshot
    } else {
        keys
    };
    // Checked above, so each key only needs its bytes taken.
    let batch = hash::elements(keys).map(|(_, k)| {
        let k = k.dereference();
        CallerKey { bytes: unchecked_key_bytes(k).unwrap_or(KeyBytes::Borrowed(&[])), zval: k }
    });
    read_batch(cache, ns, batch, &mut out)?;
    Ok(out)
}

/// Reads every key of `keys` under `ns` into `out` as one batch, each hit under its key as a
/// string key (a numeric one too: `hash::str_update`), as APCu's fetch of an array of keys
/// builds its result. Only for an array of plain strings of valid lengths: false, with nothing
/// read, for any other, which the caller then reads key by key.
pub(super) fn read_plain_batch_string_keyed(
    ns: &Namespace,
    keys: &ZendHashTable,
    out: &mut ZendHashTable,
) -> PhpResult<bool> {
    if !hash::values(keys).all(PlainKey::is_plain) {
        return Ok(false);
    }
    if let Some(cache) = cache() {
        let batch = hash::values(keys).filter_map(PlainKey::of).map(StringKeyed);
        read_batch(cache, ns, batch, out)?;
    }
    Ok(true)
}

/// A plain key whose result goes in as a string key whatever it reads as.
#[derive(Clone, Copy)]
struct StringKeyed<'a>(PlainKey<'a>);

impl AsRef<[u8]> for StringKeyed<'_> {
    #[inline(always)]
    fn as_ref(&self) -> &[u8] {
        self.0.as_ref()
    }
}

impl BatchKey for StringKeyed<'_> {
    #[inline]
    fn string_hash(&self) -> u64 {
        self.0.string_hash()
    }
    #[inline]
    fn insert_into(&self, out: &mut HashBuilder, value: &mut Zval) {
        // SAFETY: a live string (`PlainKey::of`), hashed by `string_hash` before it was read.
        unsafe { out.append_string_key(self.0.s, value) };
    }
}

/// A key of a multi-get: its bytes (`as_ref`), its `string_hash`, and how its value goes into
/// the result.
trait BatchKey: AsRef<[u8]> {
    fn string_hash(&self) -> u64;
    /// `out[key] = value` with the caller's own key (PHP refcounts it), a numeric string as an
    /// int, as PHP's arrays do. The table takes over `value`'s value.
    fn insert_into(&self, out: &mut HashBuilder, value: &mut Zval);
}

/// A key the caller gave as a string that is a valid key as it is (the first pass checked it),
/// held as the pointer the caller's zval holds rather than as a Rust reference: its hash is
/// cached in it and the result array takes a reference to it, both writes to the string, and
/// a write through a pointer made from a `&ZendStr` is one the compiler may drop (it dropped
/// the result's addref of the key).
#[derive(Clone, Copy)]
pub(super) struct PlainKey<'a> {
    s: *mut zend_string,
    _keys: PhantomData<&'a ZendHashTable>,
}

impl<'a> PlainKey<'a> {
    /// The key of a plain string zval (not a reference) of the caller's array.
    #[inline(always)]
    pub(super) fn of(k: &'a Zval) -> Option<PlainKey<'a>> {
        if !k.is_string() {
            return None;
        }
        // SAFETY: a zval of type string holds a live zend_string, which its array keeps alive
        // for 'a (the array is not changed meanwhile: see `hash::elements`).
        Some(PlainKey { s: unsafe { k.value.str_ }, _keys: PhantomData })
    }
}

impl PlainKey<'_> {
    /// Whether `k` is a string (not a reference to one) of a valid key's length: one test of
    /// the type byte and one of the length, as `of` and `as_ref` then take it.
    #[inline(always)]
    pub(super) fn is_plain(k: &Zval) -> bool {
        // SAFETY: the type byte of an initialised zval; a string zval holds a live string.
        unsafe {
            u32::from(k.u1.v.type_) == IS_STRING
                && (*k.value.str_).len.wrapping_sub(1) < MAX_KEY_LEN
        }
    }
}

impl AsRef<[u8]> for PlainKey<'_> {
    #[inline(always)]
    fn as_ref(&self) -> &[u8] {
        // SAFETY: a live string for 'a (`of`); its contents are never written while we hold it.
        unsafe { hash::contents(self.s) }
    }
}

impl BatchKey for PlainKey<'_> {
    #[inline]
    fn string_hash(&self) -> u64 {
        // SAFETY: a live string (`of`).
        unsafe { zend_str_hash_raw(self.s) }
    }
    #[inline]
    fn insert_into(&self, out: &mut HashBuilder, value: &mut Zval) {
        // SAFETY: a live string (`of`), hashed by `string_hash` before the key was read.
        unsafe { out.append(self.s, value) };
    }
}

impl BatchKey for CallerKey<'_> {
    fn string_hash(&self) -> u64 {
        key_string_hash(self.zval, &self.bytes)
    }
    fn insert_into(&self, out: &mut HashBuilder, value: &mut Zval) {
        match self.zval.zend_str() {
            Some(s) => out.update(s, value),
            None => out.index_update(self.zval.long().unwrap_or_default(), value),
        }
    }
}

/// Reads `keys` from the local region into `out`, hits only.
fn read_batch<K: BatchKey>(
    cache: &Cache,
    ns: &Namespace,
    keys: impl IntoIterator<Item = K>,
    out: &mut ZendHashTable,
) -> PhpResult<()> {
    let mut out = HashBuilder::new(out);
    let mut sink = ZvalSink::new();
    let mut failed = None;
    let read = cache.get_each_hashed(ns, keys, K::string_hash, &mut sink, |key, hit, sink| {
        let Some(kind) = hit else { return true };
        let mut v = Zval::new();
        match take_value(kind, sink, &mut v) {
            Ok(true) => {
                key.insert_into(&mut out, &mut v);
                std::mem::forget(v);
            }
            Ok(false) => {}
            // An exception from unserialize (user code): the keys after this one are not read.
            Err(e) => {
                failed = Some(e);
                return false;
            }
        }
        true
    });
    if let Some(e) = failed {
        return Err(e);
    }
    read.map_err(|e| value_error(e.to_string()))
}

/// get_multi in tiered mode: one get per key (a near hit costs no round trip; each miss one).
fn get_multi_tiered(
    ns: &Namespace,
    keys: &ZendHashTable,
    mut out: ZBox<ZendHashTable>,
) -> PhpResult<ZBox<ZendHashTable>> {
    // A copy that holds each key: unserialize() of an earlier value may run user code that
    // changes a key held by reference (see get_multi).
    let mut copy = ZendHashTable::with_capacity(keys.len() as u32);
    hash::try_for_each(keys, |_, k| copy.push(k.dereference().shallow_clone()))
        .map_err(|e| value_error(e.to_string()))?;
    hash::try_for_each(&copy, |_, k| -> PhpResult<()> {
        let Some(bytes) = unchecked_key_bytes(k) else { return Ok(()) };
        let mut v = Zval::new();
        let hit = fetch_into(ns, &bytes, key_string_hash(k, &bytes), &mut v)?;
        drop(bytes);
        if hit {
            match k.zend_str() {
                Some(s) => hash::symtable_update(&mut out, s, &mut v),
                None => hash::index_update(&mut out, k.long().unwrap_or_default(), &mut v),
            }
            std::mem::forget(v);
        }
        Ok(())
    })?;
    Ok(out)
}

/// A key of a get_multi batch: its bytes for the engine, its zval for the result array.
struct CallerKey<'a> {
    bytes: KeyBytes<'a>,
    zval: &'a Zval,
}

impl AsRef<[u8]> for CallerKey<'_> {
    fn as_ref(&self) -> &[u8] {
        &self.bytes
    }
}

// Inlined into its handler, with the engine call under it: set 1424 -> 1378 instructions (callgrind).
#[inline(always)]
pub fn store(
    ns: &Namespace,
    func: &str,
    mode: WriteMode,
    key: &Zval,
    value: &Zval,
    ttl: IntArg,
) -> PhpResult<bool> {
    let key_zval = key;
    let key = match plain_string_key(key) {
        Some(bytes) => bytes,
        None => key_bytes(key, &arg(func, 1, "key"))?,
    };
    let ttl = ttl.value_of(func, 3, "ttl")?;
    let encoded = codec::encode(value, &arg(func, 2, "value"))?;
    let cache = match Backend::for_write() {
        None => return Ok(false),
        Some(Backend::Tiered(cache)) => {
            let stored = tier::store(cache, ns, &key, encoded.kind, encoded.bytes(), ttl, mode);
            drop(encoded);
            tier::warn_pending();
            return Ok(stored);
        }
        Some(Backend::Local(cache)) => cache,
    };
    let r = cache.write_hashed(
        ns,
        &key,
        key_string_hash(key_zval, &key),
        mode,
        encoded.kind,
        encoded.bytes(),
        ttl,
    );
    // A refusal's warning may run user code that never returns (see `refused`).
    drop(encoded);
    r.or_else(error_or_warning)
}

/// set_multi and add_multi: `mode` for each value in turn; the keys not stored come back.
pub fn store_multi(
    ns: &Namespace,
    func: &str,
    mode: WriteMode,
    values: ArrayArg,
    ttl: IntArg,
) -> PhpResult<ZBox<ZendHashTable>> {
    // Check and encode everything first, so a bad key or value stores nothing at all. The
    // encoded values are kept in PHP's memory (an array of strings, kind byte first):
    // serialize() runs user code, and a fatal error there abandons this call without running
    // Rust destructors; PHP frees its own memory at the end of the request, ours would leak.
    let what = arg(func, 1, "values");
    let values = values.get(&what)?;
    let ttl = ttl.value_of(func, 2, "ttl")?;
    let mut encoded = ZendHashTable::with_capacity(values.len() as u32);
    let key_what = || format!("{} key", what());
    hash::try_for_each(values, |k, v| -> PhpResult<()> {
        array_key_bytes(k, &key_what)?;
        let z = codec::encode_into_php_string(v, &|| format!("{} element", what()))?;
        match k {
            Key::Str(key) => encoded.insert(key, z)?,
            Key::Index(i) => encoded.insert(i, z)?,
        }
        Ok(())
    })?;
    let mut failed = ZendHashTable::new();
    if let Some(Backend::Local(cache)) = Backend::for_write() {
        let (failed, errors) =
            batch::store_batch(cache, ns, mode, ttl, &encoded, &key_what, failed)?;
        drop(encoded);
        return errors.raise_then(failed);
    }
    hash::try_for_each(&encoded, |k, v| -> PhpResult<()> {
        let key = array_key_bytes(k, &key_what)?;
        let Some((kind, data)) = codec::split_php_encoded(v) else {
            return Ok(());
        };
        let ok = match Backend::for_write() {
            Some(Backend::Tiered(c)) => {
                let stored = tier::store(c, ns, &key, kind, data, ttl, mode);
                tier::warn_pending();
                stored
            }
            Some(Backend::Local(c)) => match mode {
                WriteMode::Set => c.set(ns, &key, kind, data, ttl),
                WriteMode::Add => c.add(ns, &key, kind, data, ttl),
                WriteMode::Replace => c.replace(ns, &key, kind, data, ttl),
            }
            .or_else(error_or_warning)?,
            None => false,
        };
        if !ok {
            match k {
                Key::Str(key) => failed.push(codec::string_zval(key.as_bytes()))?,
                Key::Index(i) => failed.push(i)?,
            }
        }
        Ok(())
    })?;
    Ok(failed)
}

// Inlined into its handler, with the engine call under it: cas 1001 -> 982 instructions (callgrind).
#[inline(always)]
pub fn cas(ns: &Namespace, func: &str, key: &Zval, old: IntArg, new: IntArg) -> PhpResult<bool> {
    let key_zval = key;
    let key = match plain_string_key(key) {
        Some(bytes) => bytes,
        None => key_bytes(key, &arg(func, 1, "key"))?,
    };
    let old = old.value_of(func, 2, "old")?;
    let new = new.value_of(func, 3, "new")?;
    let cache = match Backend::for_write() {
        None => return Ok(false),
        Some(Backend::Tiered(cache)) => {
            let done = tier::cas(cache, ns, &key, old, new);
            tier::warn_pending();
            return Ok(done);
        }
        Some(Backend::Local(cache)) => cache,
    };
    cache.cas_hashed(ns, &key, key_string_hash(key_zval, &key), old, new).or_else(error_or_warning)
}

/// incr (or decr when `negate`): adds `step` atomically.
pub fn incr(ns: &Namespace, func: &str, key: &Zval, step: IntArg, negate: bool) -> PhpResult<Zval> {
    let mut z = Zval::new();
    incr_into(ns, func, key, step, negate, &mut z)?;
    Ok(z)
}

/// `incr`, its result (the new value or false) written into `out` (null).
// Inlined into its handler, with the engine call under it: incr 926 -> 908 instructions (callgrind).
#[inline(always)]
pub fn incr_into(
    ns: &Namespace,
    func: &str,
    key: &Zval,
    step: IntArg,
    negate: bool,
    out: &mut Zval,
) -> PhpResult<()> {
    let key_zval = key;
    let key = match plain_string_key(key) {
        Some(bytes) => bytes,
        None => key_bytes(key, &arg(func, 1, "key"))?,
    };
    let step = step.value_of(func, 2, "step")?;
    let step = if negate { step.wrapping_neg() } else { step };
    codec::put_false(out);
    let cache = match Backend::for_write() {
        None => return Ok(()),
        Some(Backend::Tiered(cache)) => {
            if let Some(n) = tier::incr(cache, ns, &key, step) {
                codec::put_long(out, n);
            }
            tier::warn_pending();
            return Ok(());
        }
        Some(Backend::Local(cache)) => cache,
    };
    match cache.incr_hashed(ns, &key, key_string_hash(key_zval, &key), step) {
        Ok(Some(n)) => codec::put_long(out, n),
        Ok(None) => {}
        Err(e) => {
            error_or_warning(e)?;
        }
    }
    Ok(())
}

/// The whole seconds a live key has left, 0 when it never expires, false when it is not live.
pub fn ttl(ns: &Namespace, func: &str, key: &Zval) -> PhpResult<Zval> {
    let key = key_bytes(key, &arg(func, 1, "key"))?;
    let mut z = Zval::new();
    z.set_bool(false);
    let cache = match Backend::for_read() {
        None => return Ok(z),
        Some(Backend::Tiered(cache)) => {
            if let Some(n) = tier::ttl(cache, ns, &key) {
                z.set_long(n);
            }
            tier::warn_pending();
            return Ok(z);
        }
        Some(Backend::Local(cache)) => cache,
    };
    match cache.times(ns, &key) {
        Ok(Some(times)) => z.set_long(i64::try_from(times.seconds_left()).unwrap_or(i64::MAX)),
        Ok(None) => {}
        Err(e) => {
            error_or_warning(e)?;
        }
    }
    Ok(z)
}

// Inlined into its handler, with the engine call under it: a delete and an add 1060 -> 1008 instructions (callgrind).
#[inline(always)]
pub fn delete(ns: &Namespace, func: &str, key: &Zval) -> PhpResult<bool> {
    let key_zval = key;
    let key = match plain_string_key(key) {
        Some(bytes) => bytes,
        None => key_bytes(key, &arg(func, 1, "key"))?,
    };
    let cache = match Backend::for_write() {
        None => return Ok(false),
        Some(Backend::Tiered(cache)) => {
            let deleted = tier::delete(cache, ns, &key);
            tier::warn_pending();
            return Ok(deleted);
        }
        Some(Backend::Local(cache)) => cache,
    };
    cache.delete_hashed(ns, &key, key_string_hash(key_zval, &key)).or_else(error_or_warning)
}

/// Deletes each key of the list; the keys that were live (and are deleted now) come back, as
/// given. Every key is checked first, so a bad one deletes nothing.
pub fn delete_multi(ns: &Namespace, func: &str, keys: ArrayArg) -> PhpResult<ZBox<ZendHashTable>> {
    let what = arg(func, 1, "keys");
    let keys = keys.get(&what)?;
    let element = || format!("{} element", what());
    hash::try_for_each(keys, |_, k| key_bytes(k.dereference(), &element).map(drop))?;
    let mut deleted = ZendHashTable::new();
    let Some(cache) = cache() else { return Ok(deleted) };
    if let Backend::Local(cache) = Backend::write_to(cache) {
        let (deleted, errors) = batch::delete_batch(cache, ns, keys, deleted)?;
        return errors.raise_then(deleted);
    }
    hash::try_for_each(keys, |_, k| -> PhpResult<()> {
        // Checked again: a key held by reference may have been changed by an error handler
        // that a refusal's warning ran for an earlier key.
        let k = k.dereference();
        let key = key_bytes(k, &element)?;
        let live = match Backend::write_to(cache) {
            Backend::Tiered(cache) => {
                let deleted = tier::delete(cache, ns, &key);
                drop(key);
                tier::warn_pending();
                Ok(deleted)
            }
            Backend::Local(cache) => cache.delete(ns, &key),
        };
        if live.or_else(error_or_warning)? {
            match k.long() {
                Some(i) => deleted.push(i)?,
                None => deleted.push(k.shallow_clone())?,
            }
        }
        Ok(())
    })?;
    Ok(deleted)
}

pub fn exists(ns: &Namespace, func: &str, key: &Zval) -> PhpResult<bool> {
    let key = key_bytes(key, &arg(func, 1, "key"))?;
    let cache = match Backend::for_read() {
        None => return Ok(false),
        Some(Backend::Tiered(cache)) => {
            let found = tier::exists(cache, ns, &key);
            tier::warn_pending();
            return Ok(found);
        }
        Some(Backend::Local(cache)) => cache,
    };
    cache.exists(ns, &key).or_else(error_or_warning)
}

pub fn flush(ns: &Namespace) -> bool {
    match Backend::for_write() {
        Some(Backend::Tiered(c)) => {
            let flushed = tier::flush(c, ns);
            tier::warn_pending();
            flushed
        }
        Some(Backend::Local(c)) => {
            c.flush_namespace(ns);
            true
        }
        None => false,
    }
}

pub fn namespace(func: &str, name: &Zval) -> Result<Namespace, PhpException> {
    let bytes: Vec<u8> = if let Some(s) = name.zend_str() {
        s.as_bytes().to_vec()
    } else if let Some(n) = name.long() {
        n.to_string().into_bytes()
    } else {
        return Err(type_error(format!(
            "{func}(): Argument #1 ($namespace) must be of type string, {} given",
            type_name(name)
        )));
    };
    if let Some(why) = reserved_namespace(&bytes) {
        return Err(value_error(format!("{func}(): Argument #1 ($namespace) is reserved: {why}")));
    }
    Namespace::new(&bytes)
        .map_err(|e| value_error(format!("{func}(): Argument #1 ($namespace) is invalid: {e}")))
}

/// Why user code may not open a namespace the extension keeps for itself: "apcu" (and
/// "apcu\0...") holds the apcu_* functions' entries, which are local to a server by contract and
/// record store times (through `ShmCache` in tiered mode they would be read as near copies of
/// Redis' values); "\0shmcache..." is the tier's own (its generations and notes). Other names
/// starting with NUL stay open: namespace names are binary.
fn reserved_namespace(name: &[u8]) -> Option<&'static str> {
    if name == b"apcu" || name.starts_with(b"apcu\0") {
        Some("the apcu_* functions keep their entries there")
    } else if name.starts_with(b"\0shmcache") {
        Some("the extension keeps its own entries there")
    } else {
        None
    }
}

pub fn generation(ns: &Namespace) -> i64 {
    match Backend::for_read() {
        // All servers must agree on it (the WordPress drop-in builds namespace names from it).
        Some(Backend::Tiered(c)) => {
            let g = tier::generation(c, ns);
            tier::warn_pending();
            g
        }
        Some(Backend::Local(c)) => c.namespace_generation(ns) as i64,
        None => 0,
    }
}
