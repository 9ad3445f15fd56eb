//! A request's sync: the invalidations after `applied`, applied; a reset when they cannot be.

use std::sync::atomic::{fence, Ordering};

use redis::Value;

use super::fill::{generation_key, key_tag, namespace_tag, reserved, take_done};
use super::positions::{raise, word, APPLIED, CLAIMED, EPOCH, SEEN};
use super::time::now_ms;
use super::wire::{bulk, format_id, is_exact, stream_id, SEQ_BITS};
use super::{Error, Tier};
use crate::engine::{Cache, Namespace};

impl Tier {
    /// One round trip: epoch check and the invalidations after `applied`, applied.
    pub(super) fn sync(&mut self, cache: &Cache) -> Result<(), Error> {
        let applied = word(cache, APPLIED).load(Ordering::SeqCst);
        let epoch = word(cache, EPOCH).load(Ordering::SeqCst);
        // Past `applied` only (up to it, the completeness check covers it), and only an id that
        // names one entry exactly.
        let seen = word(cache, SEEN).load(Ordering::SeqCst);
        let seen = if seen > applied && is_exact(seen) { format_id(seen) } else { String::new() };
        // Always a new value: a Redis that lost its data must not be handed back the old one.
        let candidate = random_epoch();
        let position = format_id(applied);
        let max_apply = self.config.max_apply.to_string();
        let mut reply = self.call_raw(
            "sync",
            b"",
            seen.as_bytes(),
            &candidate,
            position.as_bytes(),
            max_apply.as_bytes(),
        )?;
        if let [Value::Nil] = reply.as_slice() {
            // A Redis without an epoch yet (new, or one that lost its data): the writing
            // script sets one, unless another server's did meanwhile.
            reply = self.call_raw(
                "init",
                b"",
                seen.as_bytes(),
                &candidate,
                position.as_bytes(),
                max_apply.as_bytes(),
            )?;
        }
        // `complete`: whether the stream still holds every entry after `applied` (script.lua).
        let [redis_epoch, Value::Int(complete), last, Value::Array(entries)] = reply.as_slice()
        else {
            return Err(Error::UnexpectedReply("unexpected reply to the sync script"));
        };
        let redis_epoch = epoch_hash(
            &bulk(redis_epoch).ok_or(Error::UnexpectedReply("no epoch in the sync reply"))?,
        );
        let last = stream_id(last).ok_or(Error::UnexpectedReply("bad stream id"))?;
        // (A new region has no epoch yet: 0, which no hash is.)
        let fresh =
            epoch == redis_epoch && *complete == 1 && entries.len() <= self.config.max_apply;
        if !fresh {
            // Unknown position, another Redis (a restart that lost the data), missed entries
            // (trimmed) or too many: everything near goes.
            self.reset_near(cache, Some((redis_epoch, last)));
            return Ok(());
        }
        if entries.is_empty() {
            return Ok(());
        }
        let mut parsed = Vec::with_capacity(entries.len());
        for entry in entries {
            parsed.push(parse_entry(entry).ok_or(Error::UnexpectedReply("bad stream entry"))?);
        }
        let newest = parsed.last().map_or(0, |e| e.id);
        if parsed.iter().any(|e| matches!(e.target, Target::All)) {
            self.reset_near(cache, Some((redis_epoch, last.max(newest))));
            return Ok(());
        }
        raise(cache, CLAIMED, newest);
        // Dekker with `fill`: our `claimed` store, then our deletes; its insert, then its load
        // of `claimed`. One of the two sees the other.
        fence(Ordering::SeqCst);
        if std::mem::take(&mut self.test_panic) {
            panic!("shmcache test hook: a panic inside the tier's sync");
        }
        // A delete that could not be made leaves `applied` where it was and the request
        // untrusted: the next request applies the same entries again.
        apply_entries(cache, &parsed)?;
        raise(cache, APPLIED, newest);
        self.counters.invalidations_applied += parsed.len() as u64;
        self.counters.lag_ms = now_ms().saturating_sub(newest >> SEQ_BITS);
        Ok(())
    }

    /// Empties the near copy: every entry but those of local namespaces (the `apcu_*`
    /// functions', local to this server by contract: `Cache::flush_all_but_local`). With
    /// `position`, the region then remembers Redis' epoch and that everything up to the
    /// stream's `last` id is applied.
    pub(super) fn reset_near(&mut self, cache: &Cache, position: Option<(u64, u64)>) {
        // Fills racing with the flush see `claimed` above them: they delete. (`claimed` may
        // already be above `last`, a local write claims its own entry: it never goes down.)
        raise(cache, CLAIMED, position.map_or(0, |(_, last)| last));
        fence(Ordering::SeqCst);
        cache.flush_all_but_local();
        // Nothing near is newer than the reset's position now (a lost entry seen before must
        // not make every later sync start over again).
        word(cache, SEEN).store(position.map_or(0, |(_, last)| last), Ordering::SeqCst);
        if let Some((epoch, last)) = position {
            if word(cache, EPOCH).swap(epoch, Ordering::SeqCst) == epoch {
                // `applied` becomes at least `last` only: the flush covers the entries up to
                // it, not the ones between `last` and a claim another worker is still applying.
                raise(cache, APPLIED, last);
            } else {
                // Another Redis: the old position means nothing in its stream.
                word(cache, APPLIED).store(last, Ordering::SeqCst);
                // Fills of the old Redis' replies re-check the epoch: one that loaded it before
                // the swap above made its entry visible (pending) before that load, so this
                // second flush, after the swap, removes it (Dekker, as with `claimed`).
                fence(Ordering::SeqCst);
                cache.flush_all_but_local();
            }
        }
        self.counters.near_flushes += 1;
    }
}

fn apply_entries(cache: &Cache, entries: &[Entry]) -> Result<(), Error> {
    for e in entries {
        let noted = match &e.target {
            Target::Key(ns, key) => take_done(cache, e.id, &key_tag(ns, key)),
            Target::Namespace(ns) => take_done(cache, e.id, &namespace_tag(ns)),
            Target::All => false,
        };
        if noted {
            continue;
        }
        match &e.target {
            // (A name the engine refuses cannot have entries here.)
            Target::Key(ns, key) => {
                if let Ok(ns) = Namespace::new(ns) {
                    cache.delete(&ns, key).map_err(Error::Apply)?;
                }
            }
            Target::Namespace(ns) => {
                if let Ok(ns) = Namespace::new(ns) {
                    cache.flush_namespace(&ns);
                    let _ = cache.delete(&reserved(), &generation_key(&ns));
                }
            }
            // Handled by the caller (a full flush).
            Target::All => {}
        }
    }
    Ok(())
}

/// A nonzero 64-bit stand-in for Redis' epoch value (0 means "none yet").
fn epoch_hash(epoch: &[u8]) -> u64 {
    xxhash_rust::xxh3::xxh3_64(epoch) | 1
}

enum Target {
    Key(Vec<u8>, Vec<u8>),
    Namespace(Vec<u8>),
    All,
}

struct Entry {
    id: u64,
    target: Target,
}

fn parse_entry(v: &Value) -> Option<Entry> {
    let Value::Array(parts) = v else { return None };
    let [id, Value::Array(fields)] = parts.as_slice() else { return None };
    let id = stream_id(id)?;
    let mut t = None;
    let (mut ns, mut key) = (None, None);
    for pair in fields.chunks(2) {
        let [name, value] = pair else { return None };
        match &bulk(name)?[..] {
            b"t" => t = bulk(value),
            b"n" => ns = bulk(value),
            b"k" => key = bulk(value),
            _ => {}
        }
    }
    let target = match t.as_deref()? {
        b"k" => Target::Key(ns?, key?),
        b"n" => Target::Namespace(ns?),
        b"a" => Target::All,
        _ => return None,
    };
    Some(Entry { id, target })
}

fn random_epoch() -> Vec<u8> {
    let mut bytes = [0u8; 16];
    // SAFETY: writes at most 16 bytes into our buffer.
    let n = unsafe { libc::getrandom(bytes.as_mut_ptr().cast(), bytes.len(), 0) };
    if n != bytes.len() as isize {
        let t = now_ms() ^ ((std::process::id() as u64) << 40);
        bytes[..8].copy_from_slice(&t.to_le_bytes());
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect::<String>().into_bytes()
}
