//! The operations of a tier: each one round trip to Redis at most, and the near copy kept
//! coherent on the way.

use std::sync::atomic::{fence, Ordering};

use redis::Value;

use super::fill::{generation_key, namespace_tag, note_done, reserved};
use super::positions::{self, raise, word, CLAIMED, EPOCH};
use super::wire::{bulk, decode_value, encode_value, stream_id};
use super::{Tier, WriteMode, ABSENT};
use crate::engine::{string_hash, Cache, Namespace, ValueKind, ValueSink};

impl Tier {
    /// A near miss: reads Redis and fills the near copy. The value goes into `sink`.
    pub fn fetch<S: ValueSink>(
        &mut self,
        cache: &Cache,
        ns: &Namespace,
        key: &[u8],
        sink: &mut S,
    ) -> Option<ValueKind> {
        self.counters.near_misses += 1;
        let sent_ms = self.stamp(cache);
        let reply = self.call("get", ns, key, b"", b"")?;
        if !self.config.test_fill_delay.is_zero() {
            std::thread::sleep(self.config.test_fill_delay);
        }
        let (value, pttl, last) = match reply.as_slice() {
            [Value::Nil, _, last] => {
                let last = stream_id(last)?;
                self.fill(cache, ns, key, ABSENT, b"", 0, last);
                return None;
            }
            [v, Value::Int(pttl), last] => (bulk(v)?, *pttl, stream_id(last)?),
            _ => {
                self.unexpected_reply();
                return None;
            }
        };
        let (kind, bytes) = decode_value(&value)?;
        if let Some(expires_at) = near_expiry(sent_ms, pttl, self.wall_ms()) {
            self.fill(cache, ns, key, kind, &bytes, expires_at, last);
        }
        let buf = sink.buffer(kind, bytes.len());
        // SAFETY: ValueSink's contract: `buf` is writable for `bytes.len()` bytes.
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), buf, bytes.len()) };
        Some(kind)
    }

    /// get: near copy first, then Redis. None on a miss or when the request is not trusted.
    pub fn get<S: ValueSink>(
        &mut self,
        cache: &Cache,
        ns: &Namespace,
        key: &[u8],
        sink: &mut S,
    ) -> Option<ValueKind> {
        if !self.trusted(cache) {
            return None;
        }
        match read_near::<S, false>(cache, ns, key, sink, || self.counters.near_hits += 1) {
            Near::Hit(kind) => Some(kind),
            Near::Absent => None,
            Near::Miss => self.fetch(cache, ns, key, sink),
        }
    }

    pub fn store(
        &mut self,
        cache: &Cache,
        ns: &Namespace,
        key: &[u8],
        kind: ValueKind,
        value: &[u8],
        ttl: i64,
        mode: WriteMode,
    ) -> bool {
        if !self.trusted(cache) {
            return false;
        }
        let op = match mode {
            WriteMode::Set => "set",
            WriteMode::Add => "add",
            WriteMode::Replace => "replace",
        };
        let encoded = encode_value(kind, value);
        let ttl_ms = if ttl < 0 { -1 } else { ttl.saturating_mul(1000) };
        let sent_ms = self.stamp(cache);
        let Some(reply) = self.call(op, ns, key, &encoded, ttl_ms.to_string().as_bytes()) else {
            return false;
        };
        match reply.as_slice() {
            [Value::Int(1), Value::Nil] => true,
            [Value::Int(1), id, rest @ ..] => {
                let Some(id) = stream_id(id) else {
                    self.unexpected_reply();
                    return false;
                };
                if !self.config.test_fill_delay.is_zero() {
                    std::thread::sleep(self.config.test_fill_delay);
                }
                // (No PTTL: a TTL in the past deleted the key.)
                let fill = match rest {
                    [Value::Int(pttl)] => near_expiry(sent_ms, *pttl, self.wall_ms())
                        .map(|expires_at| (kind, value, expires_at)),
                    _ => None,
                };
                self.after_write(cache, ns, key, id, fill);
                true
            }
            [Value::Int(0), _] => false,
            _ => {
                self.unexpected_reply();
                false
            }
        }
    }

    pub fn delete(&mut self, cache: &Cache, ns: &Namespace, key: &[u8]) -> bool {
        if !self.trusted(cache) {
            return false;
        }
        self.epoch_seen = word(cache, EPOCH).load(Ordering::SeqCst);
        let Some(reply) = self.call("delete", ns, key, b"", b"") else { return false };
        match reply.as_slice() {
            [Value::Int(n), id] => match stream_id(id) {
                Some(id) => {
                    // Redis has no such key as of `id`: remembered near, as a read would.
                    self.after_write(cache, ns, key, id, Some((ABSENT, b"", 0)));
                    *n == 1
                }
                None => {
                    self.unexpected_reply();
                    false
                }
            },
            _ => {
                self.unexpected_reply();
                false
            }
        }
    }

    pub fn exists(&mut self, cache: &Cache, ns: &Namespace, key: &[u8]) -> bool {
        let mut scratch = Vec::new();
        self.get(cache, ns, key, &mut scratch).is_some()
    }

    /// Whole seconds `key` has left in Redis (0: no expiry); None when it is missing or the
    /// request is not trusted. Asks Redis, not the near copy, whose expiry is only a bound.
    /// Rounded down so that a rewrite given it dies no later than the original, except under
    /// a second, reported as 1 because 0 would mean "never".
    pub fn ttl(&mut self, cache: &Cache, ns: &Namespace, key: &[u8]) -> Option<i64> {
        if !self.trusted(cache) {
            return None;
        }
        let reply = self.call("ttl", ns, key, b"", b"")?;
        match reply.as_slice() {
            [Value::Int(-1)] => Some(0),
            [Value::Int(pttl)] if *pttl >= 0 => Some((pttl / 1000).max(1)),
            [Value::Int(_)] => None,
            _ => {
                self.unexpected_reply();
                None
            }
        }
    }

    /// Adds `delta` to a live integer (wrapping around past 2^63, as the local engine does);
    /// None when missing or not an integer.
    pub fn incr(&mut self, cache: &Cache, ns: &Namespace, key: &[u8], delta: i64) -> Option<i64> {
        if !self.trusted(cache) {
            return None;
        }
        let reply = self.call("incr", ns, key, delta.to_string().as_bytes(), b"")?;
        match reply.as_slice() {
            [Value::Nil, _] => None,
            [v, id] => {
                let n: i64 = std::str::from_utf8(&bulk(v)?).ok()?.parse().ok()?;
                let id = stream_id(id)?;
                // The TTL is Redis' to keep: the near copy is refilled at the next read.
                self.after_write(cache, ns, key, id, None);
                Some(n)
            }
            _ => {
                self.unexpected_reply();
                None
            }
        }
    }

    pub fn cas(&mut self, cache: &Cache, ns: &Namespace, key: &[u8], old: i64, new: i64) -> bool {
        if !self.trusted(cache) {
            return false;
        }
        let Some(reply) =
            self.call("cas", ns, key, old.to_string().as_bytes(), new.to_string().as_bytes())
        else {
            return false;
        };
        match reply.as_slice() {
            [Value::Int(1), id] => match stream_id(id) {
                Some(id) => {
                    self.after_write(cache, ns, key, id, None);
                    true
                }
                None => {
                    self.unexpected_reply();
                    false
                }
            },
            _ => false,
        }
    }

    /// Flushes a namespace (the root one: everything) on every server.
    pub fn flush(&mut self, cache: &Cache, ns: &Namespace) -> bool {
        if !self.trusted(cache) {
            return false;
        }
        let Some(reply) = self.call("flush", ns, b"", b"", b"") else { return false };
        let Some(id) = reply.get(1).and_then(stream_id) else {
            self.unexpected_reply();
            return false;
        };
        // This server's copy goes now (the stream entry reaches it too, harmlessly).
        if ns.is_root() {
            // Everything up to our entry is covered by the flush.
            match word(cache, EPOCH).load(Ordering::SeqCst) {
                0 => self.reset_near(cache, None),
                epoch => self.reset_near(cache, Some((epoch, id))),
            }
        } else {
            raise(cache, CLAIMED, id);
            fence(Ordering::SeqCst);
            cache.flush_namespace(ns);
            if cache.delete(&reserved(), &generation_key(ns)).is_ok() {
                note_done(cache, id, &namespace_tag(ns.name()));
            }
        }
        true
    }

    /// The namespace's generation as all servers see it (Redis'), 0 when not trusted.
    pub fn generation(&mut self, cache: &Cache, ns: &Namespace) -> i64 {
        if !self.trusted(cache) {
            return 0;
        }
        let gen_key = generation_key(ns);
        if let Some(g) = read_int(cache, &reserved(), &gen_key) {
            self.counters.near_hits += 1;
            return g;
        }
        self.counters.near_misses += 1;
        self.epoch_seen = word(cache, EPOCH).load(Ordering::SeqCst);
        let Some(reply) = self.call("generation", ns, b"", b"", b"") else { return 0 };
        let parsed = match reply.as_slice() {
            [g, last] => bulk(g)
                .and_then(|g| std::str::from_utf8(&g).ok()?.parse::<i64>().ok())
                .zip(stream_id(last)),
            _ => None,
        };
        let Some((g, last)) = parsed else {
            self.unexpected_reply();
            return 0;
        };
        // Generations start at 1, as in the region.
        let g = g + 1;
        self.fill(cache, &reserved(), &gen_key, ValueKind::INT, &g.to_le_bytes(), 0, last);
        g
    }
}

/// What the near copy holds for a key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Near {
    /// The value, of this kind, is in the sink.
    Hit(ValueKind),
    /// The near copy says Redis has no such key (`ABSENT`); the sink is empty.
    Absent,
    /// Nothing near: Redis is asked (`Tier::fetch`).
    Miss,
}

/// The near read of every tiered get: `Tier::get`, and the PHP glue's, which makes it without
/// taking the tier's lock. The caller has made sure the request trusts the near copy.
/// `count_hit` runs when the near copy answers (`Absent` included), so each caller keeps the
/// count where it can afford to. DEFER_COUNTS: the region's hit and miss counts of the read are
/// kept in the process (`Cache::get_into_deferred`; for a caller that runs one thread at a
/// time and adds them at its request's end).
#[inline(always)]
pub fn read_near<S: ValueSink, const DEFER_COUNTS: bool>(
    cache: &Cache,
    ns: &Namespace,
    key: &[u8],
    sink: &mut S,
    count_hit: impl FnOnce(),
) -> Near {
    let read = if DEFER_COUNTS {
        cache.get_into_deferred(ns, key, string_hash(key), sink)
    } else {
        cache.get_into(ns, key, sink)
    };
    match read {
        Ok(Some(kind)) => {
            count_hit();
            if kind == ABSENT {
                sink.discard();
                Near::Absent
            } else {
                Near::Hit(kind)
            }
        }
        Ok(None) | Err(_) => Near::Miss,
    }
}

fn read_int(cache: &Cache, ns: &Namespace, key: &[u8]) -> Option<i64> {
    let mut out = Vec::with_capacity(8);
    match cache.get(ns, key, &mut out) {
        Ok(Some(ValueKind::INT)) => Some(i64::from_le_bytes(out.as_slice().try_into().ok()?)),
        _ => None,
    }
}

/// When a near copy of a value that Redis gave `pttl` milliseconds to live, in a reply to a
/// call sent at `sent_ms`, must die (Unix seconds, 0 = never): no later than Redis' copy, which
/// counted from when the script ran, after `sent_ms`, less the clock's tolerance (a step back
/// smaller than `positions::TOLERANCE_MS` goes unseen; so does the engine's reading of expiries
/// on the kernel's tick, at most a tick, 10 ms at the slowest, behind the wall clock). None:
/// not worth copying (it would be dead on arrival).
fn near_expiry(sent_ms: u64, pttl: i64, now_ms: u64) -> Option<u64> {
    match pttl {
        -1 => Some(0),
        p if p < 0 => None,
        p => Some(sent_ms.saturating_add(p as u64).saturating_sub(positions::TOLERANCE_MS) / 1000)
            .filter(|&t| t > now_ms / 1000),
    }
}
