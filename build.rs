//! Compiles the one C file of the PHP glue (src/php/serializer_state.c), which needs PHP's
//! headers: only with the `php` feature, so engine tests and benches need no PHP.
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=src/php/serializer_state.c");
    println!("cargo:rerun-if-env-changed=PHP_CONFIG");
    println!("cargo:rustc-check-cfg=cfg(php_debug_build)");
    if std::env::var_os("CARGO_FEATURE_PHP").is_none() {
        return;
    }
    let php_config = std::env::var("PHP_CONFIG").unwrap_or_else(|_| "php-config".into());
    let output = Command::new(&php_config).arg("--includes").output().unwrap_or_else(|e| {
        panic!("cannot run {php_config} --includes (install php8.2-dev or set PHP_CONFIG): {e}")
    });
    assert!(output.status.success(), "{php_config} --includes failed");
    let includes = String::from_utf8(output.stdout).expect("php-config printed non-UTF-8 paths");
    let config_h = php_config_h(&includes);
    refuse_zts(&php_config, config_h.as_ref());
    // A debug build of PHP lacks the per-size allocators (`_emalloc_8` ...) and declares
    // `_emalloc` with more arguments: src/php/zalloc.rs names them only without this cfg, so
    // the library never references symbols such a PHP does not have.
    if config_h.as_ref().is_some_and(|(_, text)| defines(text, "ZEND_DEBUG", "1")) {
        println!("cargo:rustc-cfg=php_debug_build");
    }
    let mut build = cc::Build::new();
    build.file("src/php/serializer_state.c");
    for dir in includes.split_whitespace().filter_map(|flag| flag.strip_prefix("-I")) {
        build.include(dir);
    }
    build.compile("shmcache_serializer_state");
}

/// PHP's own `main/php_config.h` (its path and text), under the first include directory that
/// has it.
fn php_config_h(includes: &str) -> Option<(std::path::PathBuf, String)> {
    includes.split_whitespace().filter_map(|flag| flag.strip_prefix("-I")).find_map(|dir| {
        let header = std::path::Path::new(dir).join("main/php_config.h");
        let text = std::fs::read_to_string(&header).ok()?;
        println!("cargo:rerun-if-changed={}", header.display());
        Some((header, text))
    })
}

/// Whether `text` has the line `#define NAME VALUE`.
fn defines(text: &str, name: &str, value: &str) -> bool {
    text.lines().any(|line| line.split_whitespace().collect::<Vec<_>>() == ["#define", name, value])
}

/// Threaded (ZTS) PHP is not supported: the extension keeps its state in process-wide statics
/// (the mapped region, settings read once at startup) and is neither built nor tested for PHP's
/// per-thread globals. A library built for a non-ZTS PHP cannot load into a ZTS one (PHP
/// compares the build IDs, "NTS" and "TS", and refuses it at startup), so refusing to build
/// against a ZTS PHP is enough for the extension never to run in one. PHP's own
/// `main/php_config.h` says which it is.
fn refuse_zts(php_config: &str, config_h: Option<&(std::path::PathBuf, String)>) {
    if let Some((header, text)) = config_h {
        if defines(text, "ZTS", "1") {
            panic!(
                "shmcache does not support thread-safe (ZTS) PHP builds, and {php_config} is one \
                 ({} defines ZTS): use a non-thread-safe (NTS) PHP, as Debian's packages are",
                header.display()
            );
        }
    }
}
