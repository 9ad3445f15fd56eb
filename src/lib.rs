//! shmcache: a shared-memory object cache for PHP-FPM.
//!
//! `engine` is the cache itself, pure Rust; `tier` keeps it coherent in front of Redis (tiered
//! mode, pure Rust too); `native` is the byte layout of arrays stored without
//! PHP's serializer, also pure Rust; `php` is the ext-php-rs glue that exposes both as the
//! `libshmcache.so` extension (built with the default `php` feature).

pub mod engine;
pub mod native;
pub mod tier;

#[cfg(feature = "php")]
mod php;
