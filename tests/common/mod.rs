//! Helpers for tests that fork real processes sharing one region.
#![allow(dead_code)]

use std::sync::atomic::{AtomicU64, Ordering};

use xxhash_rust::xxh3::xxh3_64;

/// Runs `f` in a forked child and returns its pid; the child exits with `f`'s return value.
pub fn spawn(f: impl FnOnce() -> i32) -> libc::pid_t {
    // SAFETY: each fork test binary has a single test, so no other thread holds a lock the
    // child could need; the child only runs `f` and then _exits without running destructors.
    let pid = unsafe { libc::fork() };
    assert!(pid >= 0, "fork failed");
    if pid == 0 {
        let code = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_or(101);
        // SAFETY: terminating the child without unwinding into the test harness.
        unsafe { libc::_exit(code) };
    }
    pid
}

/// Waits for a child; returns its exit code, or 128 + signal when it was killed.
pub fn wait(pid: libc::pid_t) -> i32 {
    let mut status = 0;
    // SAFETY: pid is our child; status is a valid out pointer.
    let r = unsafe { libc::waitpid(pid, &mut status, 0) };
    assert_eq!(r, pid);
    if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else {
        128 + libc::WTERMSIG(status)
    }
}

pub fn kill(pid: libc::pid_t) {
    // SAFETY: sending a signal to our own child.
    unsafe { libc::kill(pid, libc::SIGKILL) };
}

/// A block of counters in its own MAP_SHARED mapping, for children to report into.
pub struct Shared {
    words: *mut AtomicU64,
    len: usize,
}

impl Shared {
    pub fn new(len: usize) -> Shared {
        // SAFETY: fresh anonymous shared mapping, zero-filled, sized for `len` u64 words.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len * 8,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        assert_ne!(p, libc::MAP_FAILED);
        Shared { words: p.cast(), len }
    }

    pub fn at(&self, i: usize) -> &AtomicU64 {
        assert!(i < self.len);
        // SAFETY: in bounds of the mapping, which lives as long as self; AtomicU64 access only.
        unsafe { &*self.words.add(i) }
    }

    pub fn get(&self, i: usize) -> u64 {
        self.at(i).load(Ordering::SeqCst)
    }

    pub fn add(&self, i: usize, n: u64) {
        self.at(i).fetch_add(n, Ordering::SeqCst);
    }
}

/// A value that proves which key it belongs to: key, payload, and a hash of both.
pub fn make_value(key: &[u8], seq: u64, len: usize) -> Vec<u8> {
    let mut v = Vec::with_capacity(len + key.len() + 24);
    v.extend_from_slice(&(key.len() as u32).to_le_bytes());
    v.extend_from_slice(key);
    v.extend_from_slice(&seq.to_le_bytes());
    // Half the payloads are compressible, half are noise.
    let mut x = seq | 1;
    for i in 0..len {
        if seq.is_multiple_of(2) {
            v.push(b'a' + (i % 13) as u8);
        } else {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            v.push(x as u8);
        }
    }
    let h = xxh3_64(&v);
    v.extend_from_slice(&h.to_le_bytes());
    v
}

/// True when `v` is exactly a value made by `make_value` for `key`.
pub fn value_is_valid(key: &[u8], v: &[u8]) -> bool {
    if v.len() < 4 + key.len() + 16 {
        return false;
    }
    let (body, tail) = v.split_at(v.len() - 8);
    let klen = u32::from_le_bytes(body[..4].try_into().unwrap()) as usize;
    klen == key.len() && &body[4..4 + klen] == key && xxh3_64(body).to_le_bytes() == tail
}

/// A small deterministic PRNG for children (no shared state with the parent).
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}
