//! What a killed `create` leaves: a new database is built as `.NAME.new-PID-NANOS` beside
//! `NAME` (with SQLite's `-journal`, `-wal` and `-shm` beside it) and linked into place, so
//! a process killed meanwhile (kill -9, a power cut) leaves those files. They are cleared the
//! next time the store is opened: only names of exactly that pattern, regular files owned by
//! this user, whose PID is no live process. A live PID may be another iogauge creating the
//! same database at this moment; anything else is never iogauge's to remove.

use std::ffi::OsStr;
use std::path::Path;

/// SQLite's companions of a database file, and the file itself ("").
const SUFFIXES: [&str; 4] = ["", "-journal", "-wal", "-shm"];

/// The name a new database for `name` is built under by process `pid`.
pub fn temp_name(name: &OsStr, pid: u32, nanos: u64) -> std::ffi::OsString {
    let mut t = std::ffi::OsString::from(".");
    t.push(name);
    t.push(format!(".new-{pid}-{nanos}"));
    t
}

/// The PID in `file`, where it is a temporary of database `name` (see [`temp_name`]) or one
/// of its companions; `None` for any other name.
pub fn pid_of(file: &[u8], name: &[u8]) -> Option<u32> {
    let rest = file.strip_prefix(b".")?.strip_prefix(name)?;
    let rest = rest.strip_prefix(b".new-")?;
    let rest = std::str::from_utf8(rest).ok()?;
    let (pid, rest) = rest.split_once('-')?;
    let digits_end = rest
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len());
    let (nanos, suffix) = rest.split_at(digits_end);
    let all_digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !all_digits(pid) || !all_digits(nanos) || !SUFFIXES.contains(&suffix) {
        return None;
    }
    pid.parse().ok().filter(|&p| p > 0)
}

/// Remove the leftovers of killed creates of database `db`; how many files went. Quiet: a
/// folder that cannot be read or a file that cannot be removed is left as it is.
pub fn clear(db: &Path) -> usize {
    let (Some(name), dir) = (db.file_name(), db.parent()) else {
        return 0;
    };
    let dir = match dir {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    let mut removed = 0;
    for e in entries.flatten() {
        let file = e.file_name();
        let Some(pid) = pid_of(file.as_encoded_bytes(), name.as_encoded_bytes()) else {
            continue;
        };
        let path = e.path();
        let ours = std::fs::symlink_metadata(&path)
            .is_ok_and(|m| m.is_file() && crate::os::process::is_mine(&m));
        if ours && !crate::os::process::alive(pid) && std::fs::remove_file(&path).is_ok() {
            removed += 1;
        }
    }
    removed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_names_of_the_exact_pattern_are_leftovers() {
        let t = temp_name(OsStr::new("results.db"), 42, 17);
        assert_eq!(t, ".results.db.new-42-17");
        let pid = |f: &str| pid_of(f.as_bytes(), b"results.db");
        assert_eq!(pid(".results.db.new-42-17"), Some(42));
        assert_eq!(pid(".results.db.new-42-17-wal"), Some(42));
        assert_eq!(pid(".results.db.new-42-17-shm"), Some(42));
        assert_eq!(pid(".results.db.new-42-17-journal"), Some(42));
        for other in [
            "results.db",
            ".results.db.new-42-17.bak",
            ".results.db.new-42-17-wal2",
            ".results.db.new-42-",
            ".results.db.new--17",
            ".results.db.new-0-17",
            ".results.db.new-x-17",
            ".other.db.new-42-17",
            ".results.dbx.new-42-17",
            ".results.db.new-99999999999-17",
        ] {
            assert_eq!(pid(other), None, "{other}");
        }
    }
}
