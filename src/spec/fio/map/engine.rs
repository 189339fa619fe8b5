//! How a job's I/O is issued: the engine (`ioengine`, with filestat's `stat_type`), how deep
//! it queues (`iodepth`, `iodepth_batch_submit`) and io_uring's `hipri` and `sqthread_poll`.

use crate::error::Result;
use crate::spec::fio::names;
use crate::spec::fio::options::Set;
use crate::spec::fio::FioJob;
use crate::spec::EngineKind;

pub(super) fn read_engine(set: &Set, notes: &mut Vec<String>) -> Result<EngineKind> {
    let typed = set.text("ioengine").unwrap_or("psync");
    let v = names::engine_alias(typed);
    if v != typed {
        notes.push(format!("ioengine={typed} is fio's old name for libaio"));
    }
    let kind = engine_named(set, v, notes)?;
    // Refused in the words the job used (ioengine=libaio, not the engine it maps onto).
    if let Some(only) = kind.only_on().filter(|_| !kind.is_here()) {
        let here = crate::engine::kind::DEFAULT_ENGINE.fio_name();
        return Err(set.err(
            "ioengine",
            format!(
                "'{typed}' is not loadable here: it runs on {only} only (here: {here} or psync)"
            ),
        ));
    }
    Ok(kind)
}

/// The engines iogauge runs a job of, by fio's names.
const RUNS: &str = "sync, psync, vsync, pvsync, pvsync2, io_uring, libaio, posixaio, windowsaio, mmap, null, filecreate, filestat, filedelete, falloc and ftruncate";

/// A job's engine, checked before its other options, as fio loads the engine first: a job for
/// an engine iogauge does not have is refused for the engine, not for the engine's options
/// (`pool=` of ioengine=rados). `None` when the engine is one iogauge runs.
pub(super) fn unloadable(fj: &FioJob) -> Option<String> {
    let o = fj.options.iter().rev().find(|o| o.key == "ioengine")?;
    let typed = o.value.as_deref().unwrap_or("");
    let v = names::engine_alias(typed);
    if RUNS.split([',', ' ']).any(|e| e == v) {
        return None;
    }
    let what = if v.contains(".so") || v.starts_with("external:") || v.contains('/') {
        "an external engine, a library fio would load; iogauge loads none"
    } else if names::ENGINES.contains(&v) {
        "one of fio's engines iogauge does not have"
    } else {
        "fio has no engine of that name"
    };
    Some(format!(
        "{}: ioengine: engine '{typed}' not loadable: {what} (iogauge runs {RUNS})",
        o.at
    ))
}

fn engine_named(set: &Set, v: &str, notes: &mut Vec<String>) -> Result<EngineKind> {
    Ok(match v {
        "sync" | "psync" | "vsync" | "pvsync" | "pvsync2" => EngineKind::Sync,
        "io_uring" => EngineKind::IoUring,
        // fio's engine on Windows: overlapped I/O on completion ports, as iogauge's iocp.
        "windowsaio" => EngineKind::Iocp,
        "libaio" | "posixaio" => {
            notes.push(format!(
                "ioengine={v} runs on io_uring: the same asynchronous reads and writes, queued the same way"
            ));
            EngineKind::IoUring
        }
        "null" => EngineKind::Null,
        "mmap" => EngineKind::Mmap,
        "filecreate" => EngineKind::FileCreate,
        "filestat" => {
            match set.text("stat_type") {
                None | Some("stat") => {}
                Some(t @ ("lstat" | "statx")) => {
                    return Err(set.err(
                        "stat_type",
                        format!(
                            "'{t}' is not supported yet: iogauge's filestat calls stat() (planned)"
                        ),
                    ))
                }
                Some(t) => {
                    return Err(set.err("stat_type", format!("'{t}' is not stat, lstat or statx")))
                }
            }
            EngineKind::FileStat
        }
        "filedelete" => EngineKind::FileDelete,
        "falloc" => EngineKind::Falloc,
        "ftruncate" => EngineKind::Ftruncate,
        _ => {
            return Err(set.err(
                "ioengine",
                format!("'{v}' is not supported (iogauge runs {RUNS})"),
            ))
        }
    })
}

/// fio's iodepth, within what the engine can queue, iodepth_batch_submit and
/// iodepth_batch_complete_min.
pub(super) fn read_queue(set: &Set, engine: EngineKind) -> Result<(u64, u64, u64)> {
    let queue_depth = set.int("iodepth")?.unwrap_or(1);
    if queue_depth == 0 || queue_depth > 65536 {
        return Err(set.err(
            "iodepth",
            format!("{queue_depth} must be at least 1 and at most 65536"),
        ));
    }
    if let Some(max) = engine.max_queue_depth().filter(|&m| queue_depth > m as u64) {
        // fio 3.33 takes it, then fails the job as it starts ("io_queue_init ... Invalid
        // argument"); iogauge says why before anything runs.
        let typed = set.text("ioengine").unwrap_or("psync");
        let on = if typed == engine.name() {
            String::new()
        } else {
            format!(" (iogauge runs it on {})", engine.name())
        };
        return Err(set.err(
            "iodepth",
            format!(
                "'{}' is more than ioengine={typed} can queue{on}: at most {max} I/Os, the kernel's IORING_MAX_ENTRIES",
                set.text("iodepth").unwrap_or_default()
            ),
        ));
    }
    let submit = set.int("iodepth_batch_submit")?.unwrap_or(1).max(1);
    // 0 is fio's "look without waiting"; iogauge waits for at least one (no busy loop).
    let complete = set.int("iodepth_batch_complete_min")?.unwrap_or(1).max(1);
    Ok((queue_depth, submit, complete))
}

/// io_uring's hipri and sqthread_poll.
pub(super) fn read_engine_flags(set: &Set) -> Result<(bool, bool)> {
    let hipri = set.flag("hipri")?.unwrap_or(false);
    let sqpoll = set.flag("sqthread_poll")?.unwrap_or(false);
    Ok((hipri, sqpoll))
}
