//! The `shmcache.*` INI directives, all PHP_INI_SYSTEM: php.ini, `php -d`, and per FPM pool
//! with `php_admin_value` (never `.user.ini`, `php_value` or ini_set(): a site must not be able
//! to point itself at another site's region). Sizes and `enable` are read at MINIT; the
//! `region*` directives and, for a named region, the sizes again at the first request of each
//! process, once a pool's own values are applied.

use std::ffi::{c_int, c_void, CStr};
use std::sync::atomic::{AtomicBool, Ordering};

use ext_php_rs::boxed::ZBox;
use ext_php_rs::ffi::{zend_ini_entry, zend_string};
use ext_php_rs::flags::IniEntryPermission;
use ext_php_rs::types::ZendStr;
use ext_php_rs::zend::{ExecutorGlobals, IniEntryDef, IniEntryDefs};

use super::ffi::{sapi_module, zend_ini_parse_quantity, zend_unregister_ini_entries};
use crate::engine::{named, Config};
use crate::engine::{MAX_KEYS_MEMORY, MAX_VALUES_MEMORY, MIN_KEYS_MEMORY, MIN_VALUES_MEMORY};

static ENTRIES: IniEntryDefs<23> = IniEntryDefs::new([
    IniEntryDef::new(c"shmcache.enable", c"1", IniEntryPermission::System),
    IniEntryDef::new(c"shmcache.enable_cli", c"0", IniEntryPermission::System),
    IniEntryDef::new(c"shmcache.keys_memory_size", c"4M", IniEntryPermission::System),
    IniEntryDef::new(c"shmcache.values_memory_size", c"64M", IniEntryPermission::System),
    IniEntryDef::new(c"shmcache.compress_threshold", c"4096", IniEntryPermission::System),
    IniEntryDef::new(c"shmcache.region", c"", IniEntryPermission::System),
    IniEntryDef::new(c"shmcache.region_group", c"", IniEntryPermission::System),
    IniEntryDef::new(c"shmcache.region_user", c"", IniEntryPermission::System),
    IniEntryDef::new(c"shmcache.apcu_compat", c"0", IniEntryPermission::System),
    IniEntryDef::new(c"shmcache.redis", c"", IniEntryPermission::System),
    IniEntryDef::new(c"shmcache.redis_database", c"0", IniEntryPermission::System),
    IniEntryDef::new(c"shmcache.redis_prefix", c"shmcache:", IniEntryPermission::System),
    IniEntryDef::new(c"shmcache.redis_password", c"", IniEntryPermission::System),
    IniEntryDef::new(c"shmcache.redis_connect_timeout", c"50", IniEntryPermission::System),
    IniEntryDef::new(c"shmcache.redis_read_timeout", c"100", IniEntryPermission::System),
    IniEntryDef::new(c"shmcache.redis_stream_length", c"100000", IniEntryPermission::System),
    IniEntryDef::new(c"shmcache.redis_max_apply", c"1000", IniEntryPermission::System),
    IniEntryDef::new(c"shmcache.redis_resync_interval", c"1000", IniEntryPermission::System),
    IniEntryDef::new(c"shmcache.test_hook_fill_delay", c"0", IniEntryPermission::System),
    IniEntryDef::new(c"shmcache.test_hook_fill_recheck_delay", c"0", IniEntryPermission::System),
    IniEntryDef::new(c"shmcache.test_hook_clock_ahead", c"0", IniEntryPermission::System),
    IniEntryDef::new(c"shmcache.test_hook_clock_step_back_after", c"0", IniEntryPermission::System),
    IniEntryDef::end(),
]);

pub fn register(module_number: i32) {
    IniEntryDef::register(ENTRIES.as_slice(), module_number);
}

/// What `apc.enabled` and `apc.enable_cli` say under `shmcache.apcu_compat`: shmcache's own
/// `enable` and `enable_cli`, set at MINIT before the entries are registered.
static APC_ENABLED: AtomicBool = AtomicBool::new(false);
static APC_ENABLE_CLI: AtomicBool = AtomicBool::new(false);

const fn apc_mirror(name: &'static CStr, value: &'static CStr) -> IniEntryDef {
    let mut def = IniEntryDef::new(name, value, IniEntryPermission::System);
    def.on_modify = Some(apc_mirror_modified);
    def
}

/// One table per combination of the two values (PHP keeps a pointer to the table it registers).
static APC_MIRROR_TABLES: [IniEntryDefs<3>; 4] = [
    IniEntryDefs::new([
        apc_mirror(c"apc.enabled", c"0"),
        apc_mirror(c"apc.enable_cli", c"0"),
        IniEntryDef::end(),
    ]),
    IniEntryDefs::new([
        apc_mirror(c"apc.enabled", c"0"),
        apc_mirror(c"apc.enable_cli", c"1"),
        IniEntryDef::end(),
    ]),
    IniEntryDefs::new([
        apc_mirror(c"apc.enabled", c"1"),
        apc_mirror(c"apc.enable_cli", c"0"),
        IniEntryDef::end(),
    ]),
    IniEntryDefs::new([
        apc_mirror(c"apc.enabled", c"1"),
        apc_mirror(c"apc.enable_cli", c"1"),
        IniEntryDef::end(),
    ]),
];

/// `apc.enabled` / `apc.enable_cli` as read-only mirrors of shmcache's settings: APCu clients
/// check them before using the functions (Symfony's ApcuAdapter and Composer's class loader
/// ignore APCu unless `ini_get('apc.enabled')` is true; Symfony clears by prefix only when
/// `apc.enable_cli` is on in the CLI). A value set for them in php.ini, `-d` or a pool that
/// says otherwise is refused with a warning: shmcache's settings decide.
pub fn register_apc_mirrors(module_number: i32) -> Result<(), String> {
    let enabled = parse_bool("shmcache.enable")?;
    let enable_cli = parse_bool("shmcache.enable_cli")?;
    APC_ENABLED.store(enabled, Ordering::Relaxed);
    APC_ENABLE_CLI.store(enable_cli, Ordering::Relaxed);
    let table = &APC_MIRROR_TABLES[usize::from(enabled) * 2 + usize::from(enable_cli)];
    IniEntryDef::register(table.as_slice(), module_number);
    Ok(())
}

/// Accepts a value of `apc.enabled` / `apc.enable_cli` only when it says what shmcache's own
/// setting says.
unsafe extern "C" fn apc_mirror_modified(
    entry: *mut zend_ini_entry,
    new_value: *mut zend_string,
    _arg1: *mut c_void,
    _arg2: *mut c_void,
    _arg3: *mut c_void,
    _stage: c_int,
) -> c_int {
    const SUCCESS: c_int = 0;
    const FAILURE: c_int = -1;
    // SAFETY: PHP passes the entry being set and the new value (a zend_string, or null).
    let (name, value) = unsafe {
        let name = (*entry).name.as_ref().map(|n| n.as_bytes().to_vec()).unwrap_or_default();
        let value = new_value.as_ref().map(|v| v.as_bytes().to_vec()).unwrap_or_default();
        (name, value)
    };
    let (mirrored, own) = if name == b"apc.enabled" {
        (APC_ENABLED.load(Ordering::Relaxed), "shmcache.enable")
    } else {
        (APC_ENABLE_CLI.load(Ordering::Relaxed), "shmcache.enable_cli")
    };
    let text = String::from_utf8_lossy(&value).trim().to_ascii_lowercase();
    let on = matches!(text.as_str(), "1" | "on" | "yes" | "true");
    if on == mirrored {
        return SUCCESS;
    }
    startup_error(&format!(
        "shmcache: {}={} is ignored: with shmcache.apcu_compat=1 it follows {own} (which is {})",
        String::from_utf8_lossy(&name),
        String::from_utf8_lossy(&value),
        u8::from(mirrored)
    ));
    FAILURE
}

pub fn unregister(module_number: i32) {
    // SAFETY: undoes `register` for this module at MSHUTDOWN, as PHP's UNREGISTER_INI_ENTRIES.
    unsafe { zend_unregister_ini_entries(module_number) };
}

/// The `shmcache.region*` settings of this process, when a named region is configured.
pub struct NamedRegionSettings {
    pub name: String,
    pub group: Option<u32>,
    pub owner: Option<(u32, u32)>,
    /// Sizes set to something other than their defaults: a file of other sizes is replaced.
    pub sizes_explicit: bool,
}

/// None when `shmcache.region` is empty (the anonymous region of the FPM master is used).
pub fn named_region() -> Result<Option<NamedRegionSettings>, String> {
    let name = text("shmcache.region");
    if name.is_empty() {
        return Ok(None);
    }
    let group = match text("shmcache.region_group") {
        g if g.is_empty() => None,
        g => Some(named::lookup_group(&g).ok_or_else(|| {
            format!("shmcache: shmcache.region_group \"{g}\" is not a known group")
        })?),
    };
    let owner = match text("shmcache.region_user") {
        u if u.is_empty() => None,
        u => Some(named::lookup_user(&u).ok_or_else(|| {
            format!("shmcache: shmcache.region_user \"{u}\" is not a known user")
        })?),
    };
    let sizes_explicit =
        text("shmcache.keys_memory_size") != "4M" || text("shmcache.values_memory_size") != "64M";
    Ok(Some(NamedRegionSettings { name, group, owner, sizes_explicit }))
}

/// Whether this SAPI gets a region: always when enabled, except the plain CLI (and phpdbg),
/// which needs enable_cli because each CLI process would get a region of its own.
pub fn enabled_here() -> Result<bool, String> {
    let enable = parse_bool("shmcache.enable")?;
    let enable_cli = parse_bool("shmcache.enable_cli")?;
    Ok(enable && (enable_cli || !is_cli()))
}

/// `shmcache.apcu_compat`: whether the apcu_* functions are registered.
pub fn apcu_compat() -> Result<bool, String> {
    parse_bool("shmcache.apcu_compat")
}

/// `shmcache.enable`: off disables named regions too.
pub fn enable() -> bool {
    parse_bool("shmcache.enable").unwrap_or(false)
}

pub fn sapi_name() -> String {
    // SAFETY: `sapi_module` is PHP's global SAPI descriptor, initialised before MINIT; its name
    // is a static NUL-terminated string.
    unsafe {
        let name = sapi_module.name;
        if name.is_null() {
            return String::new();
        }
        std::ffi::CStr::from_ptr(name).to_string_lossy().into_owned()
    }
}

pub(crate) fn is_cli() -> bool {
    matches!(sapi_name().as_str(), "cli" | "phpdbg")
}

fn raw(name: &str) -> Option<Vec<u8>> {
    let eg = ExecutorGlobals::get();
    // SAFETY: ini_directives is PHP's table of registered directives, valid during MINIT and
    // requests; its values are zend_ini_entry pointers.
    let table = unsafe { eg.ini_directives.as_ref() }?;
    let entry = table.get(name)?;
    // SAFETY: entries of ini_directives hold a pointer to a live zend_ini_entry.
    let entry: *mut zend_ini_entry = unsafe { entry.ptr::<zend_ini_entry>() }?;
    // SAFETY: entry is live (see above); its value is a zend_string or null.
    let value = unsafe { (*entry).value.as_ref() }?;
    Some(value.as_bytes().to_vec())
}

fn text(name: &str) -> String {
    String::from_utf8_lossy(&raw(name).unwrap_or_default()).trim().to_string()
}

fn parse_bool(name: &str) -> Result<bool, String> {
    let v = text(name).to_ascii_lowercase();
    match v.as_str() {
        "1" | "on" | "yes" | "true" => Ok(true),
        "0" | "off" | "no" | "false" | "" | "none" => Ok(false),
        _ => Err(format!("shmcache: invalid value \"{v}\" for {name}: expected On or Off")),
    }
}

/// Parses a size the way PHP parses memory_limit ("64M", "1G"), but refuses anything PHP
/// would only warn about and guess.
fn parse_size(name: &str) -> Result<u64, String> {
    let bytes = raw(name).unwrap_or_default();
    let shown = String::from_utf8_lossy(&bytes).into_owned();
    let mut value = ZendStr::new(&bytes, false);
    let mut err: *mut zend_string = std::ptr::null_mut();
    // SAFETY: value is a valid zend_string; err receives an owned zend_string on error.
    let n = unsafe { zend_ini_parse_quantity(value.as_mut_ptr(), &mut err) };
    if !err.is_null() {
        // SAFETY: PHP hands over ownership of the error string; ZBox releases it.
        let e: ZBox<ZendStr> = unsafe { ZBox::from_raw(err) };
        return Err(format!(
            "shmcache: invalid {name} \"{shown}\": {}",
            String::from_utf8_lossy(e.as_bytes())
        ));
    }
    u64::try_from(n)
        .map_err(|_| format!("shmcache: invalid {name} \"{shown}\": must not be negative"))
}

fn size_within(name: &str, min: u64, max: u64) -> Result<u64, String> {
    let v = parse_size(name)?;
    if (min..=max).contains(&v) {
        Ok(v)
    } else {
        Err(format!(
            "shmcache: {name}={} is out of range: it must be between {} and {}",
            text(name),
            human(min),
            human(max)
        ))
    }
}

fn human(n: u64) -> String {
    match n {
        n if n >= 1 << 30 && n % (1 << 30) == 0 => format!("{}G", n >> 30),
        n if n >= 1 << 20 && n % (1 << 20) == 0 => format!("{}M", n >> 20),
        n if n >= 1 << 10 && n % (1 << 10) == 0 => format!("{}K", n >> 10),
        n => n.to_string(),
    }
}

pub fn config() -> Result<Config, String> {
    let config = Config {
        keys_memory_size: size_within(
            "shmcache.keys_memory_size",
            MIN_KEYS_MEMORY,
            MAX_KEYS_MEMORY,
        )?,
        values_memory_size: size_within(
            "shmcache.values_memory_size",
            MIN_VALUES_MEMORY,
            MAX_VALUES_MEMORY,
        )?,
        compress_threshold: parse_size("shmcache.compress_threshold")?,
    };
    config.validate().map_err(|e| format!("shmcache: {e}"))?;
    Ok(config)
}

/// Reports why startup failed (PHP then prints "Unable to start shmcache module").
pub fn startup_error(message: &str) {
    super::warn::core_warning(message);
}

/// The tier's settings (`shmcache.redis*`), None when `shmcache.redis` is empty. Read at a
/// process's first request, so a pool's `php_admin_value` applies.
pub fn tier_config() -> Result<Option<crate::tier::TierConfig>, String> {
    use std::time::Duration;
    let url = text("shmcache.redis");
    if url.is_empty() {
        return Ok(None);
    }
    let number = |name: &str, min: i64, max: i64| -> Result<i64, String> {
        let v = text(name);
        match v.parse::<i64>() {
            Ok(n) if (min..=max).contains(&n) => Ok(n),
            _ => Err(format!(
                "shmcache: invalid {name} \"{v}\": expected a whole number from {min} to {max}"
            )),
        }
    };
    let password = text("shmcache.redis_password");
    Ok(Some(crate::tier::TierConfig {
        url,
        database: number("shmcache.redis_database", 0, 1 << 20)?,
        prefix: text("shmcache.redis_prefix"),
        password: (!password.is_empty()).then_some(password),
        connect_timeout: Duration::from_millis(
            number("shmcache.redis_connect_timeout", 1, 60_000)? as u64,
        ),
        read_timeout: Duration::from_millis(
            number("shmcache.redis_read_timeout", 1, 60_000)? as u64
        ),
        stream_length: number("shmcache.redis_stream_length", 1000, 1 << 40)? as u64,
        max_apply: number("shmcache.redis_max_apply", 1, 1_000_000)? as usize,
        resync_interval: Duration::from_millis(number(
            "shmcache.redis_resync_interval",
            0,
            3_600_000,
        )? as u64),
        test_fill_delay: Duration::from_millis(
            number("shmcache.test_hook_fill_delay", 0, 60_000)? as u64
        ),
        test_fill_recheck_delay: Duration::from_millis(number(
            "shmcache.test_hook_fill_recheck_delay",
            0,
            60_000,
        )? as u64),
        test_clock_ahead_ms: number("shmcache.test_hook_clock_ahead", 0, 3_600_000)? as u64,
        test_clock_step_after: Duration::from_millis(number(
            "shmcache.test_hook_clock_step_back_after",
            0,
            600_000,
        )? as u64),
        ..Default::default()
    }))
}
