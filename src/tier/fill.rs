//! Fills of the near copy (a value read from Redis, or just written to it), and the notes a
//! writer leaves so that its own server's next sync does not undo its write.

use std::sync::atomic::{fence, Ordering};

use super::positions::{self, fill_is_stale, raise, word, CLAIMED, EPOCH, SEEN};
use super::wire::is_exact;
use super::Tier;
use crate::engine::{Cache, Namespace, ValueKind};

impl Tier {
    /// Inserts a value read from Redis (or just written to it) that is current as of stream
    /// position `q`, unless an invalidation after `q` may already have been applied here.
    /// `expires_at`: Unix seconds, 0 = never.
    /// True when the key's near copy is now the value or nothing (false only when the engine
    /// could neither publish nor delete: an older copy may still be there).
    pub(super) fn fill(
        &mut self,
        cache: &Cache,
        ns: &Namespace,
        key: &[u8],
        kind: ValueKind,
        value: &[u8],
        expires_at: u64,
        q: u64,
    ) -> bool {
        let recheck_delay = self.config.test_fill_recheck_delay;
        // Before the value can be visible: a sync that could let a request read it checks that
        // the entry is still in Redis' stream.
        raise(cache, SEEN, q);
        let clock_seen = self.clock_seen;
        let epoch_seen = self.epoch_seen;
        let mut stale = false;
        let stored = cache.set_if_current_until(ns, key, kind, value, expires_at, || {
            if !recheck_delay.is_zero() {
                std::thread::sleep(recheck_delay);
            }
            // Dekker with the applier: our pending word is visible (a SeqCst CAS), then we load
            // `claimed`; it stores `claimed`, then deletes (which clears pending words). One of
            // the two sees the other. The copy is invisible until this says yes.
            fence(Ordering::SeqCst);
            // An expiry computed before a step back of the wall clock (the word changed) would
            // outlive Redis' copy.
            // A reply of a Redis since replaced (the epoch changed: a reset, whose `claimed` is
            // the new stream's position and may be below `q` when the old Redis' clock was
            // ahead) would outlive the reset.
            stale = fill_is_stale(cache, q)
                || word(cache, EPOCH).load(Ordering::SeqCst) != epoch_seen
                || (expires_at != 0 && !positions::clock_word_holds(cache, clock_seen));
            !stale
        });
        if stale {
            self.counters.stale_fills_dropped += 1;
        }
        stored.is_ok() || cache.delete(ns, key).is_ok()
    }

    /// After a local write that Redis gave stream id `id`: a concurrent fill of an older value
    /// in this region must lose (so `claimed` reaches `id` first), then the near copy is the new
    /// value or nothing. The request that wrote reads its own write from here on.
    pub(super) fn after_write(
        &mut self,
        cache: &Cache,
        ns: &Namespace,
        key: &[u8],
        id: u64,
        fill: Option<(ValueKind, &[u8], u64)>,
    ) {
        raise(cache, CLAIMED, id);
        raise(cache, SEEN, id);
        fence(Ordering::SeqCst);
        let up_to_date = match fill {
            Some((kind, value, expires_at)) => {
                self.fill(cache, ns, key, kind, value, expires_at, id)
            }
            None => cache.delete(ns, key).is_ok(),
        };
        if up_to_date {
            note_done(cache, id, &key_tag(ns.name(), key));
        }
    }
}

/// The namespace of the tier's own entries in the region (the generations). Applications
/// cannot name it: it starts with a NUL byte.
const RESERVED_NS: &[u8] = b"\0shmcache-tier";
const GENERATION_PREFIX: &[u8] = b"gen:";

/// A writer's note that it has brought its own server's near copy up to its write's stream
/// entry (key `done:` + the entry's id): that server's next sync then skips the entry
/// instead of deleting the copy the writer just made.
const DONE_PREFIX: &[u8] = b"done:";

/// How long such a note is kept (seconds): a sync normally comes within the second; one that
/// comes later applies the entry as any other server does, which is only a re-read.
const DONE_TTL: i64 = 600;

pub(super) fn reserved() -> Namespace {
    Namespace::new(RESERVED_NS).expect("short")
}

/// The note of entry `id` for `target` (`key_tag` or `namespace_tag`): a note answers for one
/// entry of one key or namespace only, so an entry with the same id for another target (a
/// stream that lost entries in a failover and gave their ids again) is never skipped by it.
fn done_key(id: u64, target: &[u8; 8]) -> Vec<u8> {
    [DONE_PREFIX, &id.to_le_bytes(), target].concat()
}

pub(super) fn key_tag(ns: &[u8], key: &[u8]) -> [u8; 8] {
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    h.update(b"k");
    h.update(&(ns.len() as u64).to_le_bytes());
    h.update(ns);
    h.update(key);
    h.digest().to_le_bytes()
}

pub(super) fn namespace_tag(ns: &[u8]) -> [u8; 8] {
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    h.update(b"n");
    h.update(ns);
    h.digest().to_le_bytes()
}

/// Notes, once this server's near copy reflects the write with stream entry `id` (see
/// `DONE_PREFIX`). Only then: a writer that dies before it, or whose own update of the copy
/// failed, leaves no note, and its entry is applied as anyone else's. Why skipping is sound:
/// `claimed` reached `id` before the writer touched its copy, so no fill of an older value can
/// be published after it. An id that does not name one entry exactly (`is_exact`) gets none.
pub(super) fn note_done(cache: &Cache, id: u64, target: &[u8; 8]) {
    if is_exact(id) {
        let _ = cache.set(
            &reserved(),
            &done_key(id, target),
            ValueKind::INT,
            &0i64.to_le_bytes(),
            DONE_TTL,
        );
    }
}

/// Whether this server's own writer noted entry `id` of `target` done; the note goes either way
/// (one applier skips, others racing it just delete again).
pub(super) fn take_done(cache: &Cache, id: u64, target: &[u8; 8]) -> bool {
    is_exact(id) && matches!(cache.delete(&reserved(), &done_key(id, target)), Ok(true))
}

pub(super) fn generation_key(ns: &Namespace) -> Vec<u8> {
    [GENERATION_PREFIX, ns.name()].concat()
}
