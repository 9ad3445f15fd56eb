//! Named regions: a region kept in a file on a memory filesystem (`/dev/shm` or another tmpfs),
//! shared by every process that names it — FPM workers of any master, the CLI, cron — and kept
//! across reloads.
//!
//! Invariants, each relied on by `open`:
//! - **Only complete regions are ever at the path.** A creator builds the file under a private
//!   temporary name (memory reserved with `posix_fallocate`, header written), then `link()`s it
//!   into place, which fails if anything is there already. A creator killed at any instruction
//!   leaves at most a temporary file, which no one attaches to and which later creators remove
//!   (its pid is dead). N processes starting at once: one `link()` wins, the others attach to
//!   the winner's file.
//! - **A file that does not fit is replaced, never read.** Another layout version, other sizes
//!   (when the caller insists on its own), or a truncated region: the process that wins
//!   the CAS of the header's `retired_by` word (offset 12 in every layout) unlinks the file and
//!   creates a new one; the others wait for it, boundedly, and take over if it died. Processes
//!   still mapping the old file keep it until they notice (`Region::file_unlinked`). A file
//!   that does not even start with the region magic is not ours: it is refused, never removed.
//! - **File permissions are the boundary.** A file is attached only when it belongs to this
//!   user (or root runs), or to the configured group with no access for others; anything else
//!   at the path is an error naming the file and its owner, never a fallback.

use std::ffi::CString;
use std::fs::File;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use super::error::Error;
use super::region::{Config, Region, HEADER_LEN, MAGIC};

/// Directory of regions given by name rather than by path.
pub const DEFAULT_DIR: &str = "/dev/shm";
/// Longest a process waits for another that is replacing the file.
const REPLACE_WAIT: Duration = Duration::from_secs(3);

/// Who may use the file, and what a mismatch means.
#[derive(Debug, Clone, Default)]
pub struct NamedOptions {
    /// Group that shares the file (mode 0660 instead of 0600).
    pub group: Option<u32>,
    /// Owner given to a file a root process creates (uid, gid). Without one, root gives it to
    /// the owner of its directory, and refuses in a shared sticky directory such as /dev/shm, so
    /// that it never leaves a file the site's user cannot open.
    pub owner: Option<(u32, u32)>,
    /// Replace a file whose sizes differ from the caller's `Config` (the caller's INI asks for
    /// them explicitly); otherwise any valid file is attached as it is.
    pub insist_on_sizes: bool,
}

/// How `open` came by the region.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Opened {
    Created,
    Attached,
    /// Created in place of an unusable file, for the reason given.
    Replaced(String),
}

/// The path of region `name`: an absolute path as it is, a bare name under `/dev/shm`.
pub fn region_path(name: &str) -> Result<PathBuf, Error> {
    let invalid = |why: &str| Error::RegionFile(format!("invalid region name \"{name}\": {why}"));
    if name.starts_with('/') {
        let path = Path::new(name);
        if path.file_name().is_none() || name.ends_with('/') {
            return Err(invalid("an absolute path must name a file"));
        }
        return Ok(path.to_path_buf());
    }
    if name.is_empty() || name.len() > 200 || name.starts_with('.') {
        return Err(invalid("a name is 1 to 200 characters and does not start with a dot"));
    }
    if !name.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.')) {
        return Err(invalid(
            "a name uses letters, digits, '-', '_' and '.' only (or give an absolute path)",
        ));
    }
    Ok(Path::new(DEFAULT_DIR).join(format!("shmcache.{name}")))
}

/// Opens the named region at `path`, creating or replacing it as the invariants above say.
pub fn open(
    path: &Path,
    config: &Config,
    options: &NamedOptions,
) -> Result<(Region, Opened), Error> {
    config.validate()?;
    let mut options = options.clone();
    let options = &mut options;
    let deadline = Instant::now() + REPLACE_WAIT;
    let mut replaced: Option<String> = None;
    loop {
        match attach_existing(path, config, options)? {
            Existing::Usable(region) => return Ok((region, Opened::Attached)),
            Existing::Missing => {
                if let Some(region) = create(path, config, options)? {
                    let how = replaced.take().map_or(Opened::Created, Opened::Replaced);
                    return Ok((region, how));
                }
                // Another process linked its file first: attach to it on the next turn.
            }
            Existing::Unfit { file, reason } => {
                // SAFETY: geteuid has no preconditions.
                if unsafe { libc::geteuid() } == 0 && options.owner.is_none() {
                    // Root replaces a file for the user it belonged to.
                    if let Ok(m) = file.metadata() {
                        options.owner = Some((m.uid(), m.gid()));
                    }
                }
                if retire(&file, path)? {
                    replaced = Some(reason);
                    continue;
                }
                // Someone else is replacing it: wait for its new file.
                if Instant::now() > deadline {
                    return Err(Error::RegionFile(format!(
                        "{} is being replaced by another process ({reason}) and no new region appeared within {} s",
                        path.display(),
                        REPLACE_WAIT.as_secs()
                    )));
                }
                std::thread::sleep(Duration::from_millis(2));
            }
        }
    }
}

enum Existing {
    Missing,
    Usable(Region),
    Unfit { file: File, reason: String },
}

fn attach_existing(
    path: &Path,
    config: &Config,
    options: &NamedOptions,
) -> Result<Existing, Error> {
    let file = match std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)
    {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Existing::Missing),
        Err(e) => {
            return Err(Error::RegionFile(format!(
                "cannot open {}: {e}{}",
                path.display(),
                owner_note(path)
            )))
        }
    };
    let meta = file
        .metadata()
        .map_err(|e| Error::RegionFile(format!("cannot stat {}: {e}", path.display())))?;
    check_ownership(path, &meta, options)?;
    // Only a file that starts as a region can be replaced: anything else at the name (a typo in
    // an absolute path, say) is someone's data and stays untouched.
    let mut magic = [0u8; 8];
    let starts_as_region = std::os::unix::fs::FileExt::read_exact_at(&file, &mut magic, 0).is_ok()
        && u64::from_ne_bytes(magic) == MAGIC;
    if !starts_as_region {
        return Err(Error::RegionFile(format!(
            "{} is not a shmcache region ({} bytes that do not start like one); it was left as it is: remove it or name another file",
            path.display(),
            meta.len()
        )));
    }
    let len = meta.len();
    if len < HEADER_LEN as u64 {
        return Ok(Existing::Unfit {
            file,
            reason: format!("the file is {len} bytes long, too short for a region"),
        });
    }
    let Ok(len) = usize::try_from(len) else {
        return Ok(Existing::Unfit {
            file,
            reason: "the file is larger than the address space".into(),
        });
    };
    let base = map(&file, len, false)
        .map_err(|e| Error::Map(format!("mmap of {} ({len} bytes) failed: {e}", path.display())))?;
    // SAFETY: `base` is a fresh MAP_SHARED mapping of `len` bytes of the file, page aligned,
    // which stays mapped until the region (adopt) or the unmap below releases it.
    let attached = unsafe { Region::attach(base, len) };
    let unfit = match attached {
        Ok(region) => {
            let found = region.config();
            if options.insist_on_sizes
                && (found.keys_memory_size, found.values_memory_size)
                    != (config.keys_memory_size, config.values_memory_size)
            {
                Some(format!(
                    "it has keys_memory_size={} and values_memory_size={}, this process asks for {} and {}",
                    found.keys_memory_size, found.values_memory_size, config.keys_memory_size, config.values_memory_size
                ))
            } else if region.header().retired_by.load(Ordering::Acquire) != 0 {
                Some("another process is replacing it".into())
            } else {
                return Ok(Existing::Usable(region.adopt(file)));
            }
        }
        Err(e) => Some(e.to_string()),
    };
    // SAFETY: unmaps the mapping made above; no Region refers to it (the attached one, if any,
    // did not own it and was dropped).
    unsafe { libc::munmap(base.cast(), len) };
    Ok(Existing::Unfit { file, reason: unfit.unwrap_or_default() })
}

/// Claims the replacement of an unfit file: true when this process must now remove it and
/// create the new one (it unlinked it already), false when another live process has the claim.
fn retire(file: &File, path: &Path) -> Result<bool, Error> {
    let me = std::process::id();
    let len = file.metadata().map(|m| m.len()).unwrap_or(0);
    let claimed = if len >= 16 {
        let base = map(file, 4096.min(len as usize), false)
            .map_err(|e| Error::Map(format!("mmap of {} failed: {e}", path.display())))?;
        // SAFETY: offset 12 of a page-aligned mapping of at least 16 bytes is a 4-aligned word
        // that every layout reserves for this claim; other processes only touch it atomically.
        let word = unsafe { &*base.add(12).cast::<std::sync::atomic::AtomicU32>() };
        let mut current = word.load(Ordering::Acquire);
        let claimed = loop {
            if current != 0 && current != me && pid_alive(current) {
                break false;
            }
            // Free, or claimed by a process that died before finishing: take it.
            match word.compare_exchange(current, me, Ordering::AcqRel, Ordering::Acquire) {
                Ok(_) => break true,
                Err(now) => current = now,
            }
        };
        // SAFETY: unmaps what `map` returned above.
        unsafe { libc::munmap(base.cast(), 4096.min(len as usize)) };
        claimed
    } else {
        // Too short to hold the claim word (it starts with the magic, so a region truncated by
        // hand): nobody can be using it as a region.
        true
    };
    if !claimed {
        return Ok(false);
    }
    // Only the claimant removes the file, and only if it is still the one at the path.
    let ours = file.metadata().map(|m| (m.dev(), m.ino())).ok();
    let at_path = std::fs::symlink_metadata(path).map(|m| (m.dev(), m.ino())).ok();
    if ours.is_some() && ours == at_path {
        match std::fs::remove_file(path) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => {
                return Err(Error::RegionFile(format!("cannot replace {}: {e}", path.display())))
            }
        }
    }
    Ok(true)
}

/// Builds a complete region under a temporary name and links it at `path`. None when another
/// process linked its own first.
fn create(path: &Path, config: &Config, options: &NamedOptions) -> Result<Option<Region>, Error> {
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    // SAFETY: geteuid has no preconditions.
    let euid = unsafe { libc::geteuid() };
    // Root creates the file for the user who will run the site: the one named in the options,
    // else the owner of the directory (a site's own directory); in a shared sticky directory
    // such as /dev/shm it cannot tell, and refuses rather than leave a file only root opens.
    let owner = match (euid, options.owner) {
        (0, Some(owner)) => Some(owner),
        (0, None) => match std::fs::metadata(dir) {
            Ok(m) if m.mode() & 0o1002 != 0o1002 => Some((m.uid(), m.gid())),
            _ => {
                return Err(Error::RegionFile(format!(
                    "{} does not exist and this process runs as root: in a shared directory it will not create a region the site's user could not open (set shmcache.region_user, put the region in a directory the site's user owns, or create it as that user first)",
                    path.display()
                )))
            }
        },
        _ => None,
    };
    let options = &NamedOptions { owner, ..options.clone() };
    let base_name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    remove_abandoned_temporaries(dir, &base_name);
    let len = Region::len_for(config)?;
    let temporary = dir.join(format!(".{base_name}.tmp.{}.{}", std::process::id(), nanos()));
    let mode = if options.group.is_some() { 0o660 } else { 0o600 };
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create_new(true)
        .mode(mode)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(&temporary)
        .map_err(|e| {
            Error::RegionFile(format!("cannot create a region in {}: {e}", dir.display()))
        })?;
    let result = build(&file, &temporary, len, config, options, mode, euid);
    let region = match result {
        Ok(region) => region,
        Err(e) => {
            let _ = std::fs::remove_file(&temporary);
            return Err(e);
        }
    };
    let linked = std::fs::hard_link(&temporary, path);
    let _ = std::fs::remove_file(&temporary);
    match linked {
        Ok(()) => Ok(Some(region)),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(None),
        Err(e) => Err(Error::RegionFile(format!(
            "cannot link the new region into place at {}: {e}",
            path.display()
        ))),
    }
}

/// Reserves the file's memory, maps it and writes the header: a complete region, not yet
/// visible at any path.
fn build(
    file: &File,
    temporary: &Path,
    len: usize,
    config: &Config,
    options: &NamedOptions,
    mode: u32,
    euid: u32,
) -> Result<Region, Error> {
    let fd = file.as_raw_fd();
    // The umask may have taken bits off the mode; ownership for root-created files.
    // SAFETY: fd is our open file; fchmod/fchown only change its metadata.
    unsafe {
        libc::fchmod(fd, mode);
        if euid == 0 {
            if let Some((uid, gid)) = options.owner {
                if libc::fchown(fd, uid, options.group.unwrap_or(gid)) != 0 {
                    return Err(Error::RegionFile(format!(
                        "cannot give {} to uid {uid}: {}",
                        temporary.display(),
                        io::Error::last_os_error()
                    )));
                }
            }
        } else if let Some(gid) = options.group {
            if libc::fchown(fd, u32::MAX, gid) != 0 {
                return Err(Error::RegionFile(format!(
                    "cannot give {} to group {gid} (this user must be a member): {}",
                    temporary.display(),
                    io::Error::last_os_error()
                )));
            }
        }
    }
    // SAFETY: reserves `len` bytes of the file; no memory of ours is involved.
    let rc = unsafe { libc::posix_fallocate(fd, 0, len as libc::off_t) };
    if rc != 0 {
        let why = io::Error::from_raw_os_error(rc);
        let dir = temporary.parent().unwrap_or(Path::new("/"));
        return Err(Error::RegionFile(format!(
            "cannot reserve {len} bytes for a region in {}: {why} ({} bytes free there)",
            dir.display(),
            free_bytes(dir).map_or("unknown".into(), |n| n.to_string())
        )));
    }
    let base = map(file, len, true).map_err(|e| {
        Error::Map(format!("mmap of {} ({len} bytes) failed: {e}", temporary.display()))
    })?;
    let file = file
        .try_clone()
        .map_err(|e| Error::RegionFile(format!("cannot keep {} open: {e}", temporary.display())))?;
    // SAFETY: a fresh MAP_SHARED mapping of `len` zero-filled bytes of a file only this
    // process knows by name (not linked at the region's path yet); config was validated.
    Ok(unsafe { Region::initialise(base, len, config, Some(file)) })
}

fn map(file: &File, len: usize, populate: bool) -> io::Result<*mut u8> {
    let flags = libc::MAP_SHARED | if populate { libc::MAP_POPULATE } else { 0 };
    // SAFETY: maps `len` bytes of an open file read-write; no existing memory is affected.
    let p = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ | libc::PROT_WRITE,
            flags,
            file.as_raw_fd(),
            0,
        )
    };
    if p == libc::MAP_FAILED {
        Err(io::Error::last_os_error())
    } else {
        // SAFETY: `p` is the mapping of `len` bytes just made.
        unsafe { super::region::advise_huge_pages(p.cast(), len) };
        Ok(p.cast())
    }
}

/// Refuses a file that could be someone else's: it must be this user's (root may use any), or
/// belong to the configured group with no access for others.
fn check_ownership(
    path: &Path,
    meta: &std::fs::Metadata,
    options: &NamedOptions,
) -> Result<(), Error> {
    // SAFETY: geteuid has no preconditions.
    let euid = unsafe { libc::geteuid() };
    if !meta.file_type().is_file() {
        return Err(Error::RegionFile(format!("{} is not a regular file", path.display())));
    }
    let others = meta.mode() & 0o007 != 0;
    let ours = meta.uid() == euid || euid == 0;
    let shared_group = options.group.is_some_and(|g| g == meta.gid());
    if others || !(ours || shared_group) {
        return Err(Error::RegionFile(format!(
            "{} belongs to {} (mode {:o}); this process runs as {} and will not use a region it does not own{}",
            path.display(),
            describe_owner(meta),
            meta.mode() & 0o777,
            user_name(euid).unwrap_or_else(|| euid.to_string()),
            if others { " or that other users can open" } else { "" }
        )));
    }
    Ok(())
}

fn owner_note(path: &Path) -> String {
    std::fs::symlink_metadata(path)
        .map(|m| format!(" (it belongs to {}, mode {:o})", describe_owner(&m), m.mode() & 0o777))
        .unwrap_or_default()
}

fn describe_owner(meta: &std::fs::Metadata) -> String {
    format!(
        "user {} and group {}",
        user_name(meta.uid()).unwrap_or_else(|| meta.uid().to_string()),
        group_name(meta.gid()).unwrap_or_else(|| meta.gid().to_string())
    )
}

/// Removes temporaries `.NAME.tmp.PID.*` of creators that died before linking theirs.
fn remove_abandoned_temporaries(dir: &Path, base_name: &str) {
    let prefix = format!(".{base_name}.tmp.");
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(rest) = name.to_str().and_then(|n| n.strip_prefix(&prefix)) else { continue };
        let Some(pid) = rest.split('.').next().and_then(|p| p.parse::<u32>().ok()) else {
            continue;
        };
        if !pid_alive(pid) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

fn pid_alive(pid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else { return false };
    // SAFETY: signal 0 only checks that the process exists.
    let rc = unsafe { libc::kill(pid, 0) };
    rc == 0 || io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

fn nanos() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0)
}

fn free_bytes(dir: &Path) -> Option<u64> {
    let c = CString::new(dir.as_os_str().as_bytes()).ok()?;
    // SAFETY: a zeroed statvfs is a valid out-parameter; `c` is NUL-terminated.
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: as above.
    (unsafe { libc::statvfs(c.as_ptr(), &mut st) } == 0)
        .then(|| st.f_bavail as u64 * st.f_frsize as u64)
}

/// The uid of user `name` (or a number given as is).
pub fn lookup_user(name: &str) -> Option<(u32, u32)> {
    if let Ok(uid) = name.parse::<u32>() {
        return Some((uid, primary_gid(uid).unwrap_or(uid)));
    }
    let c = CString::new(name).ok()?;
    let mut buf = vec![0u8; 16 << 10];
    // SAFETY: getpwnam_r fills `pw` with pointers into `buf`, both alive for the call.
    let mut pw: libc::passwd = unsafe { std::mem::zeroed() };
    let mut out: *mut libc::passwd = std::ptr::null_mut();
    // SAFETY: as above; buf's length is passed.
    let rc = unsafe {
        libc::getpwnam_r(c.as_ptr(), &mut pw, buf.as_mut_ptr().cast(), buf.len(), &mut out)
    };
    (rc == 0 && !out.is_null()).then_some((pw.pw_uid, pw.pw_gid))
}

/// The gid of group `name` (or a number given as is).
pub fn lookup_group(name: &str) -> Option<u32> {
    if let Ok(gid) = name.parse::<u32>() {
        return Some(gid);
    }
    let c = CString::new(name).ok()?;
    let mut buf = vec![0u8; 16 << 10];
    // SAFETY: getgrnam_r fills `gr` with pointers into `buf`, both alive for the call.
    let mut gr: libc::group = unsafe { std::mem::zeroed() };
    let mut out: *mut libc::group = std::ptr::null_mut();
    // SAFETY: as above.
    let rc = unsafe {
        libc::getgrnam_r(c.as_ptr(), &mut gr, buf.as_mut_ptr().cast(), buf.len(), &mut out)
    };
    (rc == 0 && !out.is_null()).then_some(gr.gr_gid)
}

/// The name and primary group of user `uid`.
fn passwd_by_uid(uid: u32) -> Option<(String, u32)> {
    let mut buf = vec![0u8; 16 << 10];
    // SAFETY: getpwuid_r fills `pw` with pointers into `buf`, both alive while we read them.
    let mut pw: libc::passwd = unsafe { std::mem::zeroed() };
    let mut out: *mut libc::passwd = std::ptr::null_mut();
    // SAFETY: as above.
    let rc =
        unsafe { libc::getpwuid_r(uid, &mut pw, buf.as_mut_ptr().cast(), buf.len(), &mut out) };
    // SAFETY: on success pw_name points at a NUL-terminated string inside `buf`.
    (rc == 0 && !out.is_null()).then(|| {
        (unsafe { std::ffi::CStr::from_ptr(pw.pw_name) }.to_string_lossy().into_owned(), pw.pw_gid)
    })
}

fn primary_gid(uid: u32) -> Option<u32> {
    passwd_by_uid(uid).map(|(_, gid)| gid)
}

fn user_name(uid: u32) -> Option<String> {
    passwd_by_uid(uid).map(|(name, _)| name)
}

fn group_name(gid: u32) -> Option<String> {
    let mut buf = vec![0u8; 16 << 10];
    // SAFETY: getgrgid_r fills `gr` with pointers into `buf`, both alive while we read them.
    let mut gr: libc::group = unsafe { std::mem::zeroed() };
    let mut out: *mut libc::group = std::ptr::null_mut();
    // SAFETY: as above.
    let rc =
        unsafe { libc::getgrgid_r(gid, &mut gr, buf.as_mut_ptr().cast(), buf.len(), &mut out) };
    // SAFETY: on success gr_name points at a NUL-terminated string inside `buf`.
    (rc == 0 && !out.is_null())
        .then(|| unsafe { std::ffi::CStr::from_ptr(gr.gr_name) }.to_string_lossy().into_owned())
}
