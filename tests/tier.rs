//! Tiered mode against a real redis-server: two regions stand for two servers, each with its own
//! `Tier` (one per worker). The server is `redis-server` on PATH, or the binary
//! SHMCACHE_TEST_REDIS_SERVER names (scripts/test.sh runs this suite against Debian's Redis 7
//! and against the Redis 6.0 and Valkey 8.1 that scripts/redis-versions.sh builds).

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use shmcache::engine::{Cache, Config, Namespace, ValueKind};
use shmcache::tier::{Tier, TierConfig, WriteMode};

const STRING: ValueKind = ValueKind::STRING;

struct Redis {
    child: Option<Child>,
    socket: PathBuf,
    tcp: Option<(String, u16)>,
    /// An RDB file Redis loads at start and `SAVE` writes (None: no persistence).
    rdb: Option<PathBuf>,
    /// A directory of its own where Redis keeps an AOF, `appendfsync everysec`.
    aof: Option<PathBuf>,
    /// `--replicaof` this address at each start.
    replica_of: Option<(String, u16)>,
}

impl Redis {
    fn start(name: &str) -> Redis {
        let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("tier-redis");
        std::fs::create_dir_all(&dir).unwrap();
        let socket = dir.join(format!("{name}.sock"));
        let mut r =
            Redis { child: None, socket, tcp: None, rdb: None, aof: None, replica_of: None };
        r.restart();
        r
    }

    /// With an RDB snapshot file of its own (written by `SAVE`, loaded at each restart).
    fn start_with_snapshot(name: &str) -> Redis {
        let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("tier-redis");
        std::fs::create_dir_all(&dir).unwrap();
        let rdb = dir.join(format!("{name}.rdb"));
        let _ = std::fs::remove_file(&rdb);
        let mut r = Redis {
            child: None,
            socket: dir.join(format!("{name}.sock")),
            tcp: None,
            rdb: Some(rdb),
            aof: None,
            replica_of: None,
        };
        r.restart();
        r
    }

    /// Also listening on a TCP address.
    fn start_tcp(name: &str, address: &str, port: u16) -> Redis {
        let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("tier-redis");
        std::fs::create_dir_all(&dir).unwrap();
        let socket = dir.join(format!("{name}.sock"));
        let mut r = Redis {
            child: None,
            socket,
            tcp: Some((address.to_string(), port)),
            rdb: None,
            aof: None,
            replica_of: None,
        };
        r.restart();
        r
    }

    /// With an AOF fsynced every second (`appendfsync everysec`) in a directory of its own.
    fn start_with_aof(name: &str) -> Redis {
        let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("tier-redis");
        let aof = dir.join(format!("{name}-aof"));
        let _ = std::fs::remove_dir_all(&aof);
        std::fs::create_dir_all(&aof).unwrap();
        let mut r = Redis {
            child: None,
            socket: dir.join(format!("{name}.sock")),
            tcp: None,
            rdb: None,
            aof: Some(aof),
            replica_of: None,
        };
        r.restart();
        r
    }

    /// A pair for a failover: a master on a TCP port of its own and a replica of it, each also
    /// on its unix socket.
    fn start_pair(name: &str) -> (Redis, Redis) {
        let port =
            |_| std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let master = Redis::start_tcp(&format!("{name}-master"), "127.0.0.1", port(0));
        let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("tier-redis");
        let mut replica = Redis {
            child: None,
            socket: dir.join(format!("{name}-replica.sock")),
            tcp: Some(("127.0.0.1".to_string(), port(1))),
            rdb: None,
            aof: None,
            replica_of: master.tcp.clone(),
        };
        replica.restart();
        (master, replica)
    }

    fn restart(&mut self) {
        self.stop();
        let _ = std::fs::remove_file(&self.socket);
        let (bind, port) = match &self.tcp {
            Some((address, port)) => (address.clone(), port.to_string()),
            None => ("127.0.0.1".to_string(), "0".to_string()),
        };
        let mut command = Command::new(server_binary());
        command.args(["--port", &port, "--bind", &bind, "--save", ""]);
        match &self.aof {
            Some(dir) => {
                command.args(["--appendonly", "yes", "--appendfsync", "everysec", "--dir"]);
                command.arg(dir);
            }
            None => {
                command.args(["--appendonly", "no"]);
            }
        }
        if self.aof.is_none() && self.rdb.is_none() {
            // A directory of its own, emptied at each start: a server without persistence
            // still writes an RDB file for a replica's full sync, and one left in a shared
            // directory (the working directory, by default) would be loaded by the next
            // server started there — or refused, when a newer server wrote it.
            let data = self.socket.with_extension("data");
            let _ = std::fs::remove_dir_all(&data);
            std::fs::create_dir_all(&data).unwrap();
            command.arg("--dir").arg(data);
        }
        if let Some((host, port)) = &self.replica_of {
            command.args(["--replicaof", host, &port.to_string()]);
        }
        if let Some(rdb) = &self.rdb {
            command
                .arg("--dir")
                .arg(rdb.parent().unwrap())
                .arg("--dbfilename")
                .arg(rdb.file_name().unwrap());
        }
        if server_major() >= 7 {
            // (Before 7.0 DEBUG is always allowed, and the option does not exist.)
            command.args(["--enable-debug-command", "local"]);
        }
        let child = command
            .arg("--unixsocket")
            .arg(&self.socket)
            .stdout(Stdio::null())
            .spawn()
            .expect("the Redis server binary");
        self.child = Some(child);
        let deadline = Instant::now() + Duration::from_secs(10);
        while std::os::unix::net::UnixStream::connect(&self.socket).is_err() {
            assert!(Instant::now() < deadline, "redis-server did not start");
            std::thread::sleep(Duration::from_millis(20));
        }
        // A server started from an AOF or a snapshot answers LOADING until it has read it.
        while !self.cli(&["INFO", "persistence"]).contains("loading:0") {
            assert!(Instant::now() < deadline, "redis-server did not load its data");
            std::thread::sleep(Duration::from_millis(20));
        }
        // And a read runs (`command` sends it again while the server answers LOADING).
        let _ = self.cli(&["EXISTS", "shmcache:readiness-probe"]);
    }

    fn stop(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }

    /// One command on a connection of its own; its reply as text.
    fn cli(&self, args: &[&str]) -> String {
        command(&self.socket, args)
    }

    fn config(&self) -> TierConfig {
        TierConfig { url: format!("unix://{}", self.socket.display()), ..TierConfig::default() }
    }
}

impl Drop for Redis {
    fn drop(&mut self) {
        self.stop();
    }
}

/// The Redis-compatible server binary under test.
fn server_binary() -> String {
    std::env::var("SHMCACHE_TEST_REDIS_SERVER").unwrap_or_else(|_| "redis-server".into())
}

/// Its major version, from `--version` ("Redis server v=6.0.16 ...", "Valkey server v=8.1.1 ...").
fn server_major() -> u32 {
    static MAJOR: OnceLock<u32> = OnceLock::new();
    *MAJOR.get_or_init(|| {
        let out = Command::new(server_binary())
            .arg("--version")
            .output()
            .expect("the Redis server binary");
        let text = String::from_utf8_lossy(&out.stdout).to_string();
        let version = text
            .split_whitespace()
            .find_map(|w| w.strip_prefix("v="))
            .unwrap_or_else(|| panic!("no version in {text:?}"));
        version
            .split('.')
            .next()
            .and_then(|m| m.parse().ok())
            .unwrap_or_else(|| panic!("no version in {text:?}"))
    })
}

/// One command to the server at `socket` on a connection of its own (no client binary needed,
/// whatever the server's version); the reply as text, an error as its code and message.
fn connect(socket: &Path) -> redis::Connection {
    let client = redis::Client::open(format!("redis+unix://{}", socket.display())).unwrap();
    client.get_connection().expect("a connection to the test server")
}

fn command(socket: &Path, args: &[&str]) -> String {
    let mut connection = connect(socket);
    // A server still loading its AOF or snapshot refuses the command without running it
    // (LOADING), so it is sent again until the data is in: `restart` waits for INFO's
    // `loading:0`, but Valkey 8 answered one GET with LOADING after that (it loads a base
    // and an incremental AOF file one after the other).
    let deadline = Instant::now() + Duration::from_secs(10);
    let reply = loop {
        let reply = redis::cmd(args[0]).arg(&args[1..]).query::<redis::Value>(&mut connection);
        match &reply {
            Err(e) if e.code() == Some("LOADING") && Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(20));
            }
            _ => break reply,
        }
    };
    match reply {
        Ok(redis::Value::Okay) => "OK".into(),
        Ok(redis::Value::Int(n)) => n.to_string(),
        Ok(redis::Value::BulkString(b)) => String::from_utf8_lossy(&b).into_owned(),
        Ok(redis::Value::SimpleString(s)) => s,
        Ok(redis::Value::Nil) => String::new(),
        Ok(other) => format!("{other:?}"),
        Err(e) => format!("{} {}", e.code().unwrap_or("ERR"), e.detail().unwrap_or("")),
    }
}

fn region() -> Arc<Cache> {
    Arc::new(
        Cache::create(&Config {
            keys_memory_size: 1 << 20,
            values_memory_size: 4 << 20,
            compress_threshold: 0,
        })
        .unwrap(),
    )
}

fn tier(redis: &Redis) -> Tier {
    Tier::new(redis.config()).unwrap()
}

/// One request: begin, then a get.
fn get(t: &mut Tier, cache: &Cache, ns: &Namespace, key: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    t.get(cache, ns, key, &mut out).map(|_| out)
}

fn request_get(t: &mut Tier, cache: &Cache, key: &[u8]) -> Option<Vec<u8>> {
    t.begin_request();
    get(t, cache, &Namespace::root(), key)
}

fn request_set(t: &mut Tier, cache: &Cache, key: &[u8], value: &[u8]) -> bool {
    t.begin_request();
    t.store(cache, &Namespace::root(), key, STRING, value, 0, WriteMode::Set)
}

#[test]
fn a_write_on_one_server_is_read_by_the_next_request_on_the_other() {
    let redis = Redis::start("write-read");
    let (a, b) = (region(), region());
    let (mut ta, mut tb) = (tier(&redis), tier(&redis));
    assert!(request_set(&mut ta, &a, b"post", b"v1"));
    assert_eq!(request_get(&mut tb, &b, b"post").as_deref(), Some(&b"v1"[..]));
    // B now holds a near copy: the next read is served from its region.
    let hits = tb.counters.near_hits;
    assert_eq!(request_get(&mut tb, &b, b"post").as_deref(), Some(&b"v1"[..]));
    assert_eq!(tb.counters.near_hits, hits + 1);
    assert!(request_set(&mut ta, &a, b"post", b"v2"));
    assert_eq!(request_get(&mut tb, &b, b"post").as_deref(), Some(&b"v2"[..]));
    ta.begin_request();
    assert!(ta.delete(&a, &Namespace::root(), b"post"));
    assert_eq!(request_get(&mut tb, &b, b"post"), None);
}

#[test]
fn an_absent_key_is_remembered_near_until_a_write_anywhere() {
    let redis = Redis::start("absent");
    let (a, b) = (region(), region());
    let (mut ta, mut tb) = (tier(&redis), tier(&redis));
    assert_eq!(request_get(&mut tb, &b, b"notoptions"), None);
    let trips = tb.counters.round_trips;
    assert_eq!(request_get(&mut tb, &b, b"notoptions"), None);
    assert_eq!(tb.counters.round_trips, trips + 1, "only the request's sync: the absence was near");
    assert!(request_set(&mut ta, &a, b"notoptions", b"now"));
    assert_eq!(request_get(&mut tb, &b, b"notoptions").as_deref(), Some(&b"now"[..]));
}

#[test]
fn add_has_one_winner_across_servers_and_integers_are_shared() {
    let redis = Redis::start("add");
    let (a, b) = (region(), region());
    let (mut ta, mut tb) = (tier(&redis), tier(&redis));
    let root = Namespace::root();
    ta.begin_request();
    tb.begin_request();
    let one = 1i64.to_le_bytes();
    let wins = [
        ta.store(&a, &root, b"lock", ValueKind::INT, &one, 0, WriteMode::Add),
        tb.store(&b, &root, b"lock", ValueKind::INT, &one, 0, WriteMode::Add),
    ];
    assert_eq!(wins, [true, false]);
    assert_eq!(ta.incr(&a, &root, b"lock", 5), Some(6));
    tb.begin_request();
    assert_eq!(tb.incr(&b, &root, b"lock", -2), Some(4));
    assert!(!ta.cas(&a, &root, b"lock", 6, 7), "cas compares with Redis' value, not a near copy");
    ta.begin_request();
    assert!(ta.cas(&a, &root, b"lock", 4, 10));
    tb.begin_request();
    let mut out = Vec::new();
    assert_eq!(tb.get(&b, &root, b"lock", &mut out), Some(ValueKind::INT));
    assert_eq!(out, 10i64.to_le_bytes());
    assert!(!tb.store(&b, &root, b"nothing", STRING, b"x", 0, WriteMode::Replace));
    assert_eq!(tb.incr(&b, &root, b"nothing", 1), None);
}

#[test]
fn a_flush_on_one_server_empties_the_other() {
    let redis = Redis::start("flush");
    let (a, b) = (region(), region());
    let (mut ta, mut tb) = (tier(&redis), tier(&redis));
    let site = Namespace::new(b"site").unwrap();
    let other = Namespace::new(b"other").unwrap();
    ta.begin_request();
    assert!(ta.store(&a, &site, b"k", STRING, b"s", 0, WriteMode::Set));
    assert!(ta.store(&a, &other, b"k", STRING, b"o", 0, WriteMode::Set));
    tb.begin_request();
    let generation = tb.generation(&b, &site);
    assert!(generation > 0);
    assert!(get(&mut tb, &b, &site, b"k").is_some());
    assert!(get(&mut tb, &b, &other, b"k").is_some());

    ta.begin_request();
    assert_eq!(ta.generation(&a, &site), generation, "both servers see one generation");
    assert!(ta.flush(&a, &site));
    tb.begin_request();
    assert_eq!(get(&mut tb, &b, &site, b"k"), None);
    assert_eq!(get(&mut tb, &b, &other, b"k").as_deref(), Some(&b"o"[..]));
    assert_ne!(tb.generation(&b, &site), generation);

    ta.begin_request();
    assert!(ta.flush(&a, &Namespace::root()));
    tb.begin_request();
    assert_eq!(get(&mut tb, &b, &other, b"k"), None);
    assert!(tb.store(&b, &other, b"k", STRING, b"after", 0, WriteMode::Set));
    ta.begin_request();
    assert_eq!(get(&mut ta, &a, &other, b"k").as_deref(), Some(&b"after"[..]));
}

/// The race the fill protocol exists for: a request on B reads the old value from Redis, A
/// writes, another worker on B applies the invalidation, and only then does the first request
/// fill B's region with the old value. The next request on B must not read it.
#[test]
fn a_fill_older_than_an_applied_invalidation_loses() {
    let redis = Redis::start("fill-race");
    let (a, b) = (region(), region());
    let mut ta = tier(&redis);
    assert!(request_set(&mut ta, &a, b"post", b"old"));

    let slow_config = TierConfig { test_fill_delay: Duration::from_millis(1000), ..redis.config() };
    let b2 = Arc::clone(&b);
    let slow_reader = std::thread::spawn(move || {
        let mut slow = Tier::new(slow_config).unwrap();
        let value = request_get(&mut slow, &b2, b"post");
        (value, slow.counters.stale_fills_dropped)
    });
    std::thread::sleep(Duration::from_millis(300));
    assert!(request_set(&mut ta, &a, b"post", b"new"));
    let mut tb = tier(&redis);
    // This request applies the invalidation while the slow one has not filled yet.
    assert_eq!(request_get(&mut tb, &b, b"post").as_deref(), Some(&b"new"[..]));
    let (value, dropped) = slow_reader.join().unwrap();
    assert_eq!(value.as_deref(), Some(&b"old"[..]), "the slow request began before the write");
    // Requests on B after the write: never the old value, from the region or from Redis.
    let mut tc = tier(&redis);
    assert_eq!(request_get(&mut tc, &b, b"post").as_deref(), Some(&b"new"[..]));
    assert_eq!(request_get(&mut tb, &b, b"post").as_deref(), Some(&b"new"[..]));
    assert_eq!(dropped, 1);
}

#[test]
fn redis_down_means_misses_and_failed_writes_then_a_restart_that_lost_data_empties_the_near_copy() {
    let mut redis = Redis::start("restart");
    let (a, b) = (region(), region());
    let (mut ta, mut tb) = (tier(&redis), tier(&redis));
    assert!(request_set(&mut ta, &a, b"post", b"v1"));
    assert_eq!(request_get(&mut tb, &b, b"post").as_deref(), Some(&b"v1"[..]));

    redis.stop();
    let started = Instant::now();
    assert_eq!(request_get(&mut tb, &b, b"post"), None, "a region not synced is not read");
    assert!(!tb.store(&b, &Namespace::root(), b"post", STRING, b"x", 0, WriteMode::Set));
    assert!(tb.take_warning().is_some());
    assert!(tb.take_warning().is_none(), "one warning per request");
    assert!(started.elapsed() < Duration::from_secs(1), "{:?}", started.elapsed());
    assert_eq!(tb.counters.untrusted_requests, 1);

    redis.restart();
    // Redis came back empty (another epoch): B's near copy of v1 must not be served.
    assert_eq!(request_get(&mut tb, &b, b"post"), None);
    assert!(request_set(&mut ta, &a, b"post", b"v2"));
    assert_eq!(request_get(&mut tb, &b, b"post").as_deref(), Some(&b"v2"[..]));
}

#[test]
fn a_connection_survives_a_slow_redis_by_giving_up_within_the_timeout() {
    let redis = Redis::start("slow");
    let (a, b) = (region(), region());
    let (mut ta, mut tb) = (tier(&redis), tier(&redis));
    assert!(request_set(&mut ta, &a, b"post", b"v1"));
    assert_eq!(request_get(&mut tb, &b, b"post").as_deref(), Some(&b"v1"[..]));
    let socket = redis.socket.clone();
    let sleeper = std::thread::spawn(move || command(&socket, &["DEBUG", "SLEEP", "2"]));
    std::thread::sleep(Duration::from_millis(400));
    let started = Instant::now();
    assert_eq!(request_get(&mut tb, &b, b"post"), None);
    assert!(started.elapsed() < Duration::from_millis(600), "{:?}", started.elapsed());
    sleeper.join().unwrap();
    let after = request_get(&mut tb, &b, b"post");
    assert_eq!(after.as_deref(), Some(&b"v1"[..]), "{:?}", tb.take_warning());
}

#[test]
fn the_stream_positions_outlive_the_rings_recycling_and_a_flush_of_the_region() {
    let redis = Redis::start("positions");
    // A small ring that many writes lap again and again.
    let b = Arc::new(
        Cache::create(&Config {
            keys_memory_size: 1 << 16,
            values_memory_size: 256 << 10,
            compress_threshold: 0,
        })
        .unwrap(),
    );
    let mut ta = tier(&redis);
    let a = region();
    let mut tb = tier(&redis);
    assert!(request_set(&mut tb, &b, b"k", b"v1"));
    let resets = tb.counters.near_flushes;
    // Another application on the same region fills it many times over.
    let other = Namespace::new(b"other-app").unwrap();
    for i in 0..20_000u32 {
        b.set(&other, format!("x{i}").as_bytes(), STRING, &[7u8; 200], 0).unwrap();
    }
    // A write on the other server, then a request here: it applies the invalidation rather than
    // finding its position gone and emptying the whole near copy.
    assert!(request_set(&mut ta, &a, b"k", b"v2"));
    assert_eq!(request_get(&mut tb, &b, b"k").as_deref(), Some(&b"v2"[..]));
    assert_eq!(tb.counters.near_flushes, resets, "the ring's recycling must not cost a full reset");
    // A flush of the whole region by code outside the tier keeps the positions too.
    b.flush_all();
    assert!(request_set(&mut ta, &a, b"k", b"v3"));
    assert_eq!(request_get(&mut tb, &b, b"k").as_deref(), Some(&b"v3"[..]));
    assert_eq!(
        tb.counters.near_flushes, resets,
        "a flush of the region must not cost a full reset"
    );
}

#[test]
fn a_stale_fill_is_never_readable_while_its_recheck_is_pending() {
    // The fill reads "old", the write and another request's sync (which deletes the key) come
    // and go, and only then does the fill land; a request that starts while the fill has not
    // yet re-checked its position must not read it.
    let redis = Redis::start("fill-window");
    let (a, b) = (region(), region());
    let mut ta = tier(&redis);
    assert!(request_set(&mut ta, &a, b"post", b"old"));

    let slow_config = TierConfig {
        test_fill_delay: Duration::from_millis(800),
        test_fill_recheck_delay: Duration::from_millis(1500),
        ..redis.config()
    };
    let b2 = Arc::clone(&b);
    let slow_reader = std::thread::spawn(move || {
        let mut slow = Tier::new(slow_config).unwrap();
        let value = request_get(&mut slow, &b2, b"post");
        (value, slow.counters.stale_fills_dropped)
    });
    std::thread::sleep(Duration::from_millis(200));
    assert!(request_set(&mut ta, &a, b"post", b"new"));
    // This request applies the invalidation before the slow fill lands.
    let mut tb = tier(&redis);
    assert_eq!(request_get(&mut tb, &b, b"post").as_deref(), Some(&b"new"[..]));
    // Forget what tb put near, so the next request depends on what the slow fill left.
    let _ = b.delete(&Namespace::root(), b"post");
    // Now the slow fill has taken its slot and waits before its re-check.
    std::thread::sleep(Duration::from_millis(1200));
    let mut tc = tier(&redis);
    assert_eq!(
        request_get(&mut tc, &b, b"post").as_deref(),
        Some(&b"new"[..]),
        "a pending fill was read"
    );
    let (value, dropped) = slow_reader.join().unwrap();
    assert_eq!(value.as_deref(), Some(&b"old"[..]), "the slow request began before the write");
    assert_eq!(dropped, 1);
    assert_eq!(request_get(&mut tc, &b, b"post").as_deref(), Some(&b"new"[..]));
}

/// A panic inside the tier (the PHP side catches it at its boundary) poisons the lock the
/// process keeps its tier behind. Here it strikes halfway through a sync: `claimed` raised,
/// the near copy of the written key not yet deleted. The rest of that request must not read
/// the near copy, and the next request must work again, on a new connection.
#[test]
fn a_panic_inside_the_tier_costs_one_request_not_the_worker() {
    let redis = Redis::start("panic");
    let (a, b) = (region(), region());
    let mut ta = tier(&redis);
    let shared = std::sync::Mutex::new(Some(tier(&redis)));
    let root = Namespace::root();
    let request_get = |key: &[u8]| {
        let mut guard = shmcache::tier::lock(&shared).expect("the tier is usable");
        let t = guard.as_mut().unwrap();
        t.begin_request();
        get(t, &b, &root, key)
    };
    assert!(request_set(&mut ta, &a, b"post", b"v1"));
    assert_eq!(request_get(b"post").as_deref(), Some(&b"v1"[..]));
    assert!(request_set(&mut ta, &a, b"post", b"v2"));

    shmcache::tier::lock(&shared).unwrap().as_mut().unwrap().arm_test_panic();
    let panicked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| request_get(b"post")));
    assert!(panicked.is_err(), "the hook panics");
    assert!(shared.is_poisoned());

    // The same request goes on after the panic: the stale near copy (v1) is not read.
    {
        let mut guard = shmcache::tier::lock(&shared).expect("a poisoned tier is recovered");
        let t = guard.as_mut().unwrap();
        assert_eq!(get(t, &b, &root, b"post"), None, "a half-updated tier was trusted");
        assert_eq!(t.counters.untrusted_requests, 1);
    }
    let trips = shmcache::tier::lock(&shared).unwrap().as_ref().unwrap().counters.round_trips;
    assert_eq!(request_get(b"post").as_deref(), Some(&b"v2"[..]));
    let t = shmcache::tier::lock(&shared).unwrap();
    let t = t.as_ref().unwrap();
    // A connect, the sync, and the get (the panic left the key near, undeleted, until this
    // sync deleted it).
    assert_eq!(t.counters.round_trips, trips + 3, "the connection of the panicked call was kept");
    assert_eq!(t.counters.redis_errors, 0);
}

/// Redis at `maxmemory` under `noeviction` refuses a script's first write that may grow memory
/// (Redis 7 refused whole scripts that declared writes, and the sync and near-miss reads used
/// to be such scripts: every request became untrusted). Reads go on (the near copy stays
/// trusted), writes return false, deletes still work, on every server version.
#[test]
fn at_maxmemory_under_noeviction_reads_go_on_and_writes_return_false() {
    let redis = Redis::start("oom");
    let (a, b) = (region(), region());
    let (mut ta, mut tb) = (tier(&redis), tier(&redis));
    let root = Namespace::root();
    for key in [&b"near"[..], b"far", b"gone"] {
        assert!(request_set(&mut ta, &a, key, b"v1"));
    }
    assert!(ta.store(&a, &root, b"count", ValueKind::INT, &1i64.to_le_bytes(), 0, WriteMode::Set));
    assert_eq!(request_get(&mut tb, &b, b"near").as_deref(), Some(&b"v1"[..]));
    assert_eq!(redis.cli(&["CONFIG", "SET", "maxmemory-policy", "noeviction"]), "OK");
    assert_eq!(redis.cli(&["CONFIG", "SET", "maxmemory", "1"]), "OK");
    assert!(redis.cli(&["SET", "probe", "1"]).starts_with("OOM"), "Redis is not out of memory");

    let hits = tb.counters.near_hits;
    assert_eq!(
        request_get(&mut tb, &b, b"near").as_deref(),
        Some(&b"v1"[..]),
        "{:?}",
        tb.take_warning()
    );
    assert_eq!(tb.counters.near_hits, hits + 1, "the near copy is trusted");
    assert_eq!(
        get(&mut tb, &b, &root, b"far").as_deref(),
        Some(&b"v1"[..]),
        "a near miss reads Redis"
    );
    assert!(!tb.store(&b, &root, b"near", STRING, b"v2", 0, WriteMode::Set));
    assert!(tb.take_warning().unwrap().contains("refused a write"));
    let errors = tb.counters.redis_errors;
    assert_eq!(tb.incr(&b, &root, b"count", 1), None);
    assert_eq!(
        tb.counters.redis_errors,
        errors + 1,
        "a refused incr is Redis' error, not a missing key"
    );
    // A refused write changed nothing: the request still reads near.
    assert_eq!(get(&mut tb, &b, &root, b"near").as_deref(), Some(&b"v1"[..]));
    assert_eq!(tb.counters.near_hits, hits + 2);
    // A delete frees memory: it runs, with its invalidation.
    assert!(tb.delete(&b, &root, b"gone"));
    ta.begin_request();
    assert_eq!(get(&mut ta, &a, &root, b"gone"), None);
    // A worker that connects only now syncs too.
    let mut tc = tier(&redis);
    assert_eq!(
        request_get(&mut tc, &b, b"far").as_deref(),
        Some(&b"v1"[..]),
        "{:?}",
        tc.take_warning()
    );
    assert_eq!(
        [
            ta.counters.untrusted_requests,
            tb.counters.untrusted_requests,
            tc.counters.untrusted_requests
        ],
        [0, 0, 0]
    );

    assert_eq!(redis.cli(&["CONFIG", "SET", "maxmemory", "0"]), "OK");
    assert!(request_set(&mut tb, &b, b"near", b"v2"));
    assert_eq!(request_get(&mut ta, &a, b"near").as_deref(), Some(&b"v2"[..]));
}

/// A near copy of a value with a TTL dies no later than Redis' copy: its expiry counts from
/// before the call that read (or wrote) the value, not from when the reply arrived. The hook
/// holds each reply for over a second, so that a TTL counted from the reply's arrival would
/// land past Redis' expiry.
#[test]
fn a_near_copy_never_outlives_redis_copy() {
    let redis = Redis::start("ttl");
    let (a, b) = (region(), region());
    let slow = TierConfig { test_fill_delay: Duration::from_millis(1100), ..redis.config() };
    let (mut ta, mut tb) = (Tier::new(slow.clone()).unwrap(), Tier::new(slow).unwrap());
    let root = Namespace::root();
    let now_ms = || {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis()
            as u64
    };
    let now_s = || now_ms() / 1000;
    // No earlier than the key's expiry in Redis (PEXPIRETIME is Redis 7's: the remaining TTL
    // counted from before it was asked is a lower bound of it, on this one machine's clock).
    let redis_expiry_ms = |key: &str| -> u64 {
        let asked = now_ms();
        let ttl: u64 = redis.cli(&["PTTL", &format!("shmcache:d:0:0:0:{key}")]).parse().unwrap();
        asked + ttl
    };

    // The writer's own copy.
    ta.begin_request();
    assert!(ta.store(&a, &root, b"written", STRING, b"v", 10, WriteMode::Set));
    let near = a.expires_at(&root, b"written").unwrap().expect("the writer keeps a near copy");
    let far = redis_expiry_ms("written");
    assert!(near > now_s(), "the near copy has a future expiry");
    assert!(near * 1000 <= far, "the writer's near copy dies at {near}000, Redis' at {far}");

    // A copy filled by a near miss.
    ta.begin_request();
    assert!(ta.store(&a, &root, b"read", STRING, b"v", 10, WriteMode::Set));
    tb.begin_request();
    assert_eq!(get(&mut tb, &b, &root, b"read").as_deref(), Some(&b"v"[..]));
    let near = b.expires_at(&root, b"read").unwrap().expect("the reader keeps a near copy");
    let far = redis_expiry_ms("read");
    assert!(near > now_s());
    assert!(near * 1000 <= far, "the reader's near copy dies at {near}000, Redis' at {far}");
}

/// `ttl` answers from Redis on every server, the near copy or not: whole seconds rounded down
/// (at least 1), 0 without an expiry, None when Redis has no such key. Written back with a
/// replace, it keeps the key dying when it would have.
#[test]
fn ttl_is_redis_remaining_time_and_a_replace_given_it_keeps_the_expiry() {
    let redis = Redis::start("ttl-read");
    let (a, b) = (region(), region());
    let (mut ta, mut tb) = (tier(&redis), tier(&redis));
    let root = Namespace::root();
    ta.begin_request();
    assert!(ta.store(&a, &root, b"forever", STRING, b"v", 0, WriteMode::Set));
    assert!(ta.store(&a, &root, b"minute", STRING, b"v", 60, WriteMode::Set));
    assert!(ta.store(&a, &root, b"short", STRING, b"5", 3, WriteMode::Set));
    tb.begin_request();
    assert_eq!(tb.ttl(&b, &root, b"forever"), Some(0));
    assert!(
        matches!(tb.ttl(&b, &root, b"minute"), Some(58..=60)),
        "{:?}",
        tb.ttl(&b, &root, b"minute")
    );
    assert_eq!(tb.ttl(&b, &root, b"absent"), None);
    redis.cli(&["PEXPIRE", "shmcache:d:0:0:0:minute", "400"]);
    assert_eq!(tb.ttl(&b, &root, b"minute"), Some(1), "under a second left is 1, not 0 (never)");

    let left = tb.ttl(&b, &root, b"short").unwrap();
    assert!(tb.store(
        &b,
        &root,
        b"short",
        ValueKind::INT,
        &6i64.to_le_bytes(),
        left,
        WriteMode::Replace
    ));
    let pttl: i64 = redis.cli(&["PTTL", "shmcache:d:0:0:0:short"]).parse().unwrap();
    assert!((1..=3000).contains(&pttl), "the replace kept the expiry: {pttl} ms left");
    assert_eq!([ta.counters.redis_errors, tb.counters.redis_errors], [0, 0]);
}

/// `incr` past the ends of the 64-bit range wraps around in tiered mode as it does in the
/// local engine (Redis' INCRBY refuses an overflow), and every server sees the wrapped value.
#[test]
fn incr_wraps_around_past_2_pow_63_as_the_local_engine_does() {
    let redis = Redis::start("incr-wrap");
    let (a, b) = (region(), region());
    let (mut ta, mut tb) = (tier(&redis), tier(&redis));
    let local = region();
    let root = Namespace::root();
    let (max, min) = (i64::MAX, i64::MIN);
    let cases =
        [(max, 1), (max, max), (min, -1), (min, min), (-1, min), (max - 5, 3), (5, -3), (-2, max)];
    for (i, (start, delta)) in cases.into_iter().enumerate() {
        let key = format!("n{i}");
        local.set(&root, key.as_bytes(), ValueKind::INT, &start.to_le_bytes(), 0).unwrap();
        let engine = local.incr(&root, key.as_bytes(), delta).unwrap();
        assert_eq!(engine, Some(start.wrapping_add(delta)), "the engine wraps");
        ta.begin_request();
        assert!(ta.store(
            &a,
            &root,
            key.as_bytes(),
            ValueKind::INT,
            &start.to_le_bytes(),
            60,
            WriteMode::Set
        ));
        assert_eq!(ta.incr(&a, &root, key.as_bytes(), delta), engine, "{start} + {delta}");
        tb.begin_request();
        let mut out = Vec::new();
        assert_eq!(tb.get(&b, &root, key.as_bytes(), &mut out), Some(ValueKind::INT));
        assert_eq!(
            Some(i64::from_le_bytes(out.try_into().unwrap())),
            engine,
            "the other server reads it"
        );
        let ttl: i64 = redis.cli(&["PTTL", &format!("shmcache:d:0:0:0:{key}")]).parse().unwrap();
        assert!(ttl > 0, "the wrap kept the TTL");
    }
    assert_eq!([ta.counters.redis_errors, tb.counters.redis_errors], [0, 0]);
}

/// A get and a set whose replies come after the read timeout: each call gives up, and the
/// next request on that worker reads its own replies, never the late one (a late reply to a
/// get has the shape of the next get's; the connection is dropped after a timeout).
#[test]
fn a_late_reply_to_a_get_or_a_set_is_never_read_as_the_next_calls() {
    let redis = Redis::start("late");
    let (a, b) = (region(), region());
    let (mut ta, mut tb) = (tier(&redis), tier(&redis));
    let root = Namespace::root();
    assert!(request_set(&mut ta, &a, b"post", b"p1"));
    assert!(request_set(&mut ta, &a, b"other", b"o1"));
    let sleep_redis = || {
        let socket = redis.socket.clone();
        let sleeper = std::thread::spawn(move || command(&socket, &["DEBUG", "SLEEP", "1"]));
        // Until the sleep has begun (then every call waits for it).
        std::thread::sleep(Duration::from_millis(300));
        sleeper
    };

    // A get times out; its reply (o1) arrives afterwards.
    assert_eq!(request_get(&mut tb, &b, b"post").as_deref(), Some(&b"p1"[..]));
    let sleeper = sleep_redis();
    assert_eq!(get(&mut tb, &b, &root, b"other"), None);
    assert!(tb.take_warning().is_some(), "the get timed out");
    sleeper.join().unwrap();
    let (errors, trips) = (tb.counters.redis_errors, tb.counters.round_trips);
    assert!(request_set(&mut ta, &a, b"post", b"p2"));
    assert_eq!(
        request_get(&mut tb, &b, b"post").as_deref(),
        Some(&b"p2"[..]),
        "{:?}",
        tb.take_warning()
    );
    assert_eq!(get(&mut tb, &b, &root, b"other").as_deref(), Some(&b"o1"[..]));
    assert_eq!(tb.counters.redis_errors, errors);
    // On a new connection: a connect, the sync, two near misses.
    assert_eq!(tb.counters.round_trips, trips + 4, "the connection that timed out was kept");

    // A set times out; Redis runs it afterwards, and its reply comes late.
    tb.begin_request();
    assert_eq!(get(&mut tb, &b, &root, b"post").as_deref(), Some(&b"p2"[..]));
    let sleeper = sleep_redis();
    assert!(!tb.store(&b, &root, b"post", STRING, b"p3", 0, WriteMode::Set), "the set timed out");
    assert!(tb.take_warning().is_some());
    sleeper.join().unwrap();
    let (errors, trips) = (tb.counters.redis_errors, tb.counters.round_trips);
    tb.begin_request();
    assert!(
        tb.store(&b, &root, b"other", STRING, b"o2", 0, WriteMode::Set),
        "{:?}",
        tb.take_warning()
    );
    assert_eq!(
        get(&mut tb, &b, &root, b"post").as_deref(),
        Some(&b"p3"[..]),
        "the timed-out set did happen"
    );
    // A connect, the sync (which deleted the near p2: the set ran late), the set, the get.
    assert_eq!(tb.counters.round_trips, trips + 4, "the connection that timed out was kept");
    assert_eq!(request_get(&mut ta, &a, b"other").as_deref(), Some(&b"o2"[..]));
    assert_eq!(request_get(&mut ta, &a, b"post").as_deref(), Some(&b"p3"[..]));
    assert_eq!(tb.counters.redis_errors, errors);
}

/// Over TCP: an IP literal is connected to directly; a host name is resolved within the
/// connect timeout (the system resolver has none: an unreachable DNS server holds it for
/// seconds), and while a resolution is stuck, other connects fail at once.
#[test]
fn tcp_addresses_connect_and_a_slow_host_name_resolution_fails_within_the_connect_timeout() {
    let redis = Redis::start_tcp("tcp", "127.0.0.61", 16361);
    let (a, b) = (region(), region());
    let over_tcp = TierConfig { url: "tcp://127.0.0.61:16361".into(), ..TierConfig::default() };
    let (mut ta, mut tb) = (Tier::new(over_tcp.clone()).unwrap(), Tier::new(over_tcp).unwrap());
    assert!(request_set(&mut ta, &a, b"post", b"v1"), "{:?}", ta.take_warning());
    assert_eq!(request_get(&mut tb, &b, b"post").as_deref(), Some(&b"v1"[..]));
    drop(redis);

    // (Nothing listens on localhost at this port: a resolution that got through would be
    // refused.)
    let stuck = TierConfig {
        url: "tcp://localhost:16361".into(),
        test_resolve_delay: Duration::from_millis(1500),
        ..TierConfig::default()
    };
    let c = region();
    let mut t = Tier::new(stuck.clone()).unwrap();
    t.begin_request();
    assert!(!t.trusted(&c));
    let warning = t.take_warning().unwrap();
    assert!(
        warning.contains("resolving localhost took longer than the connect timeout"),
        "{warning}"
    );
    let mut other = Tier::new(stuck).unwrap();
    other.begin_request();
    assert!(!other.trusted(&c));
    let warning = other.take_warning().unwrap();
    assert!(warning.contains("still under way"), "{warning}");
}

#[test]
fn a_long_request_catches_up_with_other_servers_writes_after_the_resync_interval() {
    let redis = Redis::start("resync");
    let (a, b) = (region(), region());
    let mut ta = tier(&redis);
    let config = |interval_ms| TierConfig {
        resync_interval: Duration::from_millis(interval_ms),
        ..redis.config()
    };
    let mut long = Tier::new(config(300)).unwrap();
    let mut once = Tier::new(config(0)).unwrap();
    let (b2, root) = (region(), Namespace::root());
    assert!(request_set(&mut ta, &a, b"k", b"v1"));
    // Two long requests (a CLI script each), on servers of their own, hold a near copy of v1.
    long.begin_request();
    once.begin_request();
    assert_eq!(get(&mut long, &b, &root, b"k").as_deref(), Some(&b"v1"[..]));
    assert_eq!(get(&mut once, &b2, &root, b"k").as_deref(), Some(&b"v1"[..]));
    assert!(request_set(&mut ta, &a, b"k", b"v2"));
    std::thread::sleep(Duration::from_millis(400));
    // Past the interval, the long request syncs again at its next call and reads v2; with
    // the interval off it keeps its request's view.
    assert_eq!(get(&mut long, &b, &root, b"k").as_deref(), Some(&b"v2"[..]));
    assert_eq!(get(&mut once, &b2, &root, b"k").as_deref(), Some(&b"v1"[..]));
}

/// A server's own writes: its next sync finds their stream entries noted done by the writer
/// and skips them, so what it wrote (or deleted, or flushed) is not read from Redis again.
#[test]
fn a_servers_next_sync_does_not_undo_its_own_writes() {
    let redis = Redis::start("own-writes");
    let a = region();
    let mut ta = tier(&redis);
    let root = Namespace::root();
    let site = Namespace::new(b"site").unwrap();
    ta.begin_request();
    assert!(ta.store(&a, &root, b"post", STRING, b"v1", 0, WriteMode::Set));
    assert!(ta.store(&a, &root, b"gone", STRING, b"x", 0, WriteMode::Set));
    assert!(ta.delete(&a, &root, b"gone"));
    assert!(ta.flush(&a, &site));
    // Read after the flush, within the same request: a near copy of the namespace's state.
    assert_eq!(get(&mut ta, &a, &site, b"menu"), None);

    // Another worker of the same server, next request: one round trip (the sync), nothing
    // read again.
    let mut other_worker = tier(&redis);
    other_worker.begin_request();
    assert_eq!(get(&mut other_worker, &a, &root, b"post").as_deref(), Some(&b"v1"[..]));
    assert_eq!(get(&mut other_worker, &a, &root, b"gone"), None);
    assert_eq!(get(&mut other_worker, &a, &site, b"menu"), None);
    assert_eq!(other_worker.counters.round_trips, 2, "the connection and the sync only");
    assert_eq!(other_worker.counters.near_misses, 0);

    // The notes are used up: another server's write to the same key is applied as always.
    let b = region();
    let mut tb = tier(&redis);
    assert!(request_set(&mut tb, &b, b"post", b"v2"));
    assert_eq!(request_get(&mut other_worker, &a, b"post").as_deref(), Some(&b"v2"[..]));
}

/// A write Redis took whose writer never came back to its own server's near copy (a worker
/// killed right after Redis answered) left no note: that server's next sync applies its entry
/// like any other server's.
#[test]
fn a_write_whose_writer_died_before_updating_its_servers_copy_is_applied_there() {
    let redis = Redis::start("own-died");
    let a = region();
    let mut ta = tier(&redis);
    assert!(request_set(&mut ta, &a, b"post", b"v1"));
    assert_eq!(request_get(&mut ta, &a, b"post").as_deref(), Some(&b"v1"[..]));

    // The write script run straight against Redis, as the dead worker's call did.
    let body = include_str!("../src/tier/script.lua");
    let mut connection = connect(&redis.socket);
    let reply: redis::Value = redis::Script::new(body)
        .key("shmcache:")
        .arg("set")
        .arg("")
        .arg("post")
        .arg(b"\x06v2".as_slice())
        .arg("0")
        .arg("100000")
        .arg("0")
        .invoke(&mut connection)
        .unwrap();
    assert!(
        matches!(reply, redis::Value::Array(ref v) if v.first() == Some(&redis::Value::Int(1))),
        "{reply:?}"
    );

    assert_eq!(request_get(&mut ta, &a, b"post").as_deref(), Some(&b"v2"[..]));
}

/// A server that falls further behind than the stream is long: the entries after its position
/// are trimmed away, so it cannot apply them, and it empties its near copy rather than serve
/// what they invalidated (on every server version: the check is whether the entry at its
/// position is still in the stream).
#[test]
fn a_server_whose_position_was_trimmed_from_the_stream_empties_its_near_copy() {
    let redis = Redis::start("trimmed");
    let (a, b) = (region(), region());
    // A short stream, and no limit on how many entries a sync applies: only the trim can make
    // B start over.
    let config = TierConfig { stream_length: 10, max_apply: 1_000_000, ..redis.config() };
    let (mut ta, mut tb) = (Tier::new(config.clone()).unwrap(), Tier::new(config).unwrap());
    let root = Namespace::root();
    assert!(request_set(&mut ta, &a, b"post", b"v1"));
    assert_eq!(request_get(&mut tb, &b, b"post").as_deref(), Some(&b"v1"[..]));
    let resets = tb.counters.near_flushes;
    assert!(request_set(&mut ta, &a, b"post", b"v2"));
    for i in 0..1000 {
        assert!(ta.store(
            &a,
            &root,
            format!("other{i}").as_bytes(),
            STRING,
            b"x",
            0,
            WriteMode::Set
        ));
    }
    let length: u64 = redis.cli(&["XLEN", "shmcache:inval"]).parse().unwrap();
    assert!(length < 1000, "the stream was not trimmed ({length} entries)");
    assert_eq!(
        request_get(&mut tb, &b, b"post").as_deref(),
        Some(&b"v2"[..]),
        "an invalidation that was trimmed away was missed"
    );
    assert_eq!(tb.counters.near_flushes, resets + 1);
    // From its new position it applies the entries one by one again.
    assert!(request_set(&mut ta, &a, b"post", b"v3"));
    assert_eq!(request_get(&mut tb, &b, b"post").as_deref(), Some(&b"v3"[..]));
    assert_eq!(tb.counters.near_flushes, resets + 1);
}

/// The stream removed while the epoch stays (a DEL by hand, or an eviction the memory policy
/// should not allow): the entries after a server's position went with it, whether the stream
/// is still gone or a later write made it again. That server empties its near copy.
#[test]
fn a_server_whose_position_went_with_a_removed_stream_empties_its_near_copy() {
    let redis = Redis::start("removed");
    let (a, b) = (region(), region());
    let (mut ta, mut tb) = (tier(&redis), tier(&redis));
    assert!(request_set(&mut ta, &a, b"post", b"v1"));
    assert_eq!(request_get(&mut tb, &b, b"post").as_deref(), Some(&b"v1"[..]));
    assert!(request_set(&mut ta, &a, b"post", b"v2"));
    assert_eq!(redis.cli(&["DEL", "shmcache:inval"]), "1");
    assert_eq!(
        request_get(&mut tb, &b, b"post").as_deref(),
        Some(&b"v2"[..]),
        "the stream is gone"
    );

    assert!(request_set(&mut ta, &a, b"post", b"v3"));
    assert_eq!(redis.cli(&["DEL", "shmcache:inval"]), "1");
    assert!(request_set(&mut ta, &a, b"other", b"o"));
    assert_eq!(
        request_get(&mut tb, &b, b"post").as_deref(),
        Some(&b"v3"[..]),
        "the stream was made again"
    );
    assert_eq!([ta.counters.redis_errors, tb.counters.redis_errors], [0, 0]);
}

/// The stream ids of the last `n` entries, newest first.
fn last_ids(redis: &Redis, n: usize) -> Vec<String> {
    let mut connection = connect(&redis.socket);
    let reply: redis::Value = redis::cmd("XREVRANGE")
        .arg("shmcache:inval")
        .arg("+")
        .arg("-")
        .arg("COUNT")
        .arg(n)
        .query(&mut connection)
        .unwrap();
    let redis::Value::Array(entries) = reply else { panic!("{reply:?}") };
    entries
        .iter()
        .map(|e| match e {
            redis::Value::Array(parts) => match &parts[0] {
                redis::Value::BulkString(id) => String::from_utf8(id.clone()).unwrap(),
                other => panic!("{other:?}"),
            },
            other => panic!("{other:?}"),
        })
        .collect()
}

/// A Redis whose clock went back keeps counting ids within its last millisecond; past 65,535
/// of them, ids no longer fit the tier's positions one to one. A writer's note for one of them
/// must not make its server skip another server's invalidation at an id that packs the same.
#[test]
fn ids_past_65535_in_one_millisecond_never_skip_another_servers_invalidation() {
    let redis = Redis::start("seq-overflow");
    let (a, b) = (region(), region());
    let (mut writer, mut reader, mut tb) = (tier(&redis), tier(&redis), tier(&redis));
    assert!(request_set(&mut tb, &b, b"k2", b"v1"));
    assert_eq!(request_get(&mut reader, &a, b"k2").as_deref(), Some(&b"v1"[..]));
    // Redis' last id one hour ahead, at sequence 65,534: the next ids are <ms>-65535, -65536...
    let ahead =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis()
            as u64
            + 3_600_000;
    let id = format!("{ahead}-65534");
    assert_eq!(
        redis.cli(&["XADD", "shmcache:inval", &id, "t", "k", "n", "", "k", "unrelated"]),
        id
    );
    writer.begin_request();
    assert!(get(&mut writer, &a, &Namespace::root(), b"unrelated").is_none());
    assert!(request_set(&mut tb, &b, b"k2", b"v2"));
    // The writer, in the request it began before B's write: its entry comes right after B's.
    assert!(writer.store(&a, &Namespace::root(), b"k1", STRING, b"x", 0, WriteMode::Set));
    let ids = last_ids(&redis, 2);
    assert_eq!(ids, [format!("{ahead}-65536"), format!("{ahead}-65535")]);
    assert_eq!(request_get(&mut reader, &a, b"k2").as_deref(), Some(&b"v2"[..]));
    assert_eq!(request_get(&mut reader, &a, b"k1").as_deref(), Some(&b"x"[..]));
}

/// A note answers for its own key only: a stream that lost an entry (a failover to a replica
/// that had not received it) and gave its id to another key's write must not have that write
/// skipped by the note.
#[test]
fn a_note_never_skips_another_keys_entry_at_the_same_id() {
    let redis = Redis::start("note-target");
    let (a, b) = (region(), region());
    let (mut writer, mut reader, mut tb) = (tier(&redis), tier(&redis), tier(&redis));
    assert!(request_set(&mut tb, &b, b"k2", b"v1"));
    assert_eq!(request_get(&mut reader, &a, b"k2").as_deref(), Some(&b"v1"[..]));
    assert!(request_set(&mut writer, &a, b"k1", b"x"));
    // The new stream: the entry A last applied, then the writer's id for a write of k2 whose
    // value Redis now holds.
    let ids = last_ids(&redis, 2);
    let (writers, applied) = (&ids[0], &ids[1]);
    assert_eq!(redis.cli(&["DEL", "shmcache:inval"]), "1");
    assert_eq!(
        redis.cli(&["XADD", "shmcache:inval", applied, "t", "k", "n", "", "k", "k2"]),
        *applied
    );
    assert_eq!(
        redis.cli(&["XADD", "shmcache:inval", writers, "t", "k", "n", "", "k", "k2"]),
        *writers
    );
    assert_eq!(redis.cli(&["SET", "shmcache:d:0:0:0:k2", "\u{6}v2"]), "OK");
    assert_eq!(request_get(&mut reader, &a, b"k2").as_deref(), Some(&b"v2"[..]));
}

/// Issue 31, item 1: a long tiered request (a worker loop, a CLI script) keeps the region
/// marked at every resync, not only at its start, so that a process without the tier never
/// takes the region over (flushing it, then writing values Redis never had) under it.
#[test]
fn a_long_tiered_request_renews_the_regions_mark_at_every_resync() {
    use shmcache::tier::positions::{self, Alone};
    use shmcache::tier::time;
    let redis = Redis::start("mark-resync");
    let a = region();
    let root = Namespace::root();
    let mut long =
        Tier::new(TierConfig { resync_interval: Duration::from_millis(20), ..redis.config() })
            .unwrap();
    long.begin_request();
    assert_eq!(get(&mut long, &a, &root, b"k"), None);
    // The request has run past the lease since it (or the PHP side, at its start) marked the
    // region: the mark is as old as that.
    positions::renew_mark(&a, time::unix_now() - positions::LEASE_SECONDS - 10);
    std::thread::sleep(Duration::from_millis(40));
    // Its next call is past the resync interval: it syncs again, and renews the mark.
    assert_eq!(get(&mut long, &a, &root, b"k"), None);
    assert!(
        matches!(
            positions::enter_alone(&a, time::unix_now(), positions::LEASE_SECONDS),
            Alone::Tiered { .. }
        ),
        "a process without the tier must stay out of a region a running tiered request uses"
    );
    // With the resync interval off (once per request), the request still renews the mark
    // while it runs: its window of trust is cut at the renewal period.
    let b = region();
    let mut once =
        Tier::new(TierConfig { resync_interval: Duration::ZERO, ..redis.config() }).unwrap();
    once.begin_request();
    assert!(once.trusted(&b));
    let until = once.trusted_until().expect("trusted");
    assert!(
        until < Duration::MAX,
        "a request with the resync interval off must come back to renew the mark"
    );
}

/// Issue 31, item 4: a near copy never outlives Redis' copy, even when the server's wall clock
/// steps back (a correction, a leap second, a VM resumed and resynchronized): near lifetimes
/// count on a clock that does not step. Server B reads a value with a 2 s TTL while its clock
/// is 60 s ahead (the hook shifts the tier's reading; the engine's expiry check follows the
/// machine's clock, as a clock stepped back by 60 s afterwards would); once Redis has expired
/// the key, B's next request must not serve it.
#[test]
fn a_clock_stepped_back_never_makes_a_near_copy_outlive_redis_copy() {
    let redis = Redis::start("clock-step");
    let (a, b) = (region(), region());
    let (mut ta, mut tb) = (tier(&redis), tier(&redis));
    let root = Namespace::root();
    ta.begin_request();
    assert!(ta.store(&a, &root, b"short", STRING, b"v", 2, WriteMode::Set));
    tb.set_test_wall_clock_shift(60_000);
    assert_eq!(request_get(&mut tb, &b, b"short").as_deref(), Some(&b"v"[..]));
    assert!(b.expires_at(&root, b"short").unwrap().is_some(), "B keeps a near copy");
    // B's clock steps back 60 s.
    tb.set_test_wall_clock_shift(0);
    let deadline = Instant::now() + Duration::from_secs(10);
    while redis.cli(&["EXISTS", "shmcache:d:0:0:0:short"]) != "0" {
        assert!(Instant::now() < deadline, "Redis did not expire the key");
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(request_get(&mut tb, &b, b"short"), None, "B served a value Redis had expired");
    // Without a step, near copies are kept: a value without a TTL stays near across requests.
    assert!(request_set(&mut ta, &a, b"long", b"w"));
    assert_eq!(request_get(&mut tb, &b, b"long").as_deref(), Some(&b"w"[..]));
    let hits = tb.counters.near_hits;
    assert_eq!(request_get(&mut tb, &b, b"long").as_deref(), Some(&b"w"[..]));
    assert_eq!(tb.counters.near_hits, hits + 1);
}

/// Issue 31, item 7: Redis replaced (a restart that lost its data, a failover) by one whose
/// clock is behind, while a fill read from the old Redis is in flight. The old stream's ids
/// are ahead of the new one's (here the old stream starts at an id in 2255), so the reset to
/// the new Redis raises `claimed` only to a position below the fill's: the fill must still
/// lose, or the region keeps the old value while Redis has a newer one.
#[test]
fn a_fill_read_from_a_redis_that_was_replaced_never_lands_after_the_reset() {
    let mut redis = Redis::start("epoch-fill");
    let (a, b) = (region(), region());
    let (mut ta, mut tb) = (tier(&redis), tier(&redis));
    // The old Redis' stream is ahead of any clock: its ids continue from 9000000000000-0.
    assert_eq!(
        redis.cli(&["XADD", "shmcache:inval", "9000000000000-0", "t", "k", "n", "", "k", "dummy"]),
        "9000000000000-0"
    );
    assert!(request_set(&mut ta, &a, b"k", b"old"));
    assert_eq!(request_get(&mut tb, &b, b"k").as_deref(), Some(&b"old"[..]));
    assert!(request_set(&mut ta, &a, b"unrelated", b"x"));
    // A request on B misses k (evicted here) and reads it from the old Redis, slowly.
    b.delete(&Namespace::root(), b"k").unwrap();
    let slow_config = TierConfig { test_fill_delay: Duration::from_millis(2000), ..redis.config() };
    let b2 = Arc::clone(&b);
    let slow_reader = std::thread::spawn(move || {
        let mut slow = Tier::new(slow_config).unwrap();
        request_get(&mut slow, &b2, b"k")
    });
    std::thread::sleep(Duration::from_millis(500));
    // Redis is replaced by an empty one with an ordinary clock; the new value is written there
    // and B's next request resets its near copy to the new Redis.
    redis.restart();
    assert!(request_set(&mut ta, &a, b"k", b"new"));
    assert_eq!(request_get(&mut tb, &b, b"k").as_deref(), Some(&b"new"[..]));
    assert_eq!(
        slow_reader.join().unwrap().as_deref(),
        Some(&b"old"[..]),
        "the slow request read before the switch"
    );
    // Requests on B after it: the new value, never the slow request's fill of the old one.
    let mut tc = tier(&redis);
    assert_eq!(request_get(&mut tc, &b, b"k").as_deref(), Some(&b"new"[..]));
    assert_eq!(request_get(&mut tb, &b, b"k").as_deref(), Some(&b"new"[..]));
}

/// Issue 31, item 3: Redis restarted from an older snapshot (RDB, its default persistence)
/// loses the writes after the last save. Server A wrote v2 after the save and had not synced
/// past its own write; B had. After the restart B's position is gone (B resets and reads v1);
/// A's position is still in the stream, so the sync alone says complete: A must still notice
/// that an entry it saw (its own write's) is gone, and start over.
#[test]
fn a_redis_restored_from_an_older_snapshot_empties_the_near_copy_of_every_server() {
    let mut redis = Redis::start_with_snapshot("snapshot");
    let (a, b) = (region(), region());
    let (mut ta, mut tb) = (tier(&redis), tier(&redis));
    assert!(request_set(&mut ta, &a, b"ks", b"v1"));
    assert_eq!(redis.cli(&["SAVE"]), "OK");
    assert!(request_set(&mut ta, &a, b"ks", b"v2"));
    assert_eq!(request_get(&mut tb, &b, b"ks").as_deref(), Some(&b"v2"[..]));
    // Killed, and started again from the snapshot: v1, and the stream as it was at the save.
    redis.restart();
    assert_eq!(
        redis.cli(&["GET", "shmcache:d:0:0:0:ks"]),
        "\u{6}v1",
        "(a string: its kind byte, then its bytes)"
    );
    assert_eq!(request_get(&mut tb, &b, b"ks").as_deref(), Some(&b"v1"[..]));
    assert_eq!(
        request_get(&mut ta, &a, b"ks").as_deref(),
        Some(&b"v1"[..]),
        "A served a write Redis lost"
    );
}

/// Issue 31, item 5: a reset of the tier's near copy drops what the tier keeps in the region
/// and nothing else. The entries of local namespaces (the `apcu_*` functions' and
/// `apcu_entry()`'s leases, local to a server by contract) survive every cause of a reset: a
/// full flush on another server and on this one, a burst of more than `redis_max_apply`
/// writes, a trimmed stream, a Redis restart that lost its data, a step back of the wall clock,
/// and a process without the tier taking the region over. A flush of the region itself
/// (`shmcache_flush()` without the tier) still takes them.
#[test]
fn a_tier_reset_keeps_the_entries_of_local_namespaces() {
    let mut redis = Redis::start("local-namespaces");
    let (a, b) = (region(), region());
    let root = Namespace::root();
    let apcu = Namespace::new(b"apcu").unwrap().recording_store_times().local();
    let lease = Namespace::new(b"apcu\0lease").unwrap().local();
    // Written straight into B's region, as the apcu_* functions do.
    assert!(b.set(&apcu, b"kept", STRING, b"local", 0).unwrap());
    assert!(b.add(&lease, b"kept", ValueKind::INT, &7i64.to_le_bytes(), 0).unwrap());
    let short_stream = TierConfig { stream_length: 10, ..redis.config() };
    let mut ta = tier(&redis);
    let mut ta_short = Tier::new(short_stream).unwrap();
    // B's workers: one that applies any number of entries (only a trim makes it start over),
    // one that applies at most 5.
    let mut tb = Tier::new(TierConfig { max_apply: 1_000_000, ..redis.config() }).unwrap();
    let mut tb_small = Tier::new(TierConfig { max_apply: 5, ..redis.config() }).unwrap();
    fn writes(t: &mut Tier, a: &Cache, n: usize) {
        t.begin_request();
        for i in 0..n {
            let key = format!("other{i}");
            assert!(t.store(
                a,
                &Namespace::root(),
                key.as_bytes(),
                STRING,
                b"x",
                0,
                WriteMode::Set
            ));
        }
    }
    let causes = [
        "another server's full flush",
        "this server's own full flush",
        "a burst past redis_max_apply",
        "a trimmed stream",
        "a Redis restart that lost its data",
        "a step back of the wall clock",
        "a process without the tier taking the region over",
    ];
    for (n, what) in causes.into_iter().enumerate() {
        // A near copy on B, which the reset must drop.
        assert!(request_set(&mut ta, &a, b"near", what.as_bytes()));
        let worker = if what.contains("burst") { &mut tb_small } else { &mut tb };
        assert_eq!(request_get(worker, &b, b"near").as_deref(), Some(what.as_bytes()));
        let resets = worker.counters.near_flushes;
        match n {
            0 => {
                ta.begin_request();
                assert!(ta.flush(&a, &root));
            }
            1 => {
                worker.begin_request();
                assert!(worker.flush(&b, &root));
            }
            2 => writes(&mut ta, &a, 6),
            3 => writes(&mut ta_short, &a, 1000),
            4 => redis.restart(),
            5 => {
                worker.set_test_wall_clock_shift(60_000);
                worker.begin_request();
                assert!(worker.trusted(&b));
                worker.set_test_wall_clock_shift(0);
            }
            _ => {
                let now = shmcache::tier::time::unix_now();
                shmcache::tier::positions::renew_mark(&b, now - 1000);
                assert!(matches!(
                    shmcache::tier::positions::enter_alone(&b, now, 120),
                    shmcache::tier::positions::Alone::TakenOver { .. }
                ));
            }
        }
        worker.begin_request();
        assert!(worker.trusted(&b), "{what}: B syncs");
        assert!(worker.counters.near_flushes > resets, "{what}: B did not reset");
        assert_eq!(b.get(&root, b"near", &mut Vec::new()).unwrap(), None, "{what}: near copy kept");
        let mut value = Vec::new();
        assert_eq!(
            b.get(&apcu, b"kept", &mut value).unwrap(),
            Some(STRING),
            "{what}: a local entry was dropped"
        );
        assert_eq!(value, b"local");
        assert_eq!(
            b.get(&lease, b"kept", &mut value).unwrap(),
            Some(ValueKind::INT),
            "{what}: a lease was dropped"
        );
        assert!(b.times(&apcu, b"kept").unwrap().is_some_and(|t| t.stored_at > 0));
    }
    // A flush of the region itself takes everything.
    b.flush_all();
    assert_eq!(b.get(&apcu, b"kept", &mut Vec::new()).unwrap(), None);
    assert_eq!(b.get(&lease, b"kept", &mut Vec::new()).unwrap(), None);
    // And local entries written after it are live again.
    assert!(b.set(&apcu, b"kept", STRING, b"again", 0).unwrap());
    assert!(b.get(&apcu, b"kept", &mut Vec::new()).unwrap().is_some());
}

/// Issue 31, item 3: Redis with an AOF fsynced every second (`appendfsync everysec`) loses up to
/// a second of writes when the machine stops: what was not yet fsynced. The test stands in for
/// that with the AOF's directory as it was after A's first write (copied then: what the disk
/// held), Redis killed after A's second write, and started again from the copy. As with a
/// snapshot: B's position is gone (B resets); A's is still there, and A must notice that the
/// entry of its own lost write is gone too.
#[test]
fn an_aof_fsynced_every_second_that_lost_its_last_writes_empties_the_near_copy_of_every_server() {
    let mut redis = Redis::start_with_aof("aof-everysec");
    let aof = redis.aof.clone().unwrap();
    let (a, b) = (region(), region());
    let (mut ta, mut tb) = (tier(&redis), tier(&redis));
    assert!(request_set(&mut ta, &a, b"ks", b"v1"));
    // What the disk holds at the next fsync: v1's whole transaction in the AOF (Redis may
    // postpone the write of its AOF buffer while a background fsync runs, so it is waited for;
    // a copy that cut the transaction short would lose v1 as well).
    let deadline = Instant::now() + Duration::from_secs(10);
    while !dir_contains(&aof, b"\x06v1") {
        assert!(Instant::now() < deadline, "v1 never reached the AOF");
        std::thread::sleep(Duration::from_millis(20));
    }
    let synced = aof.with_extension("synced");
    let _ = std::fs::remove_dir_all(&synced);
    copy_dir(&aof, &synced);
    assert!(request_set(&mut ta, &a, b"ks", b"v2"));
    assert_eq!(request_get(&mut tb, &b, b"ks").as_deref(), Some(&b"v2"[..]));
    // The machine stops before the next fsync; Redis starts again from what was on disk.
    redis.stop();
    std::fs::remove_dir_all(&aof).unwrap();
    copy_dir(&synced, &aof);
    redis.restart();
    assert_eq!(redis.cli(&["GET", "shmcache:d:0:0:0:ks"]), "\u{6}v1", "the AOF lost v2");
    assert_eq!(request_get(&mut tb, &b, b"ks").as_deref(), Some(&b"v1"[..]));
    assert_eq!(
        request_get(&mut ta, &a, b"ks").as_deref(),
        Some(&b"v1"[..]),
        "A served a write the AOF lost"
    );
}

/// Whether a file under `dir` holds `bytes` and ends with a whole transaction (an AOF's).
fn dir_contains(dir: &Path, bytes: &[u8]) -> bool {
    std::fs::read_dir(dir).unwrap().any(|entry| {
        let path = entry.unwrap().path();
        if path.is_dir() {
            dir_contains(&path, bytes)
        } else {
            std::fs::read(&path).is_ok_and(|b| {
                b.windows(bytes.len()).any(|w| w == bytes) && b.ends_with(b"EXEC\r\n")
            })
        }
    })
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// Issue 31, item 3: a failover to an asynchronous replica that lags. Two redis-server
/// processes, the second a replica of the first (`--replicaof`); its link goes down (it is
/// pointed at an address where no master answers, and keeps its data), A writes v2 to the
/// master, B syncs past it; then the master dies and the replica, which never received v2, is
/// promoted (`REPLICAOF NO ONE`) and the servers' clients follow it. Its stream holds A's
/// position but not the entry of A's last write: A must start over, as B does.
#[test]
fn a_failover_to_a_replica_that_lagged_empties_the_near_copy_of_every_server() {
    let (mut master, replica) = Redis::start_pair("failover");
    let (a, b) = (region(), region());
    let (mut ta, mut tb) = (tier(&master), tier(&master));
    assert!(request_set(&mut ta, &a, b"kr", b"v1"));
    // The replica has everything up to v1.
    let deadline = Instant::now() + Duration::from_secs(10);
    while replica.cli(&["GET", "shmcache:d:0:0:0:kr"]) != "\u{6}v1" {
        assert!(Instant::now() < deadline, "the replica did not catch up");
        std::thread::sleep(Duration::from_millis(20));
    }
    // Its link goes down: from here on it lags.
    let nowhere = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    assert_eq!(replica.cli(&["REPLICAOF", "127.0.0.1", &nowhere.to_string()]), "OK");
    assert!(request_set(&mut ta, &a, b"kr", b"v2"));
    assert_eq!(request_get(&mut tb, &b, b"kr").as_deref(), Some(&b"v2"[..]));
    assert_eq!(replica.cli(&["GET", "shmcache:d:0:0:0:kr"]), "\u{6}v1", "the replica lags");
    // The master dies; the replica is promoted and both servers' clients follow it.
    master.stop();
    assert_eq!(replica.cli(&["REPLICAOF", "NO", "ONE"]), "OK");
    let (mut ta, mut tb) = (tier(&replica), tier(&replica));
    assert_eq!(request_get(&mut tb, &b, b"kr").as_deref(), Some(&b"v1"[..]));
    assert_eq!(
        request_get(&mut ta, &a, b"kr").as_deref(),
        Some(&b"v1"[..]),
        "A served a write the promoted replica never had"
    );
}
