//! Running this process inside a memory cgroup of a chosen size (`--memory-limit`), so that
//! the page cache it may fill is small: like pulling RAM out of the machine, without a reboot.
//!
//! The cgroup is made fresh (`iogauge-<pid>`), the whole process is moved into it (all
//! threads, and the ones started later), and on [`MemoryCgroup::leave`] or drop the process
//! goes back and the cgroup is removed. It must never remove a cgroup it did not make: it
//! keeps the one path it created and removes only that, and leftovers of earlier runs only
//! when their process is gone and they hold no tasks (rmdir refuses a busy cgroup anyway).
//!
//! Both cgroup versions are handled; only v1 could be tested where this was written (the
//! machine's memory controller was on a v1 hierarchy), so the v2 side is kept simple and its
//! path logic is a pure function with unit tests.

use std::io::{self, Write};
use std::path::{Component, Path, PathBuf};
use std::time::Duration;

use crate::os::memcg::{CgroupVersion, MIN_LIMIT};
use crate::units::format_size;

const PREFIX: &str = "iogauge-";

impl CgroupVersion {
    fn limit_file(self) -> &'static str {
        match self {
            CgroupVersion::V1 => "memory.limit_in_bytes",
            CgroupVersion::V2 => "memory.max",
        }
    }

    fn peak_file(self) -> &'static str {
        match self {
            CgroupVersion::V1 => "memory.max_usage_in_bytes",
            CgroupVersion::V2 => "memory.peak",
        }
    }
}

/// A memory cgroup this process made and entered; left again on drop.
pub struct MemoryCgroup {
    /// The cgroup made: the only one ever removed.
    dir: PathBuf,
    /// The cgroup the process was in before, to move back to.
    home: PathBuf,
    version: CgroupVersion,
    /// The limit as the kernel reports it back.
    limit: u64,
    /// The limit asked for, for the context of messages.
    asked: u64,
    /// Whether the process was moved into `dir` (and so must be moved back).
    inside: bool,
    /// Whether `dir` still exists, as far as we know.
    made: bool,
}

/// Nothing to restore: a cgroup is removed on leaving, and one whose process died is removed
/// by the next `--memory-limit` (its leftovers).
pub fn restore_left() -> Option<String> {
    None
}

impl MemoryCgroup {
    /// Create a fresh cgroup with memory limit `bytes` and move this whole process (all
    /// threads) into it.
    pub fn enter(bytes: u64) -> Result<MemoryCgroup, String> {
        let ctx = context(bytes);
        if bytes < MIN_LIMIT {
            return Err(format!(
                "{ctx} is too small: the minimum is {} (iogauge's own memory is charged to \
                 the cgroup too)",
                format_size(MIN_LIMIT)
            ));
        }
        let (version, mount) = detect(&ctx)?;
        let place = place_for(&ctx, version, &mount)?;
        if version == CgroupVersion::V2 {
            enable_memory(&ctx, &place.parent)?;
        }
        remove_leftovers(&place.parent);
        let dir = make_dir(&ctx, &place.parent)?;
        // From here on, dropping `cg` removes what was made.
        let mut cg = MemoryCgroup {
            dir,
            home: place.home,
            version,
            limit: 0,
            asked: bytes,
            inside: false,
            made: true,
        };
        cg.limit = cg.set_limit(&ctx, bytes)?;
        cg.move_into(&ctx)?;
        Ok(cg)
    }

    pub fn version(&self) -> CgroupVersion {
        self.version
    }

    /// Always a cgroup here.
    pub fn kind(&self) -> crate::os::memcg::CapKind {
        crate::os::memcg::CapKind::Cgroup
    }

    /// "v2 /sys/fs/cgroup/...": the interface and the cgroup's folder.
    pub fn place(&self) -> String {
        let v = match self.version {
            CgroupVersion::V1 => "v1",
            CgroupVersion::V2 => "v2",
        };
        format!("{v} {}", self.dir.display())
    }

    /// The limit as the kernel reports it back (rounded down to whole pages).
    pub fn limit(&self) -> u64 {
        self.limit
    }

    pub fn path(&self) -> &Path {
        &self.dir
    }

    /// Bytes the cgroup's memory peaked at (v1 memory.max_usage_in_bytes, v2 memory.peak if
    /// present), None if unknown.
    pub fn peak(&self) -> Option<u64> {
        read_u64(&self.dir.join(self.version.peak_file()))
    }

    /// Move the process back where it was and remove the cgroup. Also done on drop (errors
    /// printed to stderr as `iogauge: ...` there).
    pub fn leave(mut self) -> Result<(), String> {
        let r = self.go_home();
        // Reported once, here: drop must not try again and print it a second time.
        self.inside = false;
        self.made = false;
        r
    }

    /// Write the limit, and read back what the kernel made of it.
    fn set_limit(&self, ctx: &str, bytes: u64) -> Result<u64, String> {
        let file = self.dir.join(self.version.limit_file());
        write_text(&file, &bytes.to_string()).map_err(|e| fail(ctx, "cannot write", &file, &e))?;
        read_u64(&file).ok_or_else(|| format!("{ctx}: cannot read back '{}'", file.display()))
    }

    /// Writing the pid to cgroup.procs moves every thread of the process, in both versions.
    fn move_into(&mut self, ctx: &str) -> Result<(), String> {
        let procs = self.dir.join("cgroup.procs");
        write_text(&procs, &pid().to_string())
            .map_err(|e| fail(ctx, "cannot move this process into", &procs, &e))?;
        self.inside = true;
        Ok(())
    }

    /// Back to the cgroup we came from, then remove ours. Done at most once.
    fn go_home(&mut self) -> Result<(), String> {
        let ctx = context(self.asked);
        if self.inside {
            let procs = self.home.join("cgroup.procs");
            write_text(&procs, &pid().to_string())
                .map_err(|e| fail(&ctx, "cannot move this process back into", &procs, &e))?;
            self.inside = false;
        }
        if self.made {
            self.made = false;
            // A thread started while the process was being moved can stay behind (rmdir then
            // says EBUSY): move the process home again before each retry.
            let procs = self.home.join("cgroup.procs");
            let mut tries = 100;
            loop {
                match remove_cgroup(&self.dir) {
                    Err(e) if e.raw_os_error() == Some(libc::EBUSY) && tries > 0 => {
                        tries -= 1;
                        let _ = write_text(&procs, &pid().to_string());
                    }
                    r => {
                        r.map_err(|e| fail(&ctx, "cannot remove", &self.dir, &e))?;
                        break;
                    }
                }
            }
        }
        Ok(())
    }
}

impl Drop for MemoryCgroup {
    fn drop(&mut self) {
        if let Err(e) = self.go_home() {
            eprintln!("iogauge: {e}");
        }
    }
}

/// Where the new cgroup goes, and where the process goes back to.
#[derive(Debug, PartialEq, Eq)]
struct Placement {
    parent: PathBuf,
    home: PathBuf,
}

/// The new cgroup's placement, from the current cgroup's path (as /proc/self/cgroup names it).
///
/// v1: a child of the current cgroup. v2 forbids processes in a cgroup whose children have
/// controllers ("no internal processes"), except in the root: so a child of the root, or else
/// a sibling of the current cgroup, whose parent already gives the current one the memory
/// controller.
fn placement(version: CgroupVersion, mount: &Path, current: &str) -> Placement {
    let home = under(mount, current);
    let parent = match version {
        CgroupVersion::V1 => home.clone(),
        CgroupVersion::V2 => match current.trim_end_matches('/').rsplit_once('/') {
            Some((up, _)) => under(mount, up),
            None => mount.to_path_buf(),
        },
    };
    Placement { parent, home }
}

/// `path` (absolute within the hierarchy) below the mount point; joining "/x" would replace it.
fn under(mount: &Path, path: &str) -> PathBuf {
    let mut p = mount.to_path_buf();
    p.extend(
        Path::new(path)
            .components()
            .filter(|c| matches!(c, Component::Normal(_))),
    );
    p
}

/// The hierarchy with the memory controller: cgroup v2 where its root offers "memory" (a
/// hybrid system mounts a v2 hierarchy without it), else v1's memory hierarchy.
fn detect(ctx: &str) -> Result<(CgroupVersion, PathBuf), String> {
    let mounts = std::fs::read_to_string("/proc/self/mounts")
        .map_err(|e| fail(ctx, "cannot read", Path::new("/proc/self/mounts"), &e))?;
    find_hierarchy(&mounts, |m| {
        std::fs::read_to_string(m.join("cgroup.controllers")).ok()
    })
    .ok_or_else(|| {
        format!(
            "{ctx} needs a memory cgroup: neither cgroup v2 with the memory controller nor \
             cgroup v1's memory controller is mounted"
        )
    })
}

/// From the mount table: the version and mount point of the memory controller's hierarchy.
/// `controllers` reads a cgroup2 mount's cgroup.controllers.
fn find_hierarchy(
    mounts: &str,
    controllers: impl Fn(&Path) -> Option<String>,
) -> Option<(CgroupVersion, PathBuf)> {
    let entries: Vec<(&str, PathBuf, &str)> = mounts
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (f.len() >= 4).then(|| (f[2], PathBuf::from(unescape(f[1])), f[3]))
        })
        .collect();
    let v2 = entries.iter().find(|(fs, mount, _)| {
        *fs == "cgroup2"
            && controllers(mount).is_some_and(|c| c.split_whitespace().any(|x| x == "memory"))
    });
    if let Some((_, mount, _)) = v2 {
        return Some((CgroupVersion::V2, mount.clone()));
    }
    entries
        .into_iter()
        .find(|(fs, _, opts)| *fs == "cgroup" && opts.split(',').any(|o| o == "memory"))
        .map(|(_, mount, _)| (CgroupVersion::V1, mount))
}

/// The mount table writes space, tab, newline and backslash as octal escapes (`\040`).
fn unescape(field: &str) -> String {
    let b = field.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let octal = b
            .get(i + 1..i + 4)
            .filter(|d| d.iter().all(|c| (b'0'..=b'7').contains(c)));
        match octal {
            Some(d) if b[i] == b'\\' => {
                out.push(d.iter().fold(0u8, |v, c| v.wrapping_mul(8) + (c - b'0')));
                i += 4;
            }
            _ => {
                out.push(b[i]);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// From /proc/self/cgroup: this process's cgroup path in the memory hierarchy (v1's
/// `N:memory:/path` line, or v2's `0::/path`).
fn current_cgroup(proc_cgroup: &str, version: CgroupVersion) -> Option<&str> {
    proc_cgroup.lines().find_map(|l| {
        let mut f = l.splitn(3, ':');
        let (id, names, path) = (f.next()?, f.next()?, f.next()?);
        let ours = match version {
            CgroupVersion::V1 => names.split(',').any(|n| n == "memory"),
            CgroupVersion::V2 => id == "0" && names.is_empty(),
        };
        ours.then_some(path)
    })
}

fn place_for(ctx: &str, version: CgroupVersion, mount: &Path) -> Result<Placement, String> {
    let file = Path::new("/proc/self/cgroup");
    let text = std::fs::read_to_string(file).map_err(|e| fail(ctx, "cannot read", file, &e))?;
    let current = current_cgroup(&text, version)
        .ok_or_else(|| format!("{ctx}: /proc/self/cgroup names no memory cgroup for iogauge"))?;
    Ok(placement(version, mount, current))
}

/// v2: the memory controller must be on in the parent's subtree_control for the child to
/// have memory.max. Left on afterwards: other cgroups there may rely on it by then.
fn enable_memory(ctx: &str, parent: &Path) -> Result<(), String> {
    let file = parent.join("cgroup.subtree_control");
    let now = std::fs::read_to_string(&file).map_err(|e| fail(ctx, "cannot read", &file, &e))?;
    if now.split_whitespace().any(|c| c == "memory") {
        return Ok(());
    }
    write_text(&file, "+memory")
        .map_err(|e| fail(ctx, "cannot enable the memory controller in", &file, &e))
}

/// `iogauge-<pid>`, or with `-1`, `-2`... while the name is taken.
fn make_dir(ctx: &str, parent: &Path) -> Result<PathBuf, String> {
    let pid = pid();
    let mut last = None;
    for n in 0..100 {
        let dir = parent.join(child_name(pid, n));
        match std::fs::create_dir(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(fail(ctx, "cannot create a cgroup in", parent, &e)),
        }
    }
    let e = last.unwrap_or_else(|| io::Error::from_raw_os_error(libc::EEXIST));
    Err(fail(ctx, "cannot create a cgroup in", parent, &e))
}

fn child_name(pid: u32, attempt: u32) -> String {
    match attempt {
        0 => format!("{PREFIX}{pid}"),
        n => format!("{PREFIX}{pid}-{n}"),
    }
}

/// The pid in a name `child_name` made; None for any other name.
fn leftover_pid(name: &str) -> Option<u32> {
    let rest = name.strip_prefix(PREFIX)?;
    let (pid, attempt) = rest.split_once('-').unwrap_or((rest, "0"));
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|c| c.is_ascii_digit());
    if !digits(pid) || !digits(attempt) {
        return None;
    }
    pid.parse().ok()
}

/// Cgroups left by an iogauge that was killed inside one: removed when their process is gone
/// and they hold no tasks. Errors are ignored; a leftover costs only a directory.
fn remove_leftovers(parent: &Path) {
    let Ok(entries) = std::fs::read_dir(parent) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(leftover_pid) else {
            continue;
        };
        let dir = entry.path();
        let empty =
            std::fs::read_to_string(dir.join("cgroup.procs")).is_ok_and(|t| t.trim().is_empty());
        if empty && !Path::new(&format!("/proc/{pid}")).exists() {
            let _ = std::fs::remove_dir(&dir);
        }
    }
}

/// rmdir, retried over about 100 ms while the kernel still counts the tasks just moved out.
pub(super) fn remove_cgroup(dir: &Path) -> io::Result<()> {
    let mut tries = 10;
    loop {
        match std::fs::remove_dir(dir) {
            Err(e) if e.raw_os_error() == Some(libc::EBUSY) && tries > 0 => {
                tries -= 1;
                std::thread::sleep(Duration::from_millis(10));
            }
            r => return r,
        }
    }
}

/// One write(2): cgroup files take a value per write.
pub(super) fn write_text(path: &Path, text: &str) -> io::Result<()> {
    std::fs::OpenOptions::new()
        .write(true)
        .open(path)?
        .write_all(text.as_bytes())
}

/// A number from a cgroup file; v2's "max" is no limit.
fn read_u64(path: &Path) -> Option<u64> {
    let text = std::fs::read_to_string(path).ok()?;
    match text.trim() {
        "max" => Some(u64::MAX),
        t => t.parse().ok(),
    }
}

fn context(bytes: u64) -> String {
    format!("--memory-limit {}", format_size(bytes))
}

/// "ctx: cannot create a cgroup in '/x': Permission denied (run as root)"
pub(super) fn fail(ctx: &str, what: &str, path: &Path, e: &io::Error) -> String {
    let text = e.to_string();
    let text = text.split(" (os error ").next().unwrap_or(&text);
    let denied = matches!(e.raw_os_error(), Some(libc::EACCES) | Some(libc::EPERM));
    // SAFETY: geteuid has no preconditions.
    let hint = if denied && unsafe { libc::geteuid() } != 0 {
        " (run as root)"
    } else {
        ""
    };
    format!("{ctx}: {what} '{}': {text}{hint}", path.display())
}

fn pid() -> u32 {
    // SAFETY: getpid has no preconditions.
    unsafe { libc::getpid() as u32 }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    const HYBRID: &str = "\
tmpfs /sys/fs/cgroup tmpfs rw,relatime,mode=755 0 0
cgroup /sys/fs/cgroup/cpu cgroup rw,relatime,cpu 0 0
cgroup /sys/fs/cgroup/memory cgroup rw,relatime,memory 0 0
cgroup /sys/fs/cgroup/systemd cgroup rw,relatime,name=systemd 0 0
cgroup2 /sys/fs/cgroup/unified cgroup2 rw,relatime 0 0
";

    const PURE_V2: &str = "\
proc /proc proc rw,nosuid,nodev,noexec,relatime 0 0
cgroup2 /sys/fs/cgroup cgroup2 rw,nosuid,nodev,noexec,relatime,nsdelegate 0 0
";

    fn offers(c: &'static str) -> impl Fn(&Path) -> Option<String> {
        move |_| Some(c.to_string())
    }

    #[test]
    fn a_hybrid_system_uses_v1_when_v2_has_no_memory_controller() {
        let found = find_hierarchy(HYBRID, offers("hugetlb\n"));
        let want = (CgroupVersion::V1, PathBuf::from("/sys/fs/cgroup/memory"));
        assert_eq!(found, Some(want));
    }

    #[test]
    fn v2_with_the_memory_controller_wins() {
        let found = find_hierarchy(HYBRID, offers("cpu io memory pids\n"));
        let want = (CgroupVersion::V2, PathBuf::from("/sys/fs/cgroup/unified"));
        assert_eq!(found, Some(want));
        let found = find_hierarchy(PURE_V2, offers("cpuset cpu io memory\n"));
        assert_eq!(
            found,
            Some((CgroupVersion::V2, PathBuf::from("/sys/fs/cgroup")))
        );
    }

    #[test]
    fn no_memory_controller_anywhere_is_none() {
        assert_eq!(find_hierarchy(PURE_V2, offers("cpu io pids")), None);
        assert_eq!(find_hierarchy(PURE_V2, |_| None), None);
        let v1_without = "cgroup /sys/fs/cgroup/cpu cgroup rw,cpu,cpuacct 0 0\n";
        assert_eq!(find_hierarchy(v1_without, |_| None), None);
        // "memory" must be an option of its own, not part of another.
        let lookalike = "cgroup /x cgroup rw,name=memory2 0 0\n";
        assert_eq!(find_hierarchy(lookalike, |_| None), None);
    }

    #[test]
    fn escaped_mount_points_are_decoded() {
        let mounts = "cgroup /mnt/my\\040cgroups cgroup rw,memory 0 0\n";
        let found = find_hierarchy(mounts, |_| None).map(|(_, m)| m);
        assert_eq!(found, Some(PathBuf::from("/mnt/my cgroups")));
        assert_eq!(unescape("a\\134b\\011"), "a\\b\t");
        assert_eq!(unescape("trailing\\04"), "trailing\\04");
    }

    const PROC_V1: &str = "\
9:name=systemd:/
4:memory:/process_api/5695ed86
3:cpu,cpuacct:/
0::/
";

    #[test]
    fn the_current_cgroup_is_read_per_version() {
        assert_eq!(
            current_cgroup(PROC_V1, CgroupVersion::V1),
            Some("/process_api/5695ed86")
        );
        assert_eq!(current_cgroup(PROC_V1, CgroupVersion::V2), Some("/"));
        let v2 = "0::/user.slice/user-1000.slice/session-2.scope\n";
        let want = Some("/user.slice/user-1000.slice/session-2.scope");
        assert_eq!(current_cgroup(v2, CgroupVersion::V2), want);
        assert_eq!(current_cgroup(v2, CgroupVersion::V1), None);
        let shared = "5:cpu,memory:/a:b\n";
        assert_eq!(current_cgroup(shared, CgroupVersion::V1), Some("/a:b"));
    }

    #[test]
    fn v1_makes_a_child_of_the_current_cgroup() {
        let m = Path::new("/sys/fs/cgroup/memory");
        let p = placement(CgroupVersion::V1, m, "/process_api/abc");
        let here = PathBuf::from("/sys/fs/cgroup/memory/process_api/abc");
        assert_eq!(
            p,
            Placement {
                parent: here.clone(),
                home: here
            }
        );
        let root = placement(CgroupVersion::V1, m, "/");
        assert_eq!(
            root,
            Placement {
                parent: m.into(),
                home: m.into()
            }
        );
    }

    #[test]
    fn v2_makes_a_child_of_the_root_or_a_sibling_elsewhere() {
        let m = Path::new("/sys/fs/cgroup");
        let root = placement(CgroupVersion::V2, m, "/");
        assert_eq!(
            root,
            Placement {
                parent: m.into(),
                home: m.into()
            }
        );
        let top = placement(CgroupVersion::V2, m, "/init.scope");
        let want = Placement {
            parent: m.into(),
            home: m.join("init.scope"),
        };
        assert_eq!(top, want);
        let deep = placement(CgroupVersion::V2, m, "/user.slice/session-2.scope");
        let want = Placement {
            parent: m.join("user.slice"),
            home: m.join("user.slice/session-2.scope"),
        };
        assert_eq!(deep, want);
    }

    #[test]
    fn only_names_we_make_are_leftovers() {
        assert_eq!(child_name(42, 0), "iogauge-42");
        assert_eq!(child_name(42, 3), "iogauge-42-3");
        assert_eq!(leftover_pid("iogauge-42"), Some(42));
        assert_eq!(leftover_pid("iogauge-42-3"), Some(42));
        for other in [
            "iogauge-",
            "iogauge-x",
            "iogauge-42-",
            "iogauge-4a",
            "user.slice",
            "42",
        ] {
            assert_eq!(leftover_pid(other), None, "{other}");
        }
    }

    #[test]
    fn a_taken_name_gets_a_number() {
        let parent = tempfile::tempdir().unwrap();
        let first = make_dir("", parent.path()).unwrap();
        let second = make_dir("", parent.path()).unwrap();
        assert_eq!(first, parent.path().join(child_name(pid(), 0)));
        assert_eq!(second, parent.path().join(child_name(pid(), 1)));
    }

    #[test]
    fn limits_under_the_minimum_are_refused_first() {
        let e = MemoryCgroup::enter(8 << 20).err().unwrap();
        assert_eq!(
            e,
            "--memory-limit 8MiB is too small: the minimum is 16MiB (iogauge's own memory \
             is charged to the cgroup too)"
        );
    }

    #[test]
    fn errors_name_the_file_and_the_errno_without_its_number() {
        let e = io::Error::from_raw_os_error(libc::ENOENT);
        let msg = fail(
            "--memory-limit 64MiB",
            "cannot write",
            Path::new("/x/memory.max"),
            &e,
        );
        assert_eq!(
            msg,
            "--memory-limit 64MiB: cannot write '/x/memory.max': No such file or directory"
        );
    }

    /// Why a real cgroup cannot be entered here, if it cannot.
    fn cannot_enter() -> Option<String> {
        // SAFETY: geteuid has no preconditions.
        if unsafe { libc::geteuid() } != 0 {
            return Some("not root".into());
        }
        if let Err(e) = detect("--memory-limit") {
            return Some(e);
        }
        // tmpfs pages cannot be reclaimed without swap: 128 MiB there would OOM-kill the test.
        let mut st: libc::statfs = unsafe { std::mem::zeroed() };
        let dir = std::ffi::CString::new(std::env::temp_dir().as_os_str().as_encoded_bytes());
        // SAFETY: statfs fills a struct we own from a NUL-terminated path.
        let ok = dir.is_ok_and(|d| unsafe { libc::statfs(d.as_ptr(), &mut st) } == 0);
        const TMPFS: u32 = 0x0102_1994;
        const RAMFS: u32 = 0x8584_58f6;
        if !ok || matches!(st.f_type as u32, TMPFS | RAMFS) {
            return Some(
                "the temporary folder is on tmpfs or ramfs (or cannot be examined)".into(),
            );
        }
        None
    }

    fn proc_self_cgroup() -> String {
        std::fs::read_to_string("/proc/self/cgroup").unwrap()
    }

    /// A 128 MiB file on disk and out of the page cache, so reading it charges the cgroup.
    fn cold_file(dir: &Path) -> PathBuf {
        let path = dir.join("data");
        let mut f = std::fs::File::create(&path).unwrap();
        let chunk = vec![0x5au8; 1 << 20];
        for _ in 0..128 {
            f.write_all(&chunk).unwrap();
        }
        f.sync_all().unwrap();
        crate::os::cache::drop_file(&f).unwrap();
        path
    }

    /// Moves the whole test process (every test thread) for about a second.
    #[test]
    fn a_64_mib_cgroup_holds_the_page_cache_under_its_limit() {
        if let Some(why) = cannot_enter() {
            eprintln!("skipped: {why}");
            return;
        }
        let tmp = tempfile::Builder::new()
            .prefix("iogauge-memcg-")
            .tempdir_in(std::env::temp_dir())
            .unwrap();
        let data = cold_file(tmp.path());
        let before = proc_self_cgroup();

        let cg = MemoryCgroup::enter(64 << 20).unwrap();
        let dir = cg.path().to_path_buf();
        let (version, mount) = detect("").unwrap();
        let now = proc_self_cgroup();
        let path = current_cgroup(&now, version).unwrap();
        assert_eq!(under(&mount, path), dir);
        assert_eq!(cg.limit(), 64 << 20);

        let mut read = 0u64;
        let mut buf = vec![0u8; 1 << 20];
        let mut f = std::fs::File::open(&data).unwrap();
        loop {
            match f.read(&mut buf).unwrap() {
                0 => break,
                n => read += n as u64,
            }
        }
        let usage_file = match version {
            CgroupVersion::V1 => "memory.usage_in_bytes",
            CgroupVersion::V2 => "memory.current",
        };
        let usage = read_u64(&dir.join(usage_file)).unwrap();
        let peak = cg.peak();
        cg.leave().unwrap();

        assert_eq!(read, 128 << 20);
        assert!(usage <= 64 << 20, "usage {usage}");
        if let Some(peak) = peak {
            assert!(peak <= 64 << 20, "peak {peak}");
            // The read was charged here: the cgroup filled up to near its limit.
            assert!(peak >= 32 << 20, "peak {peak}");
        }
        assert!(!dir.exists());
        assert_eq!(proc_self_cgroup(), before);
    }
}
