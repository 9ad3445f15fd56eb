//! The leases of running `apcu_entry()` generators, free of PHP: an added key with a short TTL
//! holding its owner's pid, in a namespace of its own, and the ones this process holds.

use std::cell::RefCell;
use std::sync::OnceLock;

use crate::engine::{Cache, Namespace, ValueKind};
use crate::php::region::cache;

/// How long an `apcu_entry()` generator may hold its key before others stop waiting and run
/// their own (seconds; the expiry clock ticks in whole seconds, so 4 to 5 s).
pub(super) const LEASE_SECONDS: i64 = 5;

/// The leases of running `apcu_entry()` generators, by key; each holds its owner's pid.
pub(super) fn lease_namespace() -> &'static Namespace {
    static NS: OnceLock<Namespace> = OnceLock::new();
    NS.get_or_init(|| Namespace::new(b"apcu\0lease").expect("a short name").local())
}

thread_local! {
    /// Leases this process holds (running generators, outermost first): released at request
    /// end when a fatal error (a timeout) abandoned the generator, so no one waits on them.
    pub(super) static HELD_LEASES: RefCell<Vec<Vec<u8>>> = const { RefCell::new(Vec::new()) };
}

/// The lease key of an APCu key: its shmcache key (the empty key has one of its own).
pub(super) fn lease_key(key: &[u8]) -> Vec<u8> {
    if key.is_empty() {
        b"\0".to_vec()
    } else {
        key.to_vec()
    }
}

/// Whether process `pid` is gone (or a zombie): then its lease can be taken over at once.
pub(super) fn process_gone(pid: i64) -> bool {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else { return true };
    // "pid (comm) S ...": the state follows the last ')' (comm may hold any bytes).
    let state = stat.rfind(')').and_then(|i| stat[i + 1..].trim_start().chars().next());
    matches!(state, Some('Z' | 'X'))
}

pub(super) fn lease_owner(cache: &Cache, lease: &[u8]) -> Option<i64> {
    let mut bytes = Vec::new();
    match cache.get(lease_namespace(), lease, &mut bytes) {
        Ok(Some(ValueKind::INT)) => {
            <[u8; 8]>::try_from(bytes.as_slice()).ok().map(i64::from_le_bytes)
        }
        _ => None,
    }
}

pub(super) fn release_lease(cache: &Cache, lease: &[u8]) {
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
