//! The ext-php-rs glue: module registration, startup/shutdown and the process-wide cache.
//!
//! Everything here is thin: argument checking and zval conversion live in `args` and `codec`,
//! the operations shared by the functions and the class in `ops`, and the cache in `engine`.

mod apcu;
mod args;
mod batch;
mod class;
mod codec;
mod fast;
mod ffi;
mod functions;
mod handler;
mod hash;
mod held;
mod info;
mod ini;
mod kinds;
mod named;
mod ops;
mod region;
mod sink;
mod tier;
mod warn;
mod zalloc;
mod zstr;

use ext_php_rs::prelude::*;

use crate::engine::MAX_KEY_LEN;

// `ops` and `tier` find the region here (`region::cache`), until the tier's rework moves them.
pub(crate) use region::{cache, cache_if_open};

pub const VERSION: &str = env!("CARGO_PKG_VERSION");

#[php_const]
pub const SHMCACHE_VERSION: &str = VERSION;
#[php_const]
pub const SHMCACHE_MAX_KEY_LENGTH: i64 = MAX_KEY_LEN as i64;

fn startup(_ty: i32, module_number: i32) -> i32 {
    std::panic::catch_unwind(|| {
        region::install_fork_hook();
        ini::register(module_number);
        // Sizes are checked even where no region is made: `php --ri shmcache` on the CLI is how
        // people verify a configuration, so a bad size must fail there too, not only in FPM.
        let (enabled, config) = match ini::enabled_here().and_then(|e| Ok((e, ini::config()?))) {
            Ok(v) => v,
            Err(message) => {
                ini::startup_error(&message);
                return -1;
            }
        };
        if let Err(message) = start_apcu_compat(module_number) {
            ini::startup_error(&message);
            return -1;
        }
        // A named region is opened per process at its first request (its pool's settings are
        // known then); the master then maps nothing.
        let named = match ini::named_region() {
            Ok(n) => n.is_some(),
            Err(message) => {
                ini::startup_error(&message);
                return -1;
            }
        };
        if !enabled || named {
            return 0;
        }
        match region::create(&config) {
            Ok(()) => 0,
            Err(message) => {
                ini::startup_error(&message);
                -1
            }
        }
    })
    .unwrap_or(-1)
}

/// `shmcache.apcu_compat=1`: registers the apcu_* functions, unless APCu itself is loaded
/// (then it keeps its functions, and a startup warning says why ours are not there).
fn start_apcu_compat(module_number: i32) -> Result<(), String> {
    if !ini::apcu_compat()? {
        return Ok(());
    }
    if apcu_extension_loaded() {
        ini::startup_error(
            "shmcache: shmcache.apcu_compat=1 is ignored because the APCu extension is loaded; \
             remove extension=apcu.so to serve the apcu_* functions from shmcache",
        );
        return Ok(());
    }
    apcu::register(module_number)?;
    ini::register_apc_mirrors(module_number)?;
    // Applications that test for the extension (extension_loaded, phpversion) find it too.
    apcu::module::register()
}

fn apcu_extension_loaded() -> bool {
    // SAFETY: PHP's registry of modules, filled as extensions load (before any MINIT) and only
    // read here, during MINIT, on the startup thread.
    unsafe {
        !ext_php_rs::ffi::zend_hash_str_find(
            std::ptr::addr_of!(ffi::module_registry),
            c"apcu".as_ptr(),
            4,
        )
        .is_null()
    }
}

extern "C" fn shutdown(_ty: i32, module_number: i32) -> i32 {
    apcu::unregister();
    region::close();
    ini::unregister(module_number);
    0
}

/// RINIT: the first request of each process installs the hand-written handlers (`handler`);
/// every request starts a new set of shared strings (`zstr`).
extern "C" fn request_startup(_ty: i32, _module_number: i32) -> i32 {
    zstr::new_request();
    let _ = std::panic::catch_unwind(named::at_request_start);
    let _ = std::panic::catch_unwind(tier::at_request_start);
    // A panic must not unwind into PHP; the handlers simply stay the generated ones.
    let _ = std::panic::catch_unwind(handler::install_once);
    0
}

/// RSHUTDOWN: the request's read counts reach the shared counters; its shared strings are
/// released (`zstr`).
extern "C" fn request_shutdown(_ty: i32, _module_number: i32) -> i32 {
    let _ = std::panic::catch_unwind(region::add_deferred_reads);
    let _ = std::panic::catch_unwind(apcu::release_abandoned_leases);
    let _ = std::panic::catch_unwind(tier::at_request_end);
    let _ = std::panic::catch_unwind(zstr::end_request);
    let _ = std::panic::catch_unwind(codec::release_abandoned);
    let _ = std::panic::catch_unwind(held::release_abandoned);
    0
}

#[php_module]
#[php(startup = "startup")]
pub fn get_module(module: ModuleBuilder) -> ModuleBuilder {
    functions::register(module)
        .shutdown_function(shutdown)
        .request_startup_function(request_startup)
        .request_shutdown_function(request_shutdown)
        .info_function(info::php_info)
        .constant(wrap_constant!(SHMCACHE_VERSION))
        .constant(wrap_constant!(SHMCACHE_MAX_KEY_LENGTH))
        .class::<class::ShmCache>()
}
