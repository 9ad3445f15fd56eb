//! Named regions with real, unrelated processes: this test binary runs itself again (exec, not
//! fork) as the children, so nothing is inherited but the file's name.
//!
//! - 8 processes racing to create one region, round after round: exactly one creates it, all
//!   map the same file, every value written by any is read by all.
//! - Creators SIGKILLed at random points: later processes open a complete region, never a
//!   half-built one, and abandoned temporaries are removed.
//! - A file of another layout version, of other sizes, or truncated is replaced, never read; a
//!   file that is no region is left alone; a file others may open is refused.
//! - A full tmpfs: a clear error naming the file and the free space, no SIGBUS, nothing left.

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use shmcache::engine::named::{self, NamedOptions, Opened};
use shmcache::engine::{Cache, Config, Error, Namespace, ValueKind};

const CHILD_ENV: &str = "SHMCACHE_NAMED_CHILD";
const STR: ValueKind = ValueKind::STRING;

fn small() -> Config {
    Config { keys_memory_size: 64 << 10, values_memory_size: 1 << 20, compress_threshold: 0 }
}

/// A private directory for one test (regions are removed with it).
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir =
            Path::new("/dev/shm").join(format!("shmcache-test-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir(&dir).unwrap();
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700)).unwrap();
        Scratch(dir)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn now_micros() -> u128 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_micros()
}

/// What a child does, chosen by the parent through the environment:
/// `race PATH ID START_MICROS`: waits until START, opens PATH, writes key "by-ID", prints
/// "opened HOW INODE"; `create PATH`: opens PATH (to be killed meanwhile).
#[test]
fn child_main() {
    let Ok(spec) = std::env::var(CHILD_ENV) else { return };
    let parts: Vec<&str> = spec.split(' ').collect();
    match parts[0] {
        "race" => {
            let (path, id, start): (&str, &str, u128) =
                (parts[1], parts[2], parts[3].parse().unwrap());
            while now_micros() < start {
                std::hint::spin_loop();
            }
            let (region, how) =
                named::open(Path::new(path), &small(), &NamedOptions::default()).unwrap();
            let cache = Cache::over(region);
            assert!(cache
                .set(&Namespace::root(), format!("by-{id}").as_bytes(), STR, id.as_bytes(), 0)
                .unwrap());
            let ino = std::fs::metadata(path).unwrap().ino();
            println!(
                "opened {} {ino}",
                if how == Opened::Created { "created" } else { "attached" }
            );
        }
        "create" => {
            let config = Config { values_memory_size: 64 << 20, ..small() };
            let _ = named::open(Path::new(parts[1]), &config, &NamedOptions::default());
            println!("done");
        }
        other => panic!("unknown child mode {other}"),
    }
}

fn child(spec: &str) -> Command {
    let mut c = Command::new(std::env::current_exe().unwrap());
    c.args(["--exact", "child_main", "--nocapture", "--test-threads=1", "-q"]).env(CHILD_ENV, spec);
    c
}

fn read(cache: &Cache, key: &str) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    cache.get(&Namespace::root(), key.as_bytes(), &mut out).unwrap().map(|_| out)
}

#[test]
fn unrelated_processes_racing_to_create_end_with_exactly_one_region() {
    let scratch = Scratch::new("race");
    const ROUNDS: usize = 60;
    const PROCESSES: usize = 8;
    for round in 0..ROUNDS {
        let path = scratch.0.join(format!("r{round}"));
        let start = now_micros() + 150_000;
        let children: Vec<_> = (0..PROCESSES)
            .map(|id| {
                child(&format!("race {} {id} {start}", path.display()))
                    .stdout(Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        let mut created = 0;
        let mut inodes = std::collections::HashSet::new();
        for c in children {
            let out = c.wait_with_output().unwrap();
            assert!(
                out.status.success(),
                "round {round}: a child failed: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            let text = String::from_utf8_lossy(&out.stdout);
            let line = text
                .lines()
                .find(|l| l.starts_with("opened "))
                .unwrap_or_else(|| panic!("round {round}: no result in {text:?}"));
            let fields: Vec<&str> = line.split(' ').collect();
            created += usize::from(fields[1] == "created");
            inodes.insert(fields[2].to_string());
        }
        assert_eq!(created, 1, "round {round}: {created} processes created the region");
        assert_eq!(
            inodes.len(),
            1,
            "round {round}: the processes mapped {} different files",
            inodes.len()
        );
        let (region, how) = named::open(&path, &small(), &NamedOptions::default()).unwrap();
        assert_eq!(how, Opened::Attached);
        let cache = Cache::over(region);
        for id in 0..PROCESSES {
            assert_eq!(
                read(&cache, &format!("by-{id}")),
                Some(id.to_string().into_bytes()),
                "round {round}"
            );
        }
        drop(cache);
        std::fs::remove_file(&path).unwrap();
    }
    // No temporaries are left behind by creators that lost the race.
    assert_eq!(std::fs::read_dir(&scratch.0).unwrap().count(), 0);
}

#[test]
fn creators_killed_at_random_points_leave_nothing_half_built() {
    let scratch = Scratch::new("kill");
    let path = scratch.0.join("region");
    let mut killed_before_done = 0;
    let mut seed = std::process::id() as u64 | 1;
    for round in 0..40 {
        let _ = std::fs::remove_file(&path);
        let mut c =
            child(&format!("create {}", path.display())).stdout(Stdio::piped()).spawn().unwrap();
        // xorshift: a delay of 0-40 ms, across the creation of a 64 MiB region.
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        std::thread::sleep(Duration::from_micros(seed % 40_000));
        let _ = c.kill();
        let out = c.wait_with_output().unwrap();
        if !String::from_utf8_lossy(&out.stdout).contains("done") {
            killed_before_done += 1;
        }
        // Whatever the killed creator left, a new process opens a complete, working region.
        let config = Config { values_memory_size: 64 << 20, ..small() };
        let (region, _) = named::open(&path, &config, &NamedOptions::default())
            .unwrap_or_else(|e| panic!("round {round}: open after a killed creator failed: {e}"));
        let cache = Cache::over(region);
        assert!(cache.set(&Namespace::root(), b"k", STR, b"v", 0).unwrap());
        assert_eq!(read(&cache, "k"), Some(b"v".to_vec()));
        drop(cache);
        // Temporaries of dead creators are gone once someone created a region.
        let leftovers: Vec<_> = std::fs::read_dir(&scratch.0)
            .unwrap()
            .flatten()
            .map(|e| e.file_name())
            .filter(|n| n != "region")
            .collect();
        assert!(
            leftovers.is_empty() || std::fs::metadata(&path).is_ok(),
            "round {round}: {leftovers:?}"
        );
    }
    assert!(
        killed_before_done > 0,
        "no creator was killed before it finished: the test did not test anything"
    );
    // A last creation sweeps every abandoned temporary.
    std::fs::remove_file(&path).unwrap();
    drop(named::open(&path, &small(), &NamedOptions::default()).unwrap());
    let names: Vec<_> =
        std::fs::read_dir(&scratch.0).unwrap().flatten().map(|e| e.file_name()).collect();
    assert_eq!(names, vec![std::ffi::OsString::from("region")]);
}

#[test]
fn a_file_that_does_not_fit_is_replaced_never_read() {
    let scratch = Scratch::new("unfit");
    let path = scratch.0.join("region");
    let ino = |p: &Path| std::fs::metadata(p).unwrap().ino();

    // Other sizes: attached as they are, unless this process insists on its own.
    let (region, how) = named::open(&path, &small(), &NamedOptions::default()).unwrap();
    assert_eq!(how, Opened::Created);
    let old = Cache::over(region);
    assert!(old.set(&Namespace::root(), b"k", STR, b"old", 0).unwrap());
    let bigger = Config { values_memory_size: 2 << 20, ..small() };
    let (region, how) = named::open(&path, &bigger, &NamedOptions::default()).unwrap();
    assert_eq!((how, region.config()), (Opened::Attached, small()));
    drop(region);
    let first = ino(&path);
    let insist = NamedOptions { insist_on_sizes: true, ..Default::default() };
    let (region, how) = named::open(&path, &bigger, &insist).unwrap();
    assert!(
        matches!(&how, Opened::Replaced(why) if why.contains("values_memory_size=1048576")),
        "{how:?}"
    );
    assert_eq!(region.config(), bigger);
    assert_ne!(ino(&path), first);
    let new = Cache::over(region);
    assert_eq!(read(&new, "k"), None, "a replaced region starts empty");
    // The process still mapping the old file keeps working on it and learns it was replaced.
    assert_eq!(read(&old, "k"), Some(b"old".to_vec()));
    assert!(old.region().file_unlinked());
    assert!(!new.region().file_unlinked());
    drop((old, new));

    // Another layout version: same magic, version word changed.
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[8..12].copy_from_slice(&(shmcache::engine::LAYOUT_VERSION + 1).to_le_bytes());
    std::fs::write(&path, &bytes).unwrap();
    let (_, how) = named::open(&path, &bigger, &NamedOptions::default()).unwrap();
    assert!(matches!(&how, Opened::Replaced(why) if why.contains("layout version")), "{how:?}");

    // A region truncated by hand (it starts with the magic) is replaced.
    let header = std::fs::read(&path).unwrap()[..64].to_vec();
    std::fs::write(&path, &header).unwrap();
    let (region, how) = named::open(&path, &small(), &NamedOptions::default()).unwrap();
    assert!(matches!(&how, Opened::Replaced(why) if why.contains("too short")), "{how:?}");
    assert_eq!(region.config(), small());
    drop(region);

    // Bytes that are no region at all are someone's data: refused, left untouched.
    for junk in [vec![0x5a; 8192], vec![1, 2, 3], vec![]] {
        std::fs::write(&path, &junk).unwrap();
        match named::open(&path, &small(), &NamedOptions::default()) {
            Err(Error::RegionFile(m)) => assert!(m.contains("is not a shmcache region"), "{m}"),
            other => panic!(
                "a file that is no region was used or replaced: {:?}",
                other.map(|(_, how)| how)
            ),
        }
        assert_eq!(std::fs::read(&path).unwrap(), junk);
    }
}

#[test]
fn files_others_could_open_are_refused() {
    let scratch = Scratch::new("perm");
    let path = scratch.0.join("region");
    drop(named::open(&path, &small(), &NamedOptions::default()).unwrap());
    assert_eq!(std::fs::metadata(&path).unwrap().mode() & 0o777, 0o600);
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o606)).unwrap();
    match named::open(&path, &small(), &NamedOptions::default()) {
        Err(Error::RegionFile(m)) => {
            assert!(m.contains("other users can open") && m.contains(path.to_str().unwrap()), "{m}")
        }
        other => panic!("a world-readable region was not refused: {:?}", other.map(|(_, how)| how)),
    }
    // Not a regular file.
    std::fs::remove_file(&path).unwrap();
    std::os::unix::fs::symlink("/etc/passwd", &path).unwrap();
    assert!(matches!(
        named::open(&path, &small(), &NamedOptions::default()),
        Err(Error::RegionFile(_))
    ));
}

#[test]
fn names_and_paths() {
    assert_eq!(named::region_path("site-a").unwrap(), PathBuf::from("/dev/shm/shmcache.site-a"));
    assert_eq!(named::region_path("/run/shm/x").unwrap(), PathBuf::from("/run/shm/x"));
    for bad in ["", "../x", "a/b", ".hidden", "sp ace", "/dir/"] {
        assert!(named::region_path(bad).is_err(), "{bad:?} was accepted");
    }
}

/// A tmpfs too small for the region: the error names the file's directory, the size and the free
/// space; nothing is left in it; the process goes on (no SIGBUS).
#[test]
fn a_full_tmpfs_is_a_clear_error_not_a_sigbus() {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("SKIPPED: mounting a small tmpfs needs root");
        return;
    }
    let scratch = Scratch::new("full");
    let mount_point = scratch.0.join("mnt");
    std::fs::create_dir(&mount_point).unwrap();
    let status = Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=4m,mode=0700", "tmpfs"])
        .arg(&mount_point)
        .status()
        .unwrap();
    assert!(status.success(), "mount of a test tmpfs failed");
    struct Unmount(PathBuf);
    impl Drop for Unmount {
        fn drop(&mut self) {
            let _ = Command::new("umount").arg(&self.0).status();
        }
    }
    let _unmount = Unmount(mount_point.clone());
    // Fill most of it, as other files on a busy /dev/shm would.
    std::fs::write(mount_point.join("other"), vec![1u8; 5 << 19]).unwrap();
    let path = mount_point.join("region");
    let config = Config { values_memory_size: 2 << 20, ..small() };
    match named::open(&path, &config, &NamedOptions::default()) {
        Err(Error::RegionFile(m)) => {
            assert!(
                m.contains("cannot reserve")
                    && m.contains(mount_point.to_str().unwrap())
                    && m.contains("bytes free"),
                "{m}"
            );
        }
        other => panic!(
            "a region larger than the free space was created: {:?}",
            other.map(|(_, how)| how)
        ),
    }
    let names: Vec<_> =
        std::fs::read_dir(&mount_point).unwrap().flatten().map(|e| e.file_name()).collect();
    assert_eq!(
        names,
        vec![std::ffi::OsString::from("other")],
        "the failed creation left files behind"
    );
    // A region that fits is created and usable in the same process.
    let (region, how) = named::open(&path, &small(), &NamedOptions::default()).unwrap();
    assert_eq!(how, Opened::Created);
    let cache = Cache::over(region);
    assert!(cache.set(&Namespace::root(), b"k", STR, &[7u8; 1000], 0).unwrap());
}
