//! Tiered mode in PHP (`shmcache.redis`): every `shmcache_*` function and `ShmCache` method
//! goes through `crate::tier` when it is set. Off, the only cost is one relaxed load (`on`).
//!
//! One `Tier` (one Redis connection) per process, made at the process's first request (so a
//! pool's `php_admin_value` applies, and never in the FPM master, which serves no request).
//! No PHP code runs while it is borrowed: values are copied out first, and a Redis failure is
//! reported afterwards (`warn_pending`), when nothing is held.

use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU32, AtomicU64, AtomicU8, Ordering};
use std::sync::Mutex;

use std::ffi::{c_int, CString};
use std::time::{Duration, Instant};

use super::ffi::php_log_err_with_severity;
use super::ini;
use crate::engine::{Cache, Namespace, ValueKind, ValueSink};
use crate::tier::positions::{self, Alone};
use crate::tier::time;
use crate::tier::{Near, Tier, TierCounters, WriteMode};

const LOG_WARNING: c_int = 4;
/// The same message is logged at most this often per process.
const LOG_EVERY: Duration = Duration::from_secs(10);

/// Where this request's writes go (`on_for_write`).
const WRITE_LOCAL: u8 = 0;
/// Through the tier glue (whenever `on`).
const WRITE_TIER: u8 = 1;
/// To the region unless a tiered process has marked it (a process without the tier on a named
/// region).
const WRITE_UNLESS_MARKED: u8 = 2;

/// This process's tier: what its `shmcache.redis` made of it, and where its current request
/// stands. One process serves one request at a time, on one thread: Relaxed is enough for the
/// atomics, which are atomics only to live in a static.
struct ProcessTier {
    // Read by every call.
    on: AtomicBool,
    /// WRITE_LOCAL, WRITE_TIER or WRITE_UNLESS_MARKED.
    write_mode: AtomicU8,
    /// Until when (nanoseconds on `time::coarse_now`'s clock) this request may read the near
    /// copy without asking the tier: its last answer to `trusted`, kept by `with`. 0: ask. Reset
    /// at every request start.
    trusted_until_ns: AtomicU64,
    /// The wall clock minus the coarse monotonic clock (ms, `time::coarse_offset_ms`) when this
    /// process last asked the tier, which then checked the wall clock against the region's: a
    /// near read without asking the tier again requires that the wall clock has not gone back
    /// since.
    clock_base_ms: AtomicI64,
    /// Near hits of this process's reads, counted without taking the tier's lock; added to the
    /// tier's own count in `status`.
    near_hits: AtomicU64,
    /// Something may be reported (`warn_pending`): a warning of the tier, a configuration error
    /// or a reason to stay out.
    report_due: AtomicBool,
    // Set at the process's first request.
    tier: Mutex<Option<Tier>>,
    configured_pid: AtomicU32,
    /// This process has `shmcache.redis` (valid or not).
    configured: AtomicBool,
    /// The configuration error of this process, reported once per request while it stands.
    config_error: Mutex<Option<String>>,
    config_error_warned: AtomicBool,
    /// Set for this request when the process has no tier but its region is used by tiered ones.
    stay_out: Mutex<Option<String>>,
    /// This request, without the tier, found its anonymous region unmarked and used it: if a
    /// tiered process marks it meanwhile, `at_request_end` makes the tier start over.
    used_unmarked: AtomicBool,
    last_error: Mutex<Option<LastError>>,
}

static STATE: ProcessTier = ProcessTier {
    on: AtomicBool::new(false),
    write_mode: AtomicU8::new(WRITE_LOCAL),
    trusted_until_ns: AtomicU64::new(0),
    clock_base_ms: AtomicI64::new(0),
    near_hits: AtomicU64::new(0),
    report_due: AtomicBool::new(false),
    tier: Mutex::new(None),
    configured_pid: AtomicU32::new(0),
    configured: AtomicBool::new(false),
    config_error: Mutex::new(None),
    used_unmarked: AtomicBool::new(false),
    config_error_warned: AtomicBool::new(false),
    stay_out: Mutex::new(None),
    last_error: Mutex::new(None),
};

struct LastError {
    message: String,
    logged_at: Instant,
    /// Times it happened again since it was logged.
    unlogged: u64,
}

#[inline]
pub fn on() -> bool {
    STATE.on.load(Ordering::Relaxed)
}

/// RINIT: reads the settings at a process's first request; every request starts untrusted.
pub fn at_request_start() {
    let pid = std::process::id();
    if STATE.configured_pid.swap(pid, Ordering::Relaxed) != pid {
        let mut tier = STATE.tier.lock().unwrap_or_else(|e| e.into_inner());
        *tier = None;
        STATE.near_hits.store(0, Ordering::Relaxed);
        match ini::tier_config() {
            Ok(Some(config)) => match Tier::new(config) {
                Ok(t) => *tier = Some(t),
                Err(e) => {
                    *STATE.config_error.lock().unwrap_or_else(|e| e.into_inner()) =
                        Some(e.to_string())
                }
            },
            Ok(None) => {}
            Err(e) => *STATE.config_error.lock().unwrap_or_else(|e| e.into_inner()) = Some(e),
        }
        let configured =
            tier.is_some() || STATE.config_error.lock().map(|e| e.is_some()).unwrap_or(true);
        STATE.configured.store(configured, Ordering::Relaxed);
    }
    STATE.config_error_warned.store(false, Ordering::Relaxed);
    STATE.trusted_until_ns.store(0, Ordering::Relaxed);
    let misconfigured = STATE.config_error.lock().map(|e| e.is_some()).unwrap_or(true);
    STATE.report_due.store(misconfigured, Ordering::Relaxed);
    *STATE.stay_out.lock().unwrap_or_else(|e| e.into_inner()) = None;
    STATE.used_unmarked.store(false, Ordering::Relaxed);
    let configured = STATE.configured.load(Ordering::Relaxed);
    STATE.on.store(configured, Ordering::Relaxed);
    STATE.write_mode.store(if configured { WRITE_TIER } else { WRITE_LOCAL }, Ordering::Relaxed);
    if let Some(mut tier) = crate::tier::lock(&STATE.tier) {
        if let Some(t) = tier.as_mut() {
            t.begin_request();
        }
    }
    // A named region not open yet is checked when it opens (`named::open_on_demand`).
    if let Some(cache) = super::cache_if_open() {
        region_in_use(cache);
    }
}

/// `shmcache_begin_request()`: a new logical request inside this PHP request (a worker-mode
/// runtime's loop). The per-request state starts over as at RINIT (the region's mark or stay-out
/// check included), then a tiered process syncs at once. Only the tier's state: a named region
/// is switched (replaced file, `named`) between PHP requests only, when no reference to it is
/// alive, never from PHP code.
pub fn begin_logical_request() -> bool {
    at_request_start();
    let Some(cache) = super::cache() else { return false };
    if !on() {
        return true;
    }
    let trusted = trusted(cache);
    warn_pending();
    trusted
}

/// A request of this process starts using `cache` (at RINIT, or when its named region opens):
/// a tiered process marks the region; one without the tier stays out of a region tiered
/// processes use (`tier::mark`). False when this process must stay out.
pub fn region_in_use(cache: &Cache) -> bool {
    if STATE.configured.load(Ordering::Relaxed) {
        positions::renew_mark(cache, time::unix_now());
        return true;
    }
    // Processes started apart (a CLI queue worker, cron, another master) share a named region:
    // a tiered one may mark it while this request runs, so its writes look at the mark first.
    // (The forked workers of one master share an anonymous region: their pools differ in
    // `shmcache.redis` only by misconfiguration, which the check above reports at each request;
    // writes there keep the cost they have without the tier.)
    let named = super::named::configured();
    STATE
        .write_mode
        .store(if named { WRITE_UNLESS_MARKED } else { WRITE_LOCAL }, Ordering::Relaxed);
    if !positions::is_marked(cache) {
        STATE.used_unmarked.store(!named, Ordering::Relaxed);
        return true;
    }
    match positions::enter_alone(cache, time::unix_now(), positions::LEASE_SECONDS) {
        Alone::Free => {
            STATE.used_unmarked.store(!named, Ordering::Relaxed);
            true
        }
        Alone::TakenOver { idle_seconds } => {
            STATE.used_unmarked.store(!named, Ordering::Relaxed);
            log(&format!(
                "shmcache: no process with shmcache.redis has used this region for {idle_seconds} s; \
                 its near copy was emptied and it is now used without the tier"
            ));
            true
        }
        Alone::Tiered { seconds_ago } => {
            let message = format!(
                "shmcache: this region is used in tiered mode (a process with shmcache.redis started a \
                 request on it {seconds_ago} s ago), but shmcache.redis is not set here; this request \
                 does not use the cache (set the same shmcache.redis for every process of the region)"
            );
            *STATE.stay_out.lock().unwrap_or_else(|e| e.into_inner()) = Some(message);
            STATE.report_due.store(true, Ordering::Relaxed);
            STATE.on.store(true, Ordering::Relaxed);
            STATE.write_mode.store(WRITE_TIER, Ordering::Relaxed);
            false
        }
    }
}

/// RSHUTDOWN of a process without the tier on an anonymous region (the pools of one FPM master
/// that differ in `shmcache.redis`, a misconfiguration): if a tiered process marked the region
/// while this request used it, this request may have written values Redis never had into what
/// is now a near copy (its writes do not look at the mark: on an anonymous region they keep the
/// cost they have without the tier). The region's epoch word goes to 0, so every tiered
/// process empties its near copy at its next sync, before reading it again (as after a
/// takeover: `positions::disown`). Nothing on the get/set path; one load per request.
pub fn at_request_end() {
    if !STATE.used_unmarked.swap(false, Ordering::Relaxed) {
        return;
    }
    let Some(cache) = super::cache_if_open() else { return };
    if positions::is_marked(cache) {
        positions::disown(cache);
        log("shmcache: a process with shmcache.redis started using this region during a request \
             of this process, which does not have shmcache.redis; the tier's near copy will be \
             emptied (set the same shmcache.redis for every pool of the master)");
    }
}

/// Whether a write goes through the tier glue (which, without a tier, refuses it) rather than
/// straight to the region: always with the tier; without it, on a named region, once a tiered
/// process has marked the region since this request's start (`region_in_use` checked the mark
/// then, but a request that began earlier, such as a queue worker's, would otherwise keep
/// writing values Redis never had into the near copy). One load of a byte, as `on` is, on the
/// path without the tier.
#[inline(always)]
pub fn on_for_write(cache: &Cache) -> bool {
    match STATE.write_mode.load(Ordering::Relaxed) {
        WRITE_LOCAL => false,
        WRITE_TIER => true,
        _ => marked_since_request_start(cache),
    }
}

#[cold]
#[inline(never)]
fn marked_since_request_start(cache: &Cache) -> bool {
    // Decided as at a request's start: stay out of a recent mark (then every call goes through
    // the tier glue for the rest of the request), take a lapsed one over.
    positions::is_marked(cache) && !region_in_use(cache)
}

/// Runs `f` on this process's tier; None when it is misconfigured (every call then misses or
/// fails, as when Redis is down, never serving the region unchecked).
fn with<R>(f: impl FnOnce(&mut Tier) -> R) -> Option<R> {
    let mut guard = crate::tier::lock(&STATE.tier)?;
    let tier = guard.as_mut()?;
    // Cleared while the tier works: a call that fails (or panics) leaves it 0.
    STATE.trusted_until_ns.store(0, Ordering::Relaxed);
    // Read before the tier checks the clock: a step back after this is seen by `near_readable`.
    // (The test hook's shift goes into the base only: while the hook has the clock ahead, near
    // reads ask the tier every time; once it steps back, `near_readable` sees the step.)
    let base = time::coarse_offset_ms() + time::test_shift_ms();
    STATE.clock_base_ms.store(base, Ordering::Relaxed);
    let result = f(tier);
    if tier.has_warning() {
        STATE.report_due.store(true, Ordering::Relaxed);
    }
    if let Some(until) = tier.trusted_until() {
        STATE
            .trusted_until_ns
            .store(u64::try_from(until.as_nanos()).unwrap_or(u64::MAX), Ordering::Relaxed);
    }
    Some(result)
}

/// Whether this request may read the near copy: without taking the tier's lock while its last
/// answer stands (`near_readable`), else by asking it (which syncs when due).
#[inline]
fn trusted(cache: &Cache) -> bool {
    near_readable() || with(|t| t.trusted(cache)).unwrap_or(false)
}

/// Whether the tier's last answer that this request may read the near copy still stands
/// (`ProcessTier::trusted_until_ns`), and the wall clock has not gone back since it was given (then the
/// tier must check the region's clock first: `tier::clock`): no lock, no call into the tier.
#[inline(always)]
pub fn near_readable() -> bool {
    let until = STATE.trusted_until_ns.load(Ordering::Relaxed);
    until != 0
        && (time::coarse_now().as_nanos() as u64) < until
        && time::coarse_offset_ms() + positions::TOLERANCE_MS as i64
            >= STATE.clock_base_ms.load(Ordering::Relaxed)
}

/// `tier::read_near`, its hits counted in this process's count (no lock taken), and the
/// region's hit and miss counts kept in the process until the request ends (PHP runs one
/// request at a time per process here: no ZTS, build.rs; RSHUTDOWN adds them).
#[inline(always)]
pub fn read_near<S: ValueSink>(cache: &Cache, ns: &Namespace, key: &[u8], sink: &mut S) -> Near {
    crate::tier::read_near::<S, true>(cache, ns, key, sink, || {
        // A plain load and store: only this process's one thread counts.
        STATE.near_hits.store(STATE.near_hits.load(Ordering::Relaxed) + 1, Ordering::Relaxed)
    })
}

/// Reports this request's Redis failure, misconfiguration or reason to stay out, if there is
/// one, to PHP's error log. Not as a PHP warning: frameworks turn warnings into exceptions,
/// and no request may fail because of Redis. The same message is logged at most once every
/// LOG_EVERY per process (an outage must not write a line per request); `shmcache_info()`
/// carries the last one (`tier_last_error`).
pub fn warn_pending() {
    // The common case, on every tiered call: nothing to report, and no lock taken to know it.
    if !STATE.report_due.load(Ordering::Relaxed) {
        return;
    }
    STATE.report_due.store(false, Ordering::Relaxed);
    let message = with(|t| t.take_warning()).flatten().or_else(|| {
        let error = STATE
            .config_error
            .lock()
            .ok()
            .and_then(|e| e.clone())
            .or_else(|| STATE.stay_out.lock().ok().and_then(|e| e.clone()))?;
        (!STATE.config_error_warned.swap(true, Ordering::Relaxed)).then_some(error)
    });
    let Some(message) = message else { return };
    let mut last = STATE.last_error.lock().unwrap_or_else(|e| e.into_inner());
    let now = Instant::now();
    let repeated = last
        .as_ref()
        .is_some_and(|l| l.message == message && now.duration_since(l.logged_at) < LOG_EVERY);
    if repeated {
        if let Some(l) = last.as_mut() {
            l.unlogged += 1;
        }
        return;
    }
    let unlogged = last.as_ref().filter(|l| l.message == message).map_or(0, |l| l.unlogged);
    *last = Some(LastError { message: message.clone(), logged_at: now, unlogged: 0 });
    drop(last);
    if unlogged > 0 {
        log(&format!("{message} (and {unlogged} more times since it was last logged)"));
    } else {
        log(&message);
    }
}

/// The last Redis failure or misconfiguration this process reported, for `shmcache_info()`.
pub fn last_error() -> Option<String> {
    STATE.last_error.lock().ok().and_then(|l| l.as_ref().map(|l| l.message.clone()))
}

fn log(message: &str) {
    let c = CString::new(message.replace('\0', " ")).unwrap_or_default();
    // SAFETY: a NUL-terminated message; PHP's error log is usable during a request.
    unsafe { php_log_err_with_severity(c.as_ptr(), LOG_WARNING) };
}

pub fn get_into<S: ValueSink>(
    cache: &Cache,
    ns: &Namespace,
    key: &[u8],
    sink: &mut S,
) -> Option<ValueKind> {
    if !trusted(cache) {
        return None;
    }
    // The near read fills PHP's memory, so it runs with the tier not borrowed.
    match read_near(cache, ns, key, sink) {
        Near::Hit(kind) => Some(kind),
        Near::Absent => None,
        Near::Miss => fetch_into_sink(cache, ns, key, sink),
    }
}

/// A near miss: the value from Redis into `sink` (the near copy is filled on the way).
pub fn fetch_into_sink<S: ValueSink>(
    cache: &Cache,
    ns: &Namespace,
    key: &[u8],
    sink: &mut S,
) -> Option<ValueKind> {
    let mut copy = Vec::new();
    let kind = with(|t| t.fetch(cache, ns, key, &mut copy)).flatten()?;
    let buf = sink.buffer(kind, copy.len());
    // SAFETY: ValueSink's contract: `buf` is writable for `copy.len()` bytes.
    unsafe { std::ptr::copy_nonoverlapping(copy.as_ptr(), buf, copy.len()) };
    Some(kind)
}

pub fn store(
    cache: &Cache,
    ns: &Namespace,
    key: &[u8],
    kind: ValueKind,
    value: &[u8],
    ttl: i64,
    mode: WriteMode,
) -> bool {
    with(|t| t.store(cache, ns, key, kind, value, ttl, mode)).unwrap_or(false)
}

pub fn delete(cache: &Cache, ns: &Namespace, key: &[u8]) -> bool {
    with(|t| t.delete(cache, ns, key)).unwrap_or(false)
}

pub fn exists(cache: &Cache, ns: &Namespace, key: &[u8]) -> bool {
    with(|t| t.exists(cache, ns, key)).unwrap_or(false)
}

pub fn ttl(cache: &Cache, ns: &Namespace, key: &[u8]) -> Option<i64> {
    with(|t| t.ttl(cache, ns, key)).flatten()
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

/// For shmcache_info(): the settings in use and this worker's counters; the error is the
/// misconfiguration, or why this request stays out of the region.
pub fn status() -> Option<(String, TierCounters, Option<String>)> {
    if !on() {
        return None;
    }
    let error = STATE
        .config_error
        .lock()
        .ok()
        .and_then(|e| e.clone())
        .or_else(|| STATE.stay_out.lock().ok().and_then(|e| e.clone()));
    let (url, mut counters) = with(|t| (t.config().url.clone(), t.counters)).unwrap_or_default();
    counters.near_hits += STATE.near_hits.load(Ordering::Relaxed);
    Some((url, counters, error))
}
