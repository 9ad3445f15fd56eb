//! Tiered mode in PHP (`shmcache.redis`): every `shmcache_*` function and `ShmCache` method
//! goes through `crate::tier` when it is set. Off, the only cost is one relaxed load (`on`).
//!
//! One `Tier` (one Redis connection) per process, made at the process's first request (so a
//! pool's `php_admin_value` applies, and never in the FPM master, which serves no request).
//! No PHP code runs while it is borrowed: values are copied out first, and the warning of a
//! Redis failure is raised afterwards (`warn_pending`), when nothing is held.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use ext_php_rs::ffi::php_error_docref;
use ext_php_rs::flags::ErrorType;

use super::ini;
use crate::engine::{Cache, Namespace, ValueKind, ValueSink};
use crate::tier::{Tier, TierCounters, WriteMode};


static ON: AtomicBool = AtomicBool::new(false);
static TIER: Mutex<Option<Tier>> = Mutex::new(None);
/// The configuration error of this process, reported once per request while it stands.
static CONFIG_ERROR: Mutex<Option<String>> = Mutex::new(None);
static CONFIGURED_PID: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
static CONFIG_ERROR_WARNED: AtomicBool = AtomicBool::new(false);

#[inline]
pub fn on() -> bool {
    ON.load(Ordering::Relaxed)
}

/// RINIT: reads the settings at a process's first request; every request starts untrusted.
pub fn at_request_start() {
    let pid = std::process::id();
    if CONFIGURED_PID.swap(pid, Ordering::Relaxed) != pid {
        let mut tier = TIER.lock().unwrap_or_else(|e| e.into_inner());
        *tier = None;
        match ini::tier_config() {
            Ok(Some(config)) => match Tier::new(config) {
                Ok(t) => *tier = Some(t),
                Err(e) => *CONFIG_ERROR.lock().unwrap_or_else(|e| e.into_inner()) = Some(e),
            },
            Ok(None) => {}
            Err(e) => *CONFIG_ERROR.lock().unwrap_or_else(|e| e.into_inner()) = Some(e),
        }
        let configured = tier.is_some() || CONFIG_ERROR.lock().map(|e| e.is_some()).unwrap_or(true);
        ON.store(configured, Ordering::Relaxed);
    }
    CONFIG_ERROR_WARNED.store(false, Ordering::Relaxed);
    if let Some(mut tier) = crate::tier::lock(&TIER) {
        if let Some(t) = tier.as_mut() {
            t.begin_request();
        }
    }
}

/// Runs `f` on this process's tier; None when it is misconfigured (every call then misses or
/// fails, as when Redis is down, never serving the region unchecked).
fn with<R>(f: impl FnOnce(&mut Tier) -> R) -> Option<R> {
    let mut guard = crate::tier::lock(&TIER)?;
    guard.as_mut().map(f)
}

/// Raises this request's warning about Redis (once), if there is one.
pub fn warn_pending() {
    let message = with(|t| t.take_warning()).flatten().or_else(|| {
        let error = CONFIG_ERROR.lock().ok().and_then(|e| e.clone())?;
        (!CONFIG_ERROR_WARNED.swap(true, Ordering::Relaxed)).then_some(error)
    });
    if let Some(message) = message {
        let c = std::ffi::CString::new(message.replace('\0', " ")).unwrap_or_default();
        // SAFETY: "%s" with one NUL-terminated argument that outlives the call.
        unsafe { php_error_docref(std::ptr::null(), ErrorType::Warning.bits() as i32, c"%s".as_ptr(), c.as_ptr()) };
    }
}

pub fn get_into<S: ValueSink>(cache: &Cache, ns: &Namespace, key: &[u8], sink: &mut S) -> Option<ValueKind> {
    if !with(|t| t.trusted(cache)).unwrap_or(false) {
        return None;
    }
    // The near read fills PHP's memory, so it runs with the tier not borrowed.
    if let Ok(Some(kind)) = cache.get_into(ns, key, sink) {
        with(|t| t.count_near_hit());
        if kind == crate::tier::ABSENT {
            sink.discard();
            return None;
        }
        return Some(kind);
    }
    let mut copy = Vec::new();
    let kind = with(|t| t.fetch(cache, ns, key, &mut copy)).flatten()?;
    let buf = sink.buffer(kind, copy.len());
    // SAFETY: ValueSink's contract: `buf` is writable for `copy.len()` bytes.
    unsafe { std::ptr::copy_nonoverlapping(copy.as_ptr(), buf, copy.len()) };
    Some(kind)
}

pub fn store(cache: &Cache, ns: &Namespace, key: &[u8], kind: ValueKind, value: &[u8], ttl: i64, mode: WriteMode) -> bool {
    with(|t| t.store(cache, ns, key, kind, value, ttl, mode)).unwrap_or(false)
}

pub fn delete(cache: &Cache, ns: &Namespace, key: &[u8]) -> bool {
    with(|t| t.delete(cache, ns, key)).unwrap_or(false)
}

pub fn exists(cache: &Cache, ns: &Namespace, key: &[u8]) -> bool {
    with(|t| t.exists(cache, ns, key)).unwrap_or(false)
}

pub fn incr(cache: &Cache, ns: &Namespace, key: &[u8], delta: i64) -> Option<i64> {
    with(|t| t.incr(cache, ns, key, delta)).flatten()
}

pub fn cas(cache: &Cache, ns: &Namespace, key: &[u8], old: i64, new: i64) -> bool {
    with(|t| t.cas(cache, ns, key, old, new)).unwrap_or(false)
}

pub fn flush(cache: &Cache, ns: &Namespace) -> bool {
    with(|t| t.flush(cache, ns)).unwrap_or(false)
}

pub fn generation(cache: &Cache, ns: &Namespace) -> i64 {
    with(|t| t.generation(cache, ns)).unwrap_or(0)
}

/// For shmcache_info(): the settings in use and this worker's counters.
pub fn status() -> Option<(String, TierCounters, Option<String>)> {
    if !on() {
        return None;
    }
    let error = CONFIG_ERROR.lock().ok().and_then(|e| e.clone());
    let (url, counters) = with(|t| (t.config().url.clone(), t.counters)).unwrap_or_default();
    Some((url, counters, error))
}
