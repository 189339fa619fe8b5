//! What the page cache does with a job's I/O and when its writes are made stable: `direct`,
//! `buffered`, `sync`; `fsync`, `fdatasync`, `end_fsync` and `fsync_on_close`.

use crate::error::Result;
use crate::spec::fio::options::Set;
use crate::spec::{CacheMode, EngineKind, FlushEvery};

/// fio's direct (or buffered=0) and sync: O_DIRECT, O_DSYNC, both or neither.
pub(super) fn read_cache(
    set: &Set,
    engine: EngineKind,
    notes: &mut Vec<String>,
) -> Result<CacheMode> {
    let direct = set.flag("direct")?.unwrap_or(false) || set.flag("buffered")? == Some(false);
    let cache = match (direct, set.text("sync")) {
        (d, None | Some("0") | Some("none")) => {
            if d {
                CacheMode::Direct
            } else {
                CacheMode::Buffered
            }
        }
        (d, Some(s @ ("1" | "sync" | "dsync"))) => {
            if s != "dsync" {
                notes.push("sync=1 (O_SYNC) runs as O_DSYNC: the data of each write is stable when it completes; file metadata such as mtime is not forced with it".into());
            }
            if d {
                CacheMode::DirectWriteThrough
            } else {
                CacheMode::WriteThrough
            }
        }
        (_, Some(s)) => return Err(set.err("sync", format!("'{s}' is not 0, 1, sync or dsync"))),
    };
    if engine.is_file_op() && cache != CacheMode::Buffered {
        notes.push(format!(
            "direct= and sync= do not apply to ioengine={}: it opens no file for I/O",
            engine.name()
        ));
        return Ok(CacheMode::Buffered);
    }
    Ok(cache)
}

/// fio's `fsync=N` / `fdatasync=N`: a flush every N writes.
pub(super) fn read_flush(set: &Set, notes: &mut Vec<String>) -> Result<Option<FlushEvery>> {
    let fsync = set.int("fsync")?.filter(|&n| n > 0);
    let fdatasync = set.int("fdatasync")?.filter(|&n| n > 0);
    let pick = match (fsync, fdatasync) {
        (Some(n), Some(_)) => {
            notes.push("fsync and fdatasync both given: iogauge issues the fsyncs only".into());
            Some((n, false))
        }
        (Some(n), None) => Some((n, false)),
        (None, Some(n)) => Some((n, true)),
        (None, None) => None,
    };
    Ok(pick.map(|(n, data_only)| FlushEvery {
        writes: n.min(u32::MAX as u64) as u32,
        data_only,
    }))
}

/// fio's end_fsync and fsync_on_close: one fsync of each file as the job ends.
pub(super) fn read_end_fsync(set: &Set) -> Result<bool> {
    Ok(set.flag("end_fsync")?.unwrap_or(false) || set.flag("fsync_on_close")?.unwrap_or(false))
}
