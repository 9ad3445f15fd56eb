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
    let output = Command::new(&php_config)
        .arg("--includes")
        .output()
        .unwrap_or_else(|e| panic!("cannot run {php_config} --includes (install php8.2-dev or set PHP_CONFIG): {e}"));
    assert!(output.status.success(), "{php_config} --includes failed");
    let includes = String::from_utf8(output.stdout).expect("php-config printed non-UTF-8 paths");
    let mut build = cc::Build::new();
    build.file("src/php/serializer_state.c");
    for dir in includes.split_whitespace().filter_map(|flag| flag.strip_prefix("-I")) {
        build.include(dir);
    }
    build.compile("shmcache_serializer_state");
}
