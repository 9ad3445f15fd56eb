//! Opening a named region at the first request of each process (`shmcache.region`), and
//! noticing when its file was replaced or removed. Decisions live in `engine::named`; this
//! module reads the INI, reports errors the PHP way and keeps what `shmcache_info()` shows.

use std::cell::RefCell;
use std::ffi::{c_int, CString};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use super::ffi::php_log_err_with_severity;
use super::region::{self, switch_to};
use super::{ini, warn};
use crate::engine::named::{self, NamedOptions, Opened};
use crate::engine::Cache;

const LOG_NOTICE: c_int = 5;

/// After a failed open, the next try waits this long (each try costs syscalls and a warning).
const RETRY_AFTER: Duration = Duration::from_secs(5);

/// What this process knows of its named region, for `shmcache_info()`.
#[derive(Clone, Default)]
pub struct NamedStatus {
    pub name: String,
    pub path: Option<PathBuf>,
    /// "created", "attached" or "replaced", once open.
    pub opened: Option<&'static str>,
    pub error: Option<String>,
}

#[derive(Default)]
struct State {
    decided: bool,
    settings: Option<ini::NamedRegionSettings>,
    status: NamedStatus,
    retry_at: Option<Instant>,
    tried_this_request: bool,
}

thread_local! {
    static STATE: RefCell<State> = RefCell::new(State::default());
}

/// The named region's status; None when this process uses the anonymous region (or none).
/// Whether this process uses a named region (one that processes started apart share).
pub fn configured() -> bool {
    STATE.with(|s| s.borrow().settings.is_some())
}

pub fn status() -> Option<NamedStatus> {
    STATE.with(|s| {
        let s = s.borrow();
        s.settings.as_ref().map(|_| s.status.clone())
    })
}

/// RINIT: decides once per process whether it uses a named region (its pool's settings are
/// known from its first request on), and lets go of a named region whose file was replaced or
/// removed. The region itself is opened by the first cache call (`open_on_demand`), so a
/// command that never uses the cache (composer, say, under a CLI configuration that names a
/// region) neither opens it nor warns about it.
pub fn at_request_start() {
    let warning = STATE.with(|cell| {
        let mut state = cell.borrow_mut();
        if !state.decided {
            state.decided = true;
            if !ini::enable() {
                return None;
            }
            match ini::named_region() {
                Ok(Some(settings)) => {
                    state.status.name = settings.name.clone();
                    state.status.path = named::region_path(&settings.name).ok();
                    state.settings = Some(settings);
                    // A worker of a pool with a name still holds the anonymous region its master
                    // created (the master's own INI names none): never use it.
                    switch_to(None);
                }
                Ok(None) => {}
                Err(message) => return Some(message),
            }
        }
        state.settings.as_ref()?;
        state.tried_this_request = false;
        if region::cache_if_open().is_some_and(|c| c.region().file_unlinked()) {
            switch_to(None);
            state.status.opened = None;
            state.retry_at = None;
        }
        None
    });
    if let Some(message) = warning {
        warn::warning(message);
    }
}

/// Called by `cache()` when no region is open: opens this process's named region, at most once
/// per request (and, after a failure, not again for RETRY_AFTER), and warns when it cannot.
#[cold]
pub fn open_on_demand() -> Option<&'static Cache> {
    let outcome = STATE.with(|cell| {
        let mut state = cell.borrow_mut();
        state.settings.as_ref()?;
        if state.tried_this_request || state.retry_at.is_some_and(|t| Instant::now() < t) {
            return None;
        }
        state.tried_this_request = true;
        let opened = open(state.settings.as_ref()?);
        match opened {
            Ok((cache, path, opened)) => {
                let replaced = match &opened {
                    Opened::Replaced(reason) => {
                        Some(format!("shmcache: replaced the region {}: {reason}", path.display()))
                    }
                    _ => None,
                };
                state.status.opened = Some(match opened {
                    Opened::Created => "created",
                    Opened::Attached => "attached",
                    Opened::Replaced(_) => "replaced",
                });
                state.status.path = Some(path);
                state.status.error = None;
                state.retry_at = None;
                switch_to(Some(cache));
                Some(Ok(replaced))
            }
            Err(message) => {
                // Never some other region: without its own, the process runs with no cache.
                state.status.opened = None;
                state.status.error = Some(message.clone());
                state.retry_at = Some(Instant::now() + RETRY_AFTER);
                Some(Err(message))
            }
        }
    });
    // Reported once the state is no longer borrowed: a user error handler may call the cache.
    match outcome? {
        Ok(replaced) => {
            if let Some(line) = replaced {
                log(&line);
            }
            let cache = region::cache_if_open()?;
            // A process without the tier in a region tiered processes use misses this call too
            // (its later calls go the tier's way, which refuses them).
            super::tier::region_in_use(cache).then_some(cache)
        }
        Err(mut message) => {
            message.push_str("; the cache is disabled in this process");
            warn::warning(message);
            None
        }
    }
}

fn open(settings: &ini::NamedRegionSettings) -> Result<(Cache, PathBuf, Opened), String> {
    let path = named::region_path(&settings.name).map_err(|e| format!("shmcache: {e}"))?;
    let config = ini::config()?;
    let options = NamedOptions {
        group: settings.group,
        owner: settings.owner,
        insist_on_sizes: settings.sizes_explicit,
    };
    let (region, opened) =
        named::open(&path, &config, &options).map_err(|e| format!("shmcache: {e}"))?;
    Ok((Cache::over(region), path, opened))
}

fn log(message: &str) {
    let c = CString::new(message.replace('\0', " ")).unwrap_or_default();
    // SAFETY: a NUL-terminated message; PHP's error log is usable during a request.
    unsafe { php_log_err_with_severity(c.as_ptr(), LOG_NOTICE) };
}
