//! shmcache: a shared-memory object cache for PHP-FPM.
//!
//! `engine` is the cache itself, pure Rust; `php` is the ext-php-rs glue that exposes it as the
//! `libshmcache.so` extension (built with the default `php` feature).

pub mod engine;

#[cfg(feature = "php")]
mod php;
