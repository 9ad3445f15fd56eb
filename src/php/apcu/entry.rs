//! `apcu_entry()`: the generator of a missing key runs once while other callers wait, the
//! running one holding a lease (`lease`).

use std::time::{Duration, Instant};

use ext_php_rs::builders::FunctionBuilder;
use ext_php_rs::prelude::*;
use ext_php_rs::types::{ZendCallable, Zval};

use super::lease::{
    lease_key, lease_namespace, lease_owner, process_gone, release_lease, HELD_LEASES,
    LEASE_SECONDS,
};
use super::params::{arg, string_param};
use super::store::{fetch_one, store_one, ApcuKey};
use crate::engine::ValueKind;
use crate::php::args::{IntArg, KeyArg};
use crate::php::codec;
use crate::php::region::cache;

/// A waiter's longest pause between two looks at the key and its lease.
const MAX_POLL: Duration = Duration::from_millis(20);

/// Runs the generator and stores what it returns (unless it threw); its return value either way.
fn generate(key: &[u8], generator: &ZendCallable, ttl: i64) -> PhpResult<Zval> {
    let key_zval = codec::string_zval(key);
    let Ok(value) = generator.try_call(vec![&key_zval]) else {
        // The generator threw (the exception stays pending) or could not be called.
        return Ok(Zval::new());
    };
    // As APCu: added, so a value stored meanwhile by apcu_store() is not overwritten.
    store_one(ApcuKey::bytes(key), &value, ttl, true, &arg("apcu_entry", 2, "callback"))?;
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
    let ttl = ttl.value_of("apcu_entry", 3, "ttl")?;
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
        if fetch_one(ApcuKey::bytes(&key), &mut out)? {
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
                let result = if fetch_one(ApcuKey::bytes(&key), &mut out)? {
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

/// `apcu_entry`, for `register`.
pub(super) fn builder() -> FunctionBuilder<'static> {
    wrap_function!(apcu_entry)
}
