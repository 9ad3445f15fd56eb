//! APCu's user-cache functions (`apcu_fetch`, `apcu_store`, ...) on the shared region, for code
//! written against APCu. Registered at MINIT only when `shmcache.apcu_compat=1` (and APCu itself
//! is not loaded): without the setting no `apcu_*` function exists, so `function_exists()`
//! checks in applications keep meaning "APCu is here".
//!
//! The entries live in their own namespace, "apcu": `apcu_clear_cache()` flushes it in O(1)
//! without touching the shmcache_* keys or a WordPress object cache in the same region, and
//! `new ShmCache('apcu')` sees the same keys. APCu accepts the empty key, which shmcache keys
//! cannot be: it is kept in a second namespace of its own. docs/apcu.md lists where the
//! behaviour differs from APCu's.

use std::borrow::Cow;
use std::cell::RefCell;
use std::ffi::c_int;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use ext_php_rs::boxed::ZBox;
use ext_php_rs::ffi::zend_function_entry;
use ext_php_rs::prelude::*;
use ext_php_rs::types::{ZendCallable, ZendHashTable, ZendStr, Zval};

use super::args::{type_error, type_name, Found, IntArg, KeyArg};
use super::ffi::{zend_register_functions, zend_unregister_functions, zval_try_get_string_func};
use super::hash::{self, Key};
use super::region::cache;
use super::warn::warning;
use super::{apcu_iterator, codec, ops};
use crate::engine::{Cache, Error, Namespace, ValueKind, MAX_KEY_LEN};

const MODULE_PERSISTENT: c_int = 1;

/// How long an `apcu_entry()` generator may hold its key before others stop waiting and run
/// their own (seconds; the expiry clock ticks in whole seconds, so 4 to 5 s).
const LEASE_SECONDS: i64 = 5;
/// A waiter's longest pause between two looks at the key and its lease.
const MAX_POLL: Duration = Duration::from_millis(20);

fn apcu_namespace() -> &'static Namespace {
    static NS: OnceLock<Namespace> = OnceLock::new();
    NS.get_or_init(|| Namespace::new(b"apcu").expect("a short name").recording_store_times())
}

/// Where the empty key lives (under the key "-"): a name no `apcu_*` key can reach.
fn empty_key_namespace() -> &'static Namespace {
    static NS: OnceLock<Namespace> = OnceLock::new();
    NS.get_or_init(|| {
        Namespace::new(b"apcu\0empty-key").expect("a short name").recording_store_times()
    })
}

/// The leases of running `apcu_entry()` generators, by key; each holds its owner's pid.
fn lease_namespace() -> &'static Namespace {
    static NS: OnceLock<Namespace> = OnceLock::new();
    NS.get_or_init(|| Namespace::new(b"apcu\0lease").expect("a short name"))
}

/// The namespace and shmcache key an APCu key is stored under.
fn locate(key: &[u8]) -> (&'static Namespace, &[u8]) {
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
fn refused<T: Default>(e: Error) -> T {
    warning(e);
    T::default()
}

fn arg<'a>(func: &'a str, n: u32, name: &'a str) -> impl Fn() -> String + 'a {
    move || format!("{func}(): Argument #{n} (${name})")
}

/// (string) $value, as PHP converts a non-string argument; None with an exception pending
/// when the value has no string form.
fn converted_string(value: &Zval) -> Option<ZBox<ZendStr>> {
    let mut copy = value.shallow_clone();
    // SAFETY: `copy` is a live zval we own (its refcount was taken by shallow_clone); PHP returns
    // a zend_string with a reference for us, or NULL with an exception pending.
    let s = unsafe { zval_try_get_string_func(std::ptr::addr_of_mut!(copy).cast()) };
    // SAFETY: a non-null result is a zend_string whose reference we own; ZBox releases it.
    (!s.is_null()).then(|| unsafe { ZBox::from_raw(s) })
}

/// A `string $key` parameter the way PHP coerces one: strings as they are, ints, floats,
/// bools and Stringable objects converted, null as "" (the empty key is a key in APCu).
fn string_param<'a>(
    value: &'a Zval,
    what: &dyn Fn() -> String,
) -> PhpResult<Option<Cow<'a, [u8]>>> {
    let value = value.dereference();
    if let Some(s) = value.zend_str() {
        return Ok(Some(Cow::Borrowed(s.as_bytes())));
    }
    if value.is_null() {
        return Ok(Some(Cow::Borrowed(b"")));
    }
    let stringable = value
        .object()
        .is_some_and(|o| o.get_class_entry().function_table.get("__tostring").is_some());
    if value.is_long() || value.is_double() || value.is_bool() || stringable {
        return Ok(converted_string(value).map(|s| Cow::Owned(s.as_bytes().to_vec())));
    }
    Err(type_error(format!("{} must be of type string, {} given", what(), type_name(value))))
}

/// A key of fetch or exists: anything but an array is converted to a string first (an
/// object that cannot be throws Error, as in APCu). None with an exception pending.
fn converted_key(value: &Zval) -> Option<Cow<'_, [u8]>> {
    match value.zend_str() {
        Some(s) => Some(Cow::Borrowed(s.as_bytes())),
        None => converted_string(value).map(|s| Cow::Owned(s.as_bytes().to_vec())),
    }
}

fn false_zval() -> Zval {
    let mut z = Zval::new();
    z.set_bool(false);
    z
}

fn fetch_one(key: &[u8], out: &mut Zval) -> PhpResult<bool> {
    if key.len() > MAX_KEY_LEN {
        return Ok(false);
    }
    let (ns, key) = locate(key);
    ops::fetch_local_into(ns, key, out)
}

fn exists_one(cache: &Cache, key: &[u8]) -> bool {
    if key.len() > MAX_KEY_LEN {
        return false;
    }
    let (ns, key) = locate(key);
    cache.exists(ns, key).unwrap_or_else(refused)
}

fn delete_one(cache: &Cache, key: &[u8]) -> bool {
    if key.len() > MAX_KEY_LEN {
        return false;
    }
    let (ns, key) = locate(key);
    cache.delete(ns, key).unwrap_or_else(refused)
}

/// Stores one value; false (after a warning) when it holds a resource or shmcache refuses it.
/// An exception from serialize() (a Closure) propagates, as in APCu.
fn store_one(
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
    Ok(r.unwrap_or_else(refused))
}

fn store(
    func: &str,
    key: &Zval,
    value: Option<&Zval>,
    ttl: IntArg,
    exclusive: bool,
) -> PhpResult<Zval> {
    let ttl = ttl.value(&arg(func, 3, "ttl"))?;
    let key = key.dereference();
    let what = arg(func, 2, "value");
    if let Some(values) = key.array() {
        // Only the keys that failed come back, each mapped to -1.
        let mut failed = ZendHashTable::new();
        for (k, v) in hash::elements(values) {
            let bytes: Cow<'_, [u8]> = match k {
                Key::Str(s) => Cow::Borrowed(s.as_bytes()),
                Key::Index(i) => Cow::Owned(i.to_string().into_bytes()),
            };
            if !store_one(&bytes, v.dereference(), ttl, exclusive, &what)? {
                let mut minus_one = Zval::new();
                minus_one.set_long(-1);
                match k {
                    Key::Str(s) => hash::symtable_update(&mut failed, s, &mut minus_one),
                    Key::Index(i) => hash::index_update(&mut failed, i, &mut minus_one),
                }
            }
        }
        let mut z = Zval::new();
        z.set_hashtable(failed);
        return Ok(z);
    }
    let mut z = Zval::new();
    match (key.zend_str(), value) {
        (Some(k), Some(v)) => z.set_bool(store_one(k.as_bytes(), v, ttl, exclusive, &what)?),
        // No value: nothing to store.
        (Some(_), None) => z.set_bool(false),
        (None, _) => {
            warning(
                "apc_store expects key parameter to be a string or an array of key/value pairs.",
            );
            z.set_bool(false);
        }
    }
    Ok(z)
}

#[php_function]
#[php(name = "apcu_store")]
#[php(defaults(ttl = 0))]
pub fn apcu_store(key: &Zval, value: Option<&Zval>, ttl: IntArg) -> PhpResult<Zval> {
    store("apcu_store", key, value, ttl, false)
}

#[php_function]
#[php(name = "apcu_add")]
#[php(defaults(ttl = 0))]
pub fn apcu_add(key: &Zval, value: Option<&Zval>, ttl: IntArg) -> PhpResult<Zval> {
    store("apcu_add", key, value, ttl, true)
}

#[php_function]
#[php(name = "apcu_fetch")]
pub fn apcu_fetch(key: &Zval, mut success: Found) -> PhpResult<Zval> {
    let key = key.dereference();
    if let Some(keys) = key.array() {
        let mut out = ZendHashTable::with_capacity(keys.len() as u32);
        for (_, k) in hash::elements(keys) {
            let Some(s) = k.dereference().zend_str() else {
                warning("apc_fetch() expects a string or array of strings.");
                continue;
            };
            let mut v = Zval::new();
            if fetch_one(s.as_bytes(), &mut v)? {
                hash::str_update(&mut out, s, &mut v);
                std::mem::forget(v);
            }
        }
        success.set(true);
        let mut z = Zval::new();
        z.set_hashtable(out);
        return Ok(z);
    }
    let Some(bytes) = converted_key(key) else { return Ok(Zval::new()) };
    let mut out = Zval::new();
    let hit = fetch_one(&bytes, &mut out)?;
    success.set(hit);
    Ok(if hit { out } else { false_zval() })
}

#[php_function]
#[php(name = "apcu_exists")]
pub fn apcu_exists(key: &Zval) -> PhpResult<Zval> {
    let key = key.dereference();
    let mut z = Zval::new();
    if let Some(keys) = key.array() {
        let mut out = ZendHashTable::new();
        for (_, k) in hash::elements(keys) {
            let Some(s) = k.dereference().zend_str() else {
                warning("apc_exists() expects a string or array of strings.");
                continue;
            };
            if cache().is_some_and(|c| exists_one(c, s.as_bytes())) {
                let mut t = Zval::new();
                t.set_bool(true);
                hash::str_update(&mut out, s, &mut t);
            }
        }
        z.set_hashtable(out);
        return Ok(z);
    }
    let Some(bytes) = converted_key(key) else { return Ok(z) };
    z.set_bool(cache().is_some_and(|c| exists_one(c, &bytes)));
    Ok(z)
}

#[php_function]
#[php(name = "apcu_delete")]
pub fn apcu_delete(key: &Zval) -> PhpResult<Zval> {
    const EXPECTS: &str =
        "apc_delete() expects a string, array of strings, or APCIterator instance";
    let key = key.dereference();
    let mut z = Zval::new();
    if let Some(s) = key.zend_str() {
        z.set_bool(cache().is_some_and(|c| delete_one(c, s.as_bytes())));
    } else if let Some(keys) = key.array() {
        // The keys that were not deleted (not a string, or not there) come back as a list.
        let mut failed = ZendHashTable::new();
        for (_, k) in hash::elements(keys) {
            let k = k.dereference();
            let deleted = match k.zend_str() {
                Some(s) => cache().is_some_and(|c| delete_one(c, s.as_bytes())),
                None => {
                    warning(EXPECTS);
                    false
                }
            };
            if !deleted {
                failed.push(k.shallow_clone())?;
            }
        }
        z.set_hashtable(failed);
    } else if let Some(obj) = key.object() {
        match apcu_iterator::deletable(obj) {
            apcu_iterator::Deletable::Iterator(iterator) => {
                let keys = iterator.keys_to_delete()?;
                if let Some(cache) = cache() {
                    for k in keys {
                        delete_one(cache, &k);
                    }
                }
                z.set_bool(true);
            }
            apcu_iterator::Deletable::Uninitialized => {
                return Err(PhpException::new(
                    "Trying to use uninitialized APCUIterator".into(),
                    0,
                    ext_php_rs::zend::ce::error(),
                ));
            }
            apcu_iterator::Deletable::NotAnIterator => {
                warning("apc_delete object argument must be instance of APCUIterator.");
                z.set_bool(false);
            }
        }
    } else {
        warning(EXPECTS);
        z.set_bool(false);
    }
    Ok(z)
}

/// Adds `delta` to an integer; a missing key is first created (with `ttl`) as 0, as in APCu.
/// None when the key holds something other than an integer.
fn update(key: &[u8], delta: i64, ttl: i64) -> Option<i64> {
    let cache = cache()?;
    let (ns, key) = locate(key);
    match cache.incr(ns, key, delta) {
        Ok(Some(n)) => return Some(n),
        Ok(None) => {}
        Err(e) => return refused(e),
    }
    // Missing (or not an integer, which the add leaves alone): one attempt to create it, then
    // one more increment, which also covers another process creating it first.
    match cache.add(ns, key, ValueKind::INT, &delta.to_le_bytes(), ttl) {
        Ok(true) => return Some(delta),
        Ok(false) => {}
        Err(e) => return refused(e),
    }
    cache.incr(ns, key, delta).unwrap_or_else(refused)
}

fn inc_dec(
    func: &str,
    key: KeyArg,
    step: IntArg,
    success: &mut Found,
    ttl: IntArg,
    negate: bool,
) -> PhpResult<Zval> {
    let Some(key) = string_param(key.0, &arg(func, 1, "key"))? else { return Ok(Zval::new()) };
    let step = step.value(&arg(func, 2, "step"))?;
    let ttl = ttl.value(&arg(func, 4, "ttl"))?;
    let delta = if negate { step.wrapping_neg() } else { step };
    let result = update(&key, delta, ttl);
    success.set(result.is_some());
    let mut z = Zval::new();
    match result {
        Some(n) => z.set_long(n),
        None => z.set_bool(false),
    }
    Ok(z)
}

#[php_function]
#[php(name = "apcu_inc")]
#[php(defaults(step = 1, ttl = 0))]
pub fn apcu_inc(key: KeyArg, step: IntArg, mut success: Found, ttl: IntArg) -> PhpResult<Zval> {
    inc_dec("apcu_inc", key, step, &mut success, ttl, false)
}

#[php_function]
#[php(name = "apcu_dec")]
#[php(defaults(step = 1, ttl = 0))]
pub fn apcu_dec(key: KeyArg, step: IntArg, mut success: Found, ttl: IntArg) -> PhpResult<Zval> {
    inc_dec("apcu_dec", key, step, &mut success, ttl, true)
}

#[php_function]
#[php(name = "apcu_cas")]
pub fn apcu_cas(key: KeyArg, old: IntArg, new: IntArg) -> PhpResult<bool> {
    let Some(key) = string_param(key.0, &arg("apcu_cas", 1, "key"))? else { return Ok(false) };
    let old = old.value(&arg("apcu_cas", 2, "old"))?;
    let new = new.value(&arg("apcu_cas", 3, "new"))?;
    let Some(cache) = cache() else { return Ok(false) };
    let (ns, key) = locate(&key);
    Ok(cache.cas(ns, key, old, new).unwrap_or_else(refused))
}

thread_local! {
    /// Leases this process holds (running generators, outermost first): released at request
    /// end when a fatal error (a timeout) abandoned the generator, so no one waits on them.
    static HELD_LEASES: RefCell<Vec<Vec<u8>>> = const { RefCell::new(Vec::new()) };
}

/// The lease key of an APCu key: its shmcache key (the empty key has one of its own).
fn lease_key(key: &[u8]) -> Vec<u8> {
    if key.is_empty() {
        b"\0".to_vec()
    } else {
        key.to_vec()
    }
}

/// Whether process `pid` is gone (or a zombie): then its lease can be taken over at once.
fn process_gone(pid: i64) -> bool {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else { return true };
    // "pid (comm) S ...": the state follows the last ')' (comm may hold any bytes).
    let state = stat.rfind(')').and_then(|i| stat[i + 1..].trim_start().chars().next());
    matches!(state, Some('Z' | 'X'))
}

fn lease_owner(cache: &Cache, lease: &[u8]) -> Option<i64> {
    let mut bytes = Vec::new();
    match cache.get(lease_namespace(), lease, &mut bytes) {
        Ok(Some(ValueKind::INT)) => {
            <[u8; 8]>::try_from(bytes.as_slice()).ok().map(i64::from_le_bytes)
        }
        _ => None,
    }
}

fn release_lease(cache: &Cache, lease: &[u8]) {
    let _ = cache.delete(lease_namespace(), lease);
    HELD_LEASES.with(|held| {
        let mut held = held.borrow_mut();
        if let Some(i) = held.iter().rposition(|k| k == lease) {
            held.remove(i);
        }
    });
}

/// RSHUTDOWN: leases of generators a fatal error abandoned.
pub fn release_abandoned_leases() {
    let held = HELD_LEASES.with(|held| std::mem::take(&mut *held.borrow_mut()));
    if let Some(cache) = cache() {
        for lease in held {
            let _ = cache.delete(lease_namespace(), &lease);
        }
    }
}

/// Runs the generator and stores what it returns (unless it threw); its return value either way.
fn generate(key: &[u8], generator: &ZendCallable, ttl: i64) -> PhpResult<Zval> {
    let key_zval = codec::string_zval(key);
    let Ok(value) = generator.try_call(vec![&key_zval]) else {
        // The generator threw (the exception stays pending) or could not be called.
        return Ok(Zval::new());
    };
    // As APCu: added, so a value stored meanwhile by apcu_store() is not overwritten.
    store_one(key, &value, ttl, true, &arg("apcu_entry", 2, "callback"))?;
    Ok(value)
}

/// APCu's promise: the generator of a missing key runs once while other callers wait for its
/// value. Here the running generator holds a lease (an added key with a short TTL holding its
/// pid) instead of a lock: others poll, and take over when its owner died, when the lease
/// expired (a generator stuck longer than LEASE_SECONDS) or when it was released without a
/// value (the generator threw).
#[php_function]
#[php(name = "apcu_entry")]
#[php(defaults(ttl = 0))]
pub fn apcu_entry(key: KeyArg, callback: ZendCallable, ttl: IntArg) -> PhpResult<Zval> {
    let Some(key) = string_param(key.0, &arg("apcu_entry", 1, "key"))? else {
        return Ok(Zval::new());
    };
    let ttl = ttl.value(&arg("apcu_entry", 3, "ttl"))?;
    let Some(cache) = cache() else { return Ok(Zval::new()) };
    let lease = lease_key(&key);
    let pid = i64::from(std::process::id());
    // A generator asking for its own key again (recursion) must not wait on itself.
    if HELD_LEASES.with(|held| held.borrow().contains(&lease)) {
        return generate(&key, &callback, ttl);
    }
    let give_up_at = Instant::now() + Duration::from_secs(LEASE_SECONDS as u64 + 1);
    let mut pause = Duration::from_millis(1);
    loop {
        let mut out = Zval::new();
        if fetch_one(&key, &mut out)? {
            return Ok(out);
        }
        match cache.add(
            lease_namespace(),
            &lease,
            ValueKind::INT,
            &pid.to_le_bytes(),
            LEASE_SECONDS,
        ) {
            Ok(true) => {
                HELD_LEASES.with(|held| held.borrow_mut().push(lease.clone()));
                // Stored between our look and the lease: no need to run the generator.
                let mut out = Zval::new();
                let result = if fetch_one(&key, &mut out)? {
                    Ok(out)
                } else {
                    generate(&key, &callback, ttl)
                };
                release_lease(cache, &lease);
                return result;
            }
            Ok(false) => {}
            // The key cannot be stored (too long): nothing to share, so nothing to wait for.
            Err(_) => return generate(&key, &callback, ttl),
        }
        if let Some(owner) = lease_owner(cache, &lease) {
            if owner != pid && process_gone(owner) {
                let _ = cache.delete(lease_namespace(), &lease);
                continue;
            }
        }
        if Instant::now() >= give_up_at {
            return generate(&key, &callback, ttl);
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(MAX_POLL);
    }
}

#[php_function]
#[php(name = "apcu_clear_cache")]
pub fn apcu_clear_cache() -> bool {
    if let Some(cache) = cache() {
        cache.flush_namespace(apcu_namespace());
        cache.flush_namespace(empty_key_namespace());
    }
    true
}

#[php_function]
#[php(name = "apcu_enabled")]
pub fn apcu_enabled() -> bool {
    cache().is_some()
}

#[php_function]
#[php(name = "apcu_cache_info")]
#[php(defaults(limited = false))]
pub fn apcu_cache_info(limited: bool) -> PhpResult<Zval> {
    let Some(cache) = cache() else {
        warning("No APC info available.  Perhaps APC is not enabled? Check apc.enabled in your ini file");
        return Ok(false_zval());
    };
    let s = cache.stats();
    let mut info = ZendHashTable::new();
    info.insert("num_slots", s.slots_total as i64)?;
    info.insert("ttl", 0i64)?;
    info.insert("num_hits", s.hits as f64)?;
    info.insert("num_misses", s.misses as f64)?;
    info.insert("num_inserts", s.sets as f64)?;
    info.insert("num_entries", s.slots_used as i64)?;
    info.insert("expunges", s.kicks as f64)?;
    info.insert("start_time", s.start_time as i64)?;
    info.insert("mem_size", s.ring_used as f64)?;
    info.insert("memory_type", "mmap")?;
    if !limited {
        let mut list = ZendHashTable::new();
        for entry in apcu_iterator::listing(&apcu_iterator::Search::All) {
            list.push(apcu_iterator::cache_list_row(&entry)?)?;
        }
        info.insert("cache_list", list)?;
        // Deleted entries are not kept anywhere, and the key index has no hash chains.
        info.insert("deleted_list", ZendHashTable::new())?;
        info.insert("slot_distribution", ZendHashTable::new())?;
    }
    let mut z = Zval::new();
    z.set_hashtable(info);
    Ok(z)
}

#[php_function]
#[php(name = "apcu_sma_info")]
#[php(defaults(limited = false))]
pub fn apcu_sma_info(limited: bool) -> PhpResult<Zval> {
    let Some(cache) = cache() else {
        warning("No APC SMA info available.  Perhaps APC is disabled via apc.enabled?");
        return Ok(false_zval());
    };
    let s = cache.stats();
    let avail = s.values_memory_size.saturating_sub(s.ring_used);
    let mut info = ZendHashTable::new();
    info.insert("num_seg", 1i64)?;
    info.insert("seg_size", s.values_memory_size as f64)?;
    info.insert("avail_mem", avail as f64)?;
    if !limited {
        // The value ring has one free stretch: from the write position to the oldest entry.
        let mut block = ZendHashTable::new();
        block.insert("size", avail as i64)?;
        block.insert("offset", s.ring_used as i64)?;
        let mut segment = ZendHashTable::new();
        segment.push(block)?;
        let mut lists = ZendHashTable::new();
        lists.push(segment)?;
        info.insert("block_lists", lists)?;
    }
    let mut z = Zval::new();
    z.set_hashtable(info);
    Ok(z)
}

#[php_function]
#[php(name = "apcu_key_info")]
pub fn apcu_key_info(key: KeyArg) -> PhpResult<Option<ZBox<ZendHashTable>>> {
    let Some(key) = string_param(key.0, &arg("apcu_key_info", 1, "key"))? else { return Ok(None) };
    let Some(cache) = cache() else { return Ok(None) };
    if key.len() > MAX_KEY_LEN {
        return Ok(None);
    }
    let (ns, k) = locate(&key);
    let Some(times) = cache.times(ns, k).unwrap_or_else(refused) else { return Ok(None) };
    let mut info = ZendHashTable::new();
    // Entries keep their store time and expiry, but no hit count nor last access: those would
    // be a shared write on every read.
    info.insert("hits", 0i64)?;
    info.insert("access_time", 0i64)?;
    info.insert("mtime", times.stored_at as i64)?;
    info.insert("creation_time", times.stored_at as i64)?;
    info.insert("deletion_time", 0i64)?;
    info.insert("ttl", apcu_iterator::ttl_of(&times))?;
    info.insert("refs", 0i64)?;
    Ok(Some(info))
}

/// Hand-written call handlers (see `handler`) for the common shapes of the hottest calls (a
/// string key, int arguments given as ints): they skip the generated handlers' zend_try frame
/// and argument conversion, which cost more than half of what the glue adds to an `apcu_inc`
/// (measured with callgrind, bench/apcu-instructions.sh). Every other shape (arrays, objects,
/// conversions, wrong argument counts) goes to the generated handler unchanged.
mod handlers {
    use ext_php_rs::ffi::{zend_execute_data, zval, HashTable};
    use ext_php_rs::types::Zval;

    use super::super::args::Found;
    use super::super::handler::{
        dispatch, install as swap, Call, Declined, Generated, Handler, Served, Written,
    };
    use super::super::region::cache;
    use super::{arg, delete_one, fetch_one, store_one, update};

    /// The generated handlers the hand-written ones replaced, by function.
    struct GeneratedHandlers {
        fetch: Generated,
        store: Generated,
        add: Generated,
        delete: Generated,
        inc: Generated,
        dec: Generated,
    }

    static GENERATED: GeneratedHandlers = GeneratedHandlers {
        fetch: Generated::new(),
        store: Generated::new(),
        add: Generated::new(),
        delete: Generated::new(),
        inc: Generated::new(),
        dec: Generated::new(),
    };

    /// An optional int argument passed as an int (or not passed): its value; declined for any
    /// other shape, which the generated handler converts or refuses.
    fn plain_int(c: &Call<'_>, n: usize, default: i64) -> Result<i64, Declined> {
        match c.arg(n) {
            None => Ok(default),
            Some(z) => z.long().ok_or(Declined),
        }
    }

    /// The key argument when it is a string (dereferenced, as the generated handlers take it).
    fn string_key<'a>(c: &Call<'a>) -> Result<&'a [u8], Declined> {
        c.arg(0).and_then(|z| z.zend_str()).map(|s| s.as_bytes()).ok_or(Declined)
    }

    unsafe extern "C" fn fetch(ex: *mut zend_execute_data, retval: *mut zval) {
        dispatch(ex, retval, &GENERATED.fetch, |c| {
            c.count(1, 2)?;
            let key = string_key(c)?;
            let mut found = Found::from_argument(c.raw_arg(1));
            let out = c.retval();
            Ok(Some(fetch_one(key, out).map(|hit| {
                found.set(hit);
                if !hit {
                    out.set_bool(false);
                }
                Written
            })))
        });
    }

    fn store(c: &mut Call<'_>, func: &str, exclusive: bool) -> Served<bool> {
        c.count(2, 3)?;
        let ttl = plain_int(c, 2, 0)?;
        let key = string_key(c)?;
        // As the generated handler takes it: the slot as passed (a null value is left to it).
        let value: &Zval = c.raw_arg(1).ok_or(Declined)?;
        if value.is_null() {
            return Err(Declined);
        }
        Ok(Some(store_one(key, value, ttl, exclusive, &arg(func, 2, "value"))))
    }

    unsafe extern "C" fn store_fn(ex: *mut zend_execute_data, retval: *mut zval) {
        dispatch(ex, retval, &GENERATED.store, |c| store(c, "apcu_store", false));
    }

    unsafe extern "C" fn add_fn(ex: *mut zend_execute_data, retval: *mut zval) {
        dispatch(ex, retval, &GENERATED.add, |c| store(c, "apcu_add", true));
    }

    unsafe extern "C" fn delete(ex: *mut zend_execute_data, retval: *mut zval) {
        dispatch(ex, retval, &GENERATED.delete, |c| {
            c.count(1, 1)?;
            let key = string_key(c)?;
            Ok(Some(Ok(cache().is_some_and(|cache| delete_one(cache, key)))))
        });
    }

    fn inc_dec(c: &mut Call<'_>, negate: bool) -> Served<Written> {
        c.count(1, 4)?;
        let key = string_key(c)?;
        let step = plain_int(c, 1, 1)?;
        let ttl = plain_int(c, 3, 0)?;
        let mut success = Found::from_argument(c.raw_arg(2));
        let delta = if negate { step.wrapping_neg() } else { step };
        let result = update(key, delta, ttl);
        success.set(result.is_some());
        let out = c.retval();
        match result {
            Some(n) => out.set_long(n),
            None => out.set_bool(false),
        }
        Ok(Some(Ok(Written)))
    }

    unsafe extern "C" fn inc(ex: *mut zend_execute_data, retval: *mut zval) {
        dispatch(ex, retval, &GENERATED.inc, |c| inc_dec(c, false));
    }

    unsafe extern "C" fn dec(ex: *mut zend_execute_data, retval: *mut zval) {
        dispatch(ex, retval, &GENERATED.dec, |c| inc_dec(c, true));
    }

    /// Swaps the hand-written handlers in (the first request of each process), keeping the
    /// generated ones for the shapes these leave to them.
    pub fn install(functions: *const HashTable) {
        let swaps: [(&str, Handler, &Generated); 6] = [
            ("apcu_fetch", fetch, &GENERATED.fetch),
            ("apcu_store", store_fn, &GENERATED.store),
            ("apcu_add", add_fn, &GENERATED.add),
            ("apcu_delete", delete, &GENERATED.delete),
            ("apcu_inc", inc, &GENERATED.inc),
            ("apcu_dec", dec, &GENERATED.dec),
        ];
        for (name, handler, generated) in swaps {
            swap(functions, name, handler, generated);
        }
    }
}

/// The hand-written apcu_* handlers (`handlers`), when this module registered the functions
/// (never over APCu's own).
pub(super) fn install_handlers(functions: *const ext_php_rs::ffi::HashTable) {
    if REGISTERED.get().is_some() {
        handlers::install(functions);
    }
}

/// The function table registered at MINIT, kept for MSHUTDOWN (process lifetime otherwise).
struct Registered {
    entries: Box<[zend_function_entry]>,
}

// SAFETY: written once at MINIT and read at MSHUTDOWN, both on PHP's single startup thread (NTS).
unsafe impl Send for Registered {}
unsafe impl Sync for Registered {}

static REGISTERED: OnceLock<Registered> = OnceLock::new();

/// Registers the apcu_* functions (MINIT, with `shmcache.apcu_compat=1`).
pub fn register(module_number: i32) -> Result<(), String> {
    let builders = [
        wrap_function!(apcu_fetch),
        wrap_function!(apcu_store),
        wrap_function!(apcu_add),
        wrap_function!(apcu_delete),
        wrap_function!(apcu_exists),
        wrap_function!(apcu_inc),
        wrap_function!(apcu_dec),
        wrap_function!(apcu_cas),
        wrap_function!(apcu_entry),
        wrap_function!(apcu_clear_cache),
        wrap_function!(apcu_cache_info),
        wrap_function!(apcu_sma_info),
        wrap_function!(apcu_key_info),
        wrap_function!(apcu_enabled),
    ];
    let mut entries = Vec::with_capacity(builders.len() + 1);
    for builder in builders {
        let (entry, arg_info) = builder
            .build()
            .map_err(|e| format!("shmcache: could not build the apcu_* functions: {e}"))?;
        // PHP keeps pointing at the argument info (reflection reads it): it lives as long as
        // the process.
        std::mem::forget(arg_info);
        entries.push(entry);
    }
    // SAFETY: an all-zero zend_function_entry is the table's terminator (a null name).
    entries.push(unsafe { std::mem::zeroed() });
    let registered = Registered { entries: entries.into_boxed_slice() };
    // SAFETY: a NUL-terminated table of entries built by ext-php-rs, which stays alive (in
    // REGISTERED) until MSHUTDOWN unregisters it; called during MINIT, when PHP registers
    // functions of the module being started.
    let r = unsafe {
        zend_register_functions(
            std::ptr::null_mut(),
            registered.entries.as_ptr(),
            std::ptr::null_mut(),
            MODULE_PERSISTENT,
        )
    };
    if r != 0 {
        return Err("shmcache: could not register the apcu_* functions (is another extension defining them?)".into());
    }
    let _ = REGISTERED.set(registered);
    apcu_iterator::register(module_number)
}

/// MSHUTDOWN: removes the functions `register` added (PHP only removes a module's own table).
pub fn unregister() {
    if let Some(registered) = REGISTERED.get() {
        let count = (registered.entries.len() - 1) as c_int;
        // SAFETY: the same table `register` registered, still alive; PHP is shutting the
        // module down and no PHP code runs any more.
        unsafe {
            zend_unregister_functions(registered.entries.as_ptr(), count, std::ptr::null_mut())
        };
    }
}
