//! The connection to Redis and the one script every call runs.

use std::sync::atomic::Ordering;
use std::time::Duration;

use redis::Value;

use super::Tier;
use crate::engine::Namespace;

impl Tier {
    pub(super) fn call(
        &mut self,
        op: &str,
        ns: &Namespace,
        key: &[u8],
        a: &[u8],
        b: &[u8],
    ) -> Option<Vec<Value>> {
        match self.call_raw(op, ns.name(), key, a, b, b"0") {
            Ok(v) => Some(v),
            Err(Error::Refused(e)) => {
                self.write_refused(e);
                None
            }
            Err(e) => {
                self.fail(e);
                None
            }
        }
    }

    pub(super) fn call_raw(
        &mut self,
        op: &str,
        ns: &[u8],
        key: &[u8],
        a: &[u8],
        b: &[u8],
        limit: &[u8],
    ) -> Result<Vec<Value>, Error> {
        let stream_length = self.config.stream_length.to_string();
        self.connection()?;
        let mut invocation = self.script.prepare_invoke();
        invocation
            .key(self.config.prefix.as_bytes())
            .arg(op)
            .arg(ns)
            .arg(key)
            .arg(a)
            .arg(b)
            .arg(stream_length.as_bytes())
            .arg(limit);
        self.counters.round_trips += 1;
        let connection = self.connection.as_mut().expect("opened above");
        let result: redis::RedisResult<Value> = invocation.invoke(connection);
        match result {
            Ok(Value::Array(v)) => Ok(v),
            Ok(other) => Err(Error::UnexpectedValue(other)),
            // Out of memory, Redis refuses a script's first write only (script.lua): nothing
            // happened, and the connection read the whole reply.
            Err(e) if out_of_memory(&e) => Err(Error::Refused(e)),
            Err(e) => {
                // After a timeout the reply may still come: the connection is not reused.
                self.connection = None;
                Err(Error::Redis(e))
            }
        }
    }

    /// Closes this process's connection; one inherited across fork is left to its owner.
    pub(super) fn drop_connection(&mut self) {
        if let Some(connection) = self.connection.take() {
            if self.connection_pid != std::process::id() {
                // The parent's socket stays the parent's.
                std::mem::forget(connection);
            }
        }
    }

    pub(super) fn connection(&mut self) -> Result<&mut redis::Connection, Error> {
        let pid = std::process::id();
        if self.connection_pid != pid {
            self.drop_connection();
        }
        if self.connection.is_none() {
            self.connection = Some(self.connect()?);
            self.connection_pid = pid;
        }
        Ok(self.connection.as_mut().expect("just opened"))
    }

    pub(super) fn connect(&mut self) -> Result<redis::Connection, Error> {
        self.counters.round_trips += 1;
        let started = std::time::Instant::now();
        let timeout = self.config.connect_timeout;
        // The connect timeout covers a host name's resolution too (the client library resolves
        // without a bound): it is resolved here, and its addresses tried in turn.
        let urls = match tcp_host_name(&self.config.url) {
            Some((host, port)) => resolve(host, port, timeout, self.config.test_resolve_delay)?
                .into_iter()
                .map(|address| format!("redis://{address}"))
                .collect(),
            None => vec![connection_url(&self.config.url)?],
        };
        let mut failure = None;
        let mut connected = None;
        for url in urls {
            let left = timeout.saturating_sub(started.elapsed());
            if left.is_zero() {
                failure = Some(Error::ConnectTimeout(timeout));
                break;
            }
            let client = redis::Client::open(url)?;
            match client.get_connection_with_timeout(left) {
                Ok(c) => {
                    connected = Some(c);
                    break;
                }
                Err(e) => failure = Some(Error::Redis(e)),
            }
        }
        // (Every address was tried, or the time ran out: `failure` says why.)
        let mut c = connected.ok_or_else(|| failure.unwrap_or(Error::ConnectTimeout(timeout)))?;
        let timeout = Some(self.config.read_timeout);
        c.set_read_timeout(timeout)?;
        c.set_write_timeout(timeout)?;
        if let Some(password) = &self.config.password {
            redis::cmd("AUTH").arg(password).query::<()>(&mut c)?;
        }
        if self.config.database != 0 {
            redis::cmd("SELECT").arg(self.config.database).query::<()>(&mut c)?;
        }
        Ok(c)
    }
}

/// Whether Redis refused the script's first write for memory (`maxmemory` under `noeviction`).
/// Redis 7 and Valkey answer with the command's own OOM error; Redis 6 wraps it in a script
/// error ("ERR Error running script ... OOM command not allowed ...").
fn out_of_memory(e: &redis::RedisError) -> bool {
    e.code() == Some("OOM") || e.to_string().contains("OOM command not allowed")
}

/// Why the tier could not use Redis (its text goes to PHP's error log).
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("shmcache.redis: {0} needs an absolute socket path (unix:///run/redis.sock)")]
    RelativeSocketPath(String),
    #[error("shmcache.redis: {0} must start with unix:// or tcp://")]
    UnknownScheme(String),
    /// A host name that did not resolve within the connect timeout (the text says how).
    #[error("{0}")]
    Resolve(String),
    #[error("no connection within the connect timeout ({0:?})")]
    ConnectTimeout(Duration),
    /// The connection or the call failed.
    #[error("{0}")]
    Redis(#[from] redis::RedisError),
    /// Redis refused the script's first write (out of memory): nothing changed, and the
    /// connection read the whole reply.
    #[error("{0}")]
    Refused(redis::RedisError),
    #[error("unexpected reply {0:?}")]
    UnexpectedValue(Value),
    /// A reply the tier's script never gives (what is wrong with it).
    #[error("{0}")]
    UnexpectedReply(&'static str),
    #[error("an invalidation could not be applied: {0}")]
    Apply(crate::engine::Error),
}

/// `tcp://host:port` or `unix:///path` as the client library spells it.
pub(super) fn connection_url(url: &str) -> Result<String, Error> {
    if let Some(rest) = url.strip_prefix("tcp://") {
        Ok(format!("redis://{rest}"))
    } else if let Some(path) = url.strip_prefix("unix://") {
        if !path.starts_with('/') {
            return Err(Error::RelativeSocketPath(url.to_string()));
        }
        Ok(format!("redis+unix://{path}"))
    } else {
        Err(Error::UnknownScheme(url.to_string()))
    }
}

/// The host and port of a `tcp://host:port` address whose host is a name, not an IP literal.
fn tcp_host_name(url: &str) -> Option<(&str, u16)> {
    let (host, port) = url.strip_prefix("tcp://")?.rsplit_once(':')?;
    let port = port.parse().ok()?;
    let literal = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')).unwrap_or(host);
    if literal.parse::<std::net::IpAddr>().is_ok() {
        return None;
    }
    Some((host, port))
}

/// The process whose resolver thread is still running (0: none).
static RESOLVING: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);

/// Resolves a host name within `timeout`. The system resolver has no timeout of its own (an
/// unreachable DNS server holds it for seconds), so it runs on a thread of its own that the
/// caller stops waiting for. One such thread per process at a time: while one is stuck, a
/// connect fails at once instead of piling up threads.
fn resolve(
    host: &str,
    port: u16,
    timeout: Duration,
    test_delay: Duration,
) -> Result<Vec<std::net::SocketAddr>, Error> {
    let pid = std::process::id();
    let running = RESOLVING.load(Ordering::Acquire);
    // (A value of another process was inherited across fork, without its thread.)
    if running == pid
        || RESOLVING.compare_exchange(running, pid, Ordering::AcqRel, Ordering::Acquire).is_err()
    {
        return Err(Error::Resolve(format!(
            "resolving {host} is still under way since an earlier connect"
        )));
    }
    let (sender, receiver) = std::sync::mpsc::channel();
    let name = host.to_string();
    let spawned = std::thread::Builder::new().name("shmcache-resolve".into()).spawn(move || {
        if !test_delay.is_zero() {
            std::thread::sleep(test_delay);
        }
        let addresses = std::net::ToSocketAddrs::to_socket_addrs(&(name.as_str(), port))
            .map(|a| a.collect::<Vec<_>>());
        RESOLVING.store(0, Ordering::Release);
        let _ = sender.send(addresses);
    });
    if let Err(e) = spawned {
        RESOLVING.store(0, Ordering::Release);
        return Err(Error::Resolve(format!("resolving {host}: {e}")));
    }
    let why = match receiver.recv_timeout(timeout) {
        Ok(Ok(addresses)) if !addresses.is_empty() => return Ok(addresses),
        Ok(Ok(_)) => format!("{host} has no address"),
        Ok(Err(e)) => format!("resolving {host}: {e}"),
        Err(_) => format!("resolving {host} took longer than the connect timeout ({timeout:?})"),
    };
    Err(Error::Resolve(why))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_name_a_unix_socket_or_a_tcp_address() {
        assert_eq!(connection_url("unix:///run/r.sock").unwrap(), "redis+unix:///run/r.sock");
        assert_eq!(connection_url("tcp://10.0.0.2:6380").unwrap(), "redis://10.0.0.2:6380");
        assert!(connection_url("redis://x").is_err());
        assert!(connection_url("unix://relative").is_err());
    }

    #[test]
    fn only_host_names_are_resolved_by_the_tier_and_within_the_timeout() {
        assert_eq!(tcp_host_name("tcp://10.0.0.2:6380"), None);
        assert_eq!(tcp_host_name("tcp://[::1]:6380"), None);
        assert_eq!(tcp_host_name("unix:///run/r.sock"), None);
        assert_eq!(tcp_host_name("tcp://localhost:6380"), Some(("localhost", 6380)));
        let addresses = resolve("localhost", 6380, Duration::from_secs(5), Duration::ZERO).unwrap();
        assert!(
            addresses.iter().all(|a| a.ip().is_loopback() && a.port() == 6380),
            "{addresses:?}"
        );
    }
}
