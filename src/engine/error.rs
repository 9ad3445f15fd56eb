use thiserror::Error;

/// Everything the engine can refuse. No engine call panics on any input.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum Error {
    #[error("key must not be empty")]
    EmptyKey,
    #[error("key is {len} bytes long; the maximum is {max}")]
    KeyTooLong { len: usize, max: usize },
    #[error("namespace is {len} bytes long; the maximum is {max}")]
    NamespaceTooLong { len: usize, max: usize },
    #[error("value of {len} bytes is too large; the largest storable value is {max} bytes (raise shmcache.values_memory_size)")]
    ValueTooLarge { len: usize, max: usize },
    #[error("invalid configuration: {0}")]
    InvalidConfig(String),
    #[error("could not map shared memory: {0}")]
    Map(String),
    #[error("{0}")]
    RegionFile(String),
    #[error("the region's header is not a valid shmcache region: {0}")]
    BadRegion(String),
    #[error("too much contention on this key; the write was not applied")]
    Contended,
}
