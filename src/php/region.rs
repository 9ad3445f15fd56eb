//! The region of this process, from startup to shutdown: the anonymous one, created at MINIT
//! (in the FPM master, so every worker inherits the mapping), or a named one, opened at a
//! process's first request (`named`, which also switches to another when its file is
//! replaced). Dropped at MSHUTDOWN. Every cache call finds it through `cache()`.

use std::sync::atomic::{AtomicPtr, Ordering};

use super::{ini, named};
use crate::engine::{Cache, Config};

/// This process's region; null when disabled (or not open yet).
static CACHE: AtomicPtr<Cache> = AtomicPtr::new(std::ptr::null_mut());

/// The cache, or None when the extension is disabled in this SAPI (or its named region cannot
/// be opened). A process with a named region opens it here, at its first cache call.
#[inline]
pub(crate) fn cache() -> Option<&'static Cache> {
    match cache_if_open() {
        Some(c) => Some(c),
        None => named::open_on_demand(),
    }
}

/// The cache if one is open, without opening the named region.
#[inline]
pub(crate) fn cache_if_open() -> Option<&'static Cache> {
    let p = CACHE.load(Ordering::Acquire);
    // SAFETY: the pointer is either null or a leaked Box set at MINIT, or by `named` at RINIT or
    // while none was open, before any reference to it exists; it is only reclaimed at RINIT
    // (named::switch_to) or MSHUTDOWN, between requests, when no reference handed out during a
    // request is alive.
    unsafe { p.as_ref() }
}

/// RSHUTDOWN: the request's hits and misses, which reads kept in this process
/// (`Cache::get_into_deferred`), go to the shared counters before the response ends.
pub(super) fn add_deferred_reads() {
    if let Some(cache) = cache_if_open() {
        cache.add_deferred_reads();
    }
}

/// MINIT: a forked child forgets the read counts its parent kept back (they are the parent's
/// to add); one registration per process.
pub(super) fn install_fork_hook() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // SAFETY: registers a child handler that only does atomic loads and stores
        // (async-signal-safe), as a child of a multithreaded parent requires.
        unsafe {
            libc::pthread_atfork(None, None, Some(forget_parents_reads));
        }
    });
}

extern "C" fn forget_parents_reads() {
    if let Some(cache) = cache_if_open() {
        cache.forget_deferred_reads();
    }
}

/// MINIT: creates the anonymous region.
pub(super) fn create(config: &Config) -> Result<(), String> {
    // The CLI does not fork workers off this process: its pages fault in as it uses them.
    let created =
        if ini::is_cli() { Cache::create_unpopulated(config) } else { Cache::create(config) };
    match created {
        Ok(cache) => {
            CACHE.store(Box::into_raw(Box::new(cache)), Ordering::Release);
            Ok(())
        }
        Err(e) => Err(format!("shmcache: {e}")),
    }
}

/// Makes `cache` this process's cache, releasing the previous one. Only called at RINIT, or
/// while no cache is open (`open_on_demand`), so nothing borrowed from the old one is alive.
pub(super) fn switch_to(cache: Option<Cache>) {
    let new = cache.map_or(std::ptr::null_mut(), |c| Box::into_raw(Box::new(c)));
    let old = CACHE.swap(new, Ordering::AcqRel);
    if !old.is_null() {
        // SAFETY: `old` came from Box::into_raw (here or at MINIT) and was swapped out, so this
        // is its only owner; no reference to it outlives a request.
        let old = unsafe { Box::from_raw(old) };
        old.add_deferred_reads();
    }
}

/// MSHUTDOWN: drops this process's region.
pub(super) fn close() {
    let p = CACHE.swap(std::ptr::null_mut(), Ordering::AcqRel);
    if !p.is_null() {
        // SAFETY: p came from Box::into_raw at MINIT or in `switch_to` and was swapped out, so
        // this is the only owner; no PHP code of this process runs after MSHUTDOWN. Other
        // processes keep their own mapping of the region.
        let cache = unsafe { Box::from_raw(p) };
        cache.add_deferred_reads();
    }
}
