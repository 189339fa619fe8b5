//! Windows has no memory cgroups: `--memory-limit` sets a hard maximum on the system's file
//! cache (SetSystemFileCacheSize with FILE_CACHE_MAX_HARD_ENABLE), every process's, for the
//! run. It needs SeIncreaseQuotaPrivilege (an administrator's), enabled here for the call.
//! The limits it replaces (GetSystemFileCacheSize) are kept in a file before the cap is set
//! and removed once restored, so that a run killed with the cap set is undone by the next
//! iogauge ([`restore_left`]); Ctrl-C ends a sweep normally, and a panic's unwinding drops
//! the cap, both of which restore.

use crate::os::memcg::{CapKind, SavedLimits, MIN_LIMIT};
use crate::units::{format_size, format_size_human};
use std::io;
use std::path::{Path, PathBuf};
use windows_sys::Win32::Foundation::{CloseHandle, FILETIME, HANDLE, STILL_ACTIVE};
use windows_sys::Win32::System::Memory::{
    GetSystemFileCacheSize, SetSystemFileCacheSize, FILE_CACHE_MAX_HARD_DISABLE,
    FILE_CACHE_MAX_HARD_ENABLE, FILE_CACHE_MIN_HARD_DISABLE, FILE_CACHE_MIN_HARD_ENABLE,
};
use windows_sys::Win32::System::Threading::{
    GetExitCodeProcess, GetProcessTimes, OpenProcess, PROCESS_QUERY_LIMITED_INFORMATION,
};

/// The system file cache capped for this run; its previous limits restored on
/// [`MemoryCgroup::leave`] or on drop.
pub struct MemoryCgroup {
    limit: u64,
    saved: SavedLimits,
    file: PathBuf,
    restored: bool,
}

impl MemoryCgroup {
    pub fn enter(bytes: u64) -> Result<MemoryCgroup, String> {
        let ctx = format!("--memory-limit {}", format_size(bytes));
        if bytes < MIN_LIMIT {
            return Err(format!(
                "{ctx} is too small: the minimum is {}",
                format_size(MIN_LIMIT)
            ));
        }
        enable_quota_privilege().map_err(|e| {
            format!(
                "{ctx} caps the system file cache on Windows (SetSystemFileCacheSize), which \
                 needs an administrator's SeIncreaseQuotaPrivilege: {e}; run iogauge as \
                 administrator, or leave --memory-limit out"
            )
        })?;
        let (min, max, flags) =
            get_limits().map_err(|e| format!("{ctx}: cannot read the file cache's limits: {e}"))?;
        let file = SavedLimits::path().map_err(|e| format!("{ctx}: {e}"))?;
        refuse_if_held(&ctx, &file)?;
        let saved = SavedLimits {
            pid: std::process::id(),
            started: process_start(std::process::id()).unwrap_or(0),
            min,
            max,
            flags,
        };
        saved.save(&file).map_err(|e| {
            format!(
                "{ctx}: cannot keep the file cache's limits in '{}' before capping it: {e}",
                file.display()
            )
        })?;
        // Limits so far holding no cap leave min at the system's own (small) value.
        if let Err(e) = set_limits(min.min(bytes / 2), bytes, FILE_CACHE_MAX_HARD_ENABLE) {
            let _ = std::fs::remove_file(&file);
            return Err(format!("{ctx}: cannot cap the system file cache: {e}"));
        }
        let limit = get_limits().map_or(bytes, |(_, max, _)| max);
        Ok(MemoryCgroup {
            limit,
            saved,
            file,
            restored: false,
        })
    }

    /// Always a cap on the file cache here.
    pub fn kind(&self) -> CapKind {
        CapKind::FileCache
    }

    /// The limit as the system reports it back.
    pub fn limit(&self) -> u64 {
        self.limit
    }

    /// What was capped, and what is restored after.
    pub fn place(&self) -> String {
        format!(
            "SetSystemFileCacheSize, a hard maximum for every process; restored after to \
             min {}, max {}{}",
            format_size_human(self.saved.min),
            format_size_human(self.saved.max),
            hard_words(self.saved.flags)
        )
    }

    /// The system does not say how much of the file cache was used at most.
    pub fn peak(&self) -> Option<u64> {
        None
    }

    /// Restore the limits kept, and remove their file. Also done on drop.
    pub fn leave(mut self) -> Result<(), String> {
        self.restore()
    }

    fn restore(&mut self) -> Result<(), String> {
        self.restored = true;
        restore_saved(&self.saved, &self.file)
    }
}

impl Drop for MemoryCgroup {
    fn drop(&mut self) {
        if !self.restored {
            if let Err(e) = self.restore() {
                eprintln!("iogauge: {e}");
            }
        }
    }
}

/// Restore `saved` and remove `file`; where that fails, the file stays for the next run.
fn restore_saved(saved: &SavedLimits, file: &Path) -> Result<(), String> {
    let _ = enable_quota_privilege();
    set_limits(saved.min, saved.max, restore_flags(saved.flags)).map_err(|e| {
        format!(
            "cannot restore the system file cache's limits (min {}, max {}): {e}; they are \
             kept in '{}', and the next iogauge run as administrator restores them",
            saved.min,
            saved.max,
            file.display()
        )
    })?;
    std::fs::remove_file(file).map_err(|e| {
        format!(
            "restored the system file cache's limits, but cannot remove '{}': {e}",
            file.display()
        )
    })
}

/// A cap already held by a running iogauge, or left by one that died and could not be
/// undone: not capped again over it (its saved limits are the ones to restore).
fn refuse_if_held(ctx: &str, file: &Path) -> Result<(), String> {
    match SavedLimits::load(file) {
        Ok(None) => Ok(()),
        Ok(Some(s)) if s.is_stale(alive) => Err(format!(
            "{ctx}: the file cache's limits left by iogauge (pid {}) in '{}' are not yet \
             restored; run iogauge again as administrator to restore them",
            s.pid,
            file.display()
        )),
        Ok(Some(s)) => Err(format!(
            "{ctx}: another iogauge (pid {}) has the system file cache capped; one cap at a time",
            s.pid
        )),
        Err(e) => Err(format!("{ctx}: '{}': {e}", file.display())),
    }
}

/// [`crate::os::memcg::restore_left_cap`]: the limits a dead run left, restored.
pub fn restore_left() -> Option<String> {
    let file = SavedLimits::path().ok()?;
    let saved = match SavedLimits::load(&file) {
        Ok(Some(s)) => s,
        Ok(None) => return None,
        Err(e) => return Some(format!("warning: '{}': {e}", file.display())),
    };
    if !saved.is_stale(alive) {
        return None;
    }
    Some(match restore_saved(&saved, &file) {
        Ok(()) => format!(
            "restored the system file cache's limits (min {}, max {}{}) that a run capped \
             with --memory-limit (pid {}) left when it ended",
            format_size_human(saved.min),
            format_size_human(saved.max),
            hard_words(saved.flags),
            saved.pid
        ),
        Err(e) => format!(
            "warning: a run (pid {}) left a --memory-limit cap: {e}",
            saved.pid
        ),
    })
}

/// The flags that set each hard limit back as it was (the Get flags say which were on).
fn restore_flags(flags: u32) -> u32 {
    let max = if flags & FILE_CACHE_MAX_HARD_ENABLE != 0 {
        FILE_CACHE_MAX_HARD_ENABLE
    } else {
        FILE_CACHE_MAX_HARD_DISABLE
    };
    let min = if flags & FILE_CACHE_MIN_HARD_ENABLE != 0 {
        FILE_CACHE_MIN_HARD_ENABLE
    } else {
        FILE_CACHE_MIN_HARD_DISABLE
    };
    max | min
}

fn hard_words(flags: u32) -> &'static str {
    match (
        flags & FILE_CACHE_MIN_HARD_ENABLE != 0,
        flags & FILE_CACHE_MAX_HARD_ENABLE != 0,
    ) {
        (false, false) => ", neither hard",
        (true, false) => ", min hard",
        (false, true) => ", max hard",
        (true, true) => ", both hard",
    }
}

fn get_limits() -> io::Result<(u64, u64, u32)> {
    let (mut min, mut max, mut flags) = (0usize, 0usize, 0u32);
    // SAFETY: three out-parameters of the right types.
    if unsafe { GetSystemFileCacheSize(&mut min, &mut max, &mut flags) } == 0 {
        return Err(io::Error::last_os_error());
    }
    Ok((min as u64, max as u64, flags))
}

fn set_limits(min: u64, max: u64, flags: u32) -> io::Result<()> {
    // SAFETY: plain values.
    if unsafe { SetSystemFileCacheSize(min as usize, max as usize, flags) } == 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Enable SeIncreaseQuotaPrivilege in this process's token: an error where the token lacks
/// it.
fn enable_quota_privilege() -> io::Result<()> {
    super::privilege::enable("SeIncreaseQuotaPrivilege")
}

/// A handle closed when dropped.
struct Owned(HANDLE);

impl Drop for Owned {
    fn drop(&mut self) {
        // SAFETY: a handle this module opened, closed once.
        unsafe { CloseHandle(self.0) };
    }
}

fn open_process(pid: u32) -> Option<Owned> {
    // SAFETY: a plain call; a null handle where there is no such process (or no access).
    let h = unsafe { OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, 0, pid) };
    (!h.is_null()).then_some(Owned(h))
}

/// When process `pid` started (a FILETIME's 100 ns ticks), where it runs and may be asked.
fn process_start(pid: u32) -> Option<u64> {
    let p = open_process(pid)?;
    let zero = FILETIME {
        dwLowDateTime: 0,
        dwHighDateTime: 0,
    };
    let (mut created, mut exited, mut kernel, mut user) = (zero, zero, zero, zero);
    // SAFETY: an open process handle and four out-parameters.
    let ok = unsafe { GetProcessTimes(p.0, &mut created, &mut exited, &mut kernel, &mut user) };
    (ok != 0).then_some((created.dwHighDateTime as u64) << 32 | created.dwLowDateTime as u64)
}

/// True where process `pid` runs and started at `started` (0: its start was not known).
fn alive(pid: u32, started: u64) -> bool {
    let Some(p) = open_process(pid) else {
        return false;
    };
    let mut code = 0u32;
    // SAFETY: an open process handle and an out-parameter.
    let running = unsafe { GetExitCodeProcess(p.0, &mut code) } != 0 && code == STILL_ACTIVE as u32;
    running && (started == 0 || process_start(pid) == Some(started))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_is_alive_and_a_later_one_of_its_id_is_not() {
        let me = std::process::id();
        let started = process_start(me).expect("this process's start");
        assert!(alive(me, started));
        assert!(!alive(me, started + 1));
        assert!(!alive(u32::MAX - 3, 0));
    }

    #[test]
    fn each_hard_limit_is_set_back_as_it_was() {
        assert_eq!(
            restore_flags(0),
            FILE_CACHE_MAX_HARD_DISABLE | FILE_CACHE_MIN_HARD_DISABLE
        );
        assert_eq!(
            restore_flags(FILE_CACHE_MAX_HARD_ENABLE),
            FILE_CACHE_MAX_HARD_ENABLE | FILE_CACHE_MIN_HARD_DISABLE
        );
    }
}
