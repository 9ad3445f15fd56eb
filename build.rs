//! Compiles the one C file of the PHP glue (src/php/serializer_state.c), which needs PHP's
//! headers: only with the `php` feature, so engine tests and benches need no PHP.
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=src/php/serializer_state.c");
    println!("cargo:rerun-if-env-changed=PHP_CONFIG");
    if std::env::var_os("CARGO_FEATURE_PHP").is_none() {
        return;
    }
    let php_config = std::env::var("PHP_CONFIG").unwrap_or_else(|_| "php-config".into());
    let output = Command::new(&php_config).arg("--includes").output().unwrap_or_else(|e| {
        panic!("cannot run {php_config} --includes (install php8.2-dev or set PHP_CONFIG): {e}")
    });
    assert!(output.status.success(), "{php_config} --includes failed");
    let includes = String::from_utf8(output.stdout).expect("php-config printed non-UTF-8 paths");
    refuse_zts(&php_config, &includes);
    let mut build = cc::Build::new();
    build.file("src/php/serializer_state.c");
    for dir in includes.split_whitespace().filter_map(|flag| flag.strip_prefix("-I")) {
        build.include(dir);
    }
    build.compile("shmcache_serializer_state");
}

/// Threaded (ZTS) PHP is not supported: the extension keeps its state in process-wide statics
/// (the mapped region, settings read once at startup) and is neither built nor tested for PHP's
/// per-thread globals. A library built for a non-ZTS PHP cannot load into a ZTS one (PHP
/// compares the build IDs, "NTS" and "TS", and refuses it at startup), so refusing to build
/// against a ZTS PHP is enough for the extension never to run in one. PHP's own
/// `main/php_config.h` says which it is.
fn refuse_zts(php_config: &str, includes: &str) {
    for dir in includes.split_whitespace().filter_map(|flag| flag.strip_prefix("-I")) {
        let header = std::path::Path::new(dir).join("main/php_config.h");
        let Ok(text) = std::fs::read_to_string(&header) else { continue };
        println!("cargo:rerun-if-changed={}", header.display());
        if text
            .lines()
            .any(|line| line.split_whitespace().collect::<Vec<_>>() == ["#define", "ZTS", "1"])
        {
            panic!(
                "shmcache does not support thread-safe (ZTS) PHP builds, and {php_config} is one \
                 ({} defines ZTS): use a non-thread-safe (NTS) PHP, as Debian's packages are",
                header.display()
            );
        }
        return;
    }
}
