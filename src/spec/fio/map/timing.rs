//! When a job starts and stops: `startdelay`; `runtime` and `time_based`; else the bytes it
//! moves (`size`, `io_size`, `number_ios`, `loops`); `create_only`, which runs no I/O at all.

use super::files::{clone_region, Files};
use super::shape::{mean_size, Shape};
use super::Clones;
use super::Job;
use crate::error::Result;
use crate::spec::fio::options::Set;
use crate::spec::fio::plan::{Exit, ExitWhat};
use crate::spec::fio::{parse_size, parse_time_ns};
use crate::spec::flat::{parse_criterion, FlatRule, LimitUnits, FIO_DEFAULT};
use crate::spec::{EngineKind, Stop, Trims};

/// fio's steady-state options: `steadystate` (criterion and limit, iops_slope:0.01% unless
/// given), `ss_dur` (the window; 0, its default, turns the rule off), `ss_ramp` and
/// `ss_interval` (1 s unless given, at least 1 s as fio requires).
pub(super) fn read_flat(
    set: &Set,
    clones: u32,
    notes: &mut Vec<String>,
) -> Result<Option<FlatRule>> {
    let window_ns = set.seconds("steadystate_duration")?.unwrap_or(0);
    if window_ns == 0 {
        if set.get("steadystate").is_some() {
            notes.push("steadystate= does nothing without ss_dur= (its default of 0 turns fio's steady-state detection off)".into());
        }
        return Ok(None);
    }
    let kb_base = set.kb_base;
    let size = move |s: &str| parse_size(s, kb_base);
    let time_ns = |s: &str| parse_time_ns(s, 1_000);
    let units = LimitUnits {
        size: &size,
        time_ns: &time_ns,
    };
    let text = set.text("steadystate").unwrap_or(FIO_DEFAULT);
    let (metric, test, limit) =
        parse_criterion(text, &units).map_err(|e| set.err("steadystate", e))?;
    let check_ns = set
        .seconds("steadystate_check_interval")?
        .unwrap_or(1_000_000_000);
    if check_ns < 1_000_000_000 {
        return Err(set.err(
            "steadystate_check_interval",
            "must be at least 1s, as in fio",
        ));
    }
    if clones > 1 && !set.flag("group_reporting")?.unwrap_or(false) {
        notes.push(format!("steadystate: fio without group_reporting judges each of the {clones} clones alone and stops each on its own; iogauge judges them together and stops them together"));
    }
    Ok(Some(FlatRule {
        metric,
        test,
        limit,
        window_ns,
        ramp_ns: set.seconds("steadystate_ramp_time")?.unwrap_or(0),
        check_ns,
    }))
}

pub(super) fn read_stop(
    j: &Job,
    engine: EngineKind,
    shape: &Shape,
    files: &Files,
    notes: &mut Vec<String>,
) -> Result<Stop> {
    let set = &j.set;
    let time_based = set.flag("time_based")?.unwrap_or(false);
    let runtime = set.seconds("runtime")?.filter(|&ns| ns > 0);
    let stop = if engine.is_file_op() {
        Stop::TotalBytes {
            bytes: file_op_bytes(set, engine, time_based, shape, files, notes)?,
            max_ns: runtime,
        }
    } else if time_based {
        let Some(ns) = runtime else {
            return Err(set.err("time_based", "needs runtime= (fio would run until stopped)"));
        };
        Stop::Duration { ns }
    } else {
        // trimwrite: each byte is trimmed, then written, so the job moves its bytes twice
        // (fio's backend.c doubles them too).
        let twice = if shape.trim == Trims::ThenWrite { 2 } else { 1 };
        let bytes = bytes_moved(j, shape, files, notes)?;
        Stop::TotalBytes {
            bytes: set.fits("size", bytes.checked_mul(twice))?,
            max_ns: runtime,
        }
    };
    if shape.random && matches!(stop, Stop::TotalBytes { .. }) {
        notes.push("fio's random map visits each block once per pass; iogauge draws random offsets independently (as fio's norandommap), so some blocks are visited twice and some not at all".into());
    }
    Ok(stop)
}

/// A file-operation engine does one operation per file: what would make a file see a second
/// is refused. The bytes are a block per file.
fn file_op_bytes(
    set: &Set,
    engine: EngineKind,
    time_based: bool,
    shape: &Shape,
    files: &Files,
    notes: &mut Vec<String>,
) -> Result<u64> {
    let once = format!(
        "ioengine={} does one operation per file (a second create, stat or delete of it would be another test)",
        engine.name()
    );
    if time_based {
        return Err(set.err("time_based", format!("{once}: runtime= may only limit it")));
    }
    for key in ["io_size", "number_ios"] {
        if set.get(key).is_some() {
            return Err(set.err(key, &once));
        }
    }
    if set.int("loops")?.unwrap_or(1) > 1 {
        return Err(set.err("loops", &once));
    }
    let clones = files.clones;
    if files.layout == Clones::Threads && clones > 1 {
        return Err(set.err(
            "numjobs",
            format!("{once}: {clones} clones would share the files filename= names; leave filename= out so that each clone gets its own"),
        ));
    }
    if files.offset > 0 {
        return Err(set.err("offset", &once));
    }
    let block_size = shape.block_size;
    if files
        .filesize
        .or(files.size)
        .is_some_and(|f| f > block_size)
        && !engine.caps().creates_files
    {
        notes.push(format!("ioengine={}: fio counts filesize/bs I/Os per file, one of them timed; iogauge counts the one operation per file", engine.name()));
    }
    set.fits("bs", (files.targets.len() as u64).checked_mul(block_size))
}

/// What all of a job's clones move: each its io_size, else its region of every file, times
/// loops; number_ios stops each loop of a clone early.
fn bytes_moved(j: &Job, shape: &Shape, files: &Files, notes: &mut Vec<String>) -> Result<u64> {
    let set = &j.set;
    let volume = match (set.size("io_size")?, files.volume) {
        (Some(b), _) | (None, Some(b)) => Ok(b),
        (None, None) => clone_region(j, files),
    };
    let loops = set.int("loops")?.unwrap_or(1).max(1);
    // number_ios stops each loop of a clone early; it never makes one move more (as fio's
    // HOWTO says, and fio 3.33 counts it per loop).
    let per_loop = match set.int("number_ios")? {
        Some(n) => {
            let by_count = if let Some(m) = &shape.block_mix {
                notes.push("number_ios with block sizes that vary: iogauge stops after the bytes that many I/Os of the mean size move".into());
                let mean = mean_size(if shape.writes && !shape.reads {
                    &m.write
                } else {
                    &m.read
                });
                n.saturating_mul(mean)
            } else {
                n.saturating_mul(shape.block_size)
            };
            match volume {
                Ok(v) => by_count.min(v),
                Err(_) => by_count,
            }
        }
        None => volume?,
    };
    Ok(per_loop
        .saturating_mul(loops)
        .saturating_mul(files.clones as u64))
}

/// fio's startdelay. A range: a delay drawn at random within it, as fio does (one for all of
/// a job's clones, which start together here).
pub(super) fn read_start_delay(set: &Set, notes: &mut Vec<String>) -> Result<u64> {
    Ok(match set.text("startdelay") {
        Some(v) if v.contains('-') || v.contains(':') => {
            let (a, b) = v
                .split_once('-')
                .or_else(|| v.split_once(':'))
                .expect("checked above");
            let t = |x: &str| parse_time_ns(x, 1_000_000_000).map_err(|e| set.err("startdelay", e));
            let (a, b) = (t(a)?, t(b)?);
            let (lo, hi) = (a.min(b), a.max(b));
            let noise = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.subsec_nanos() as u64);
            // hi - lo + 1 overflows only for the whole u64 range, where any noise fits.
            let drawn = lo + noise % (hi - lo).saturating_add(1);
            notes.push(format!(
                "startdelay={v}: {} ms drawn for this job",
                drawn / 1_000_000
            ));
            drawn
        }
        _ => set.seconds("startdelay")?.unwrap_or(0),
    })
}

/// fio's create_only: lay the files out (and keep them), run no I/O.
pub(super) fn read_create_only(set: &Set, notes: &mut Vec<String>) -> Result<bool> {
    let create_only = set.flag("create_only")?.unwrap_or(false);
    if create_only {
        notes.push("create_only: the files are laid out and kept (that is what the job is for); no I/O is run".into());
    }
    Ok(create_only)
}

/// fio's `exitall` (the end of any job ends others), `exitall_on_error` (the end of this one,
/// failed) and `exit_what` (which others: `group`, `stonewall` or `all`).
pub(super) fn read_exit(set: &Set) -> Result<Exit> {
    let what = match set.text("exit_what") {
        None | Some("group") => ExitWhat::Group,
        Some("stonewall") => ExitWhat::Stonewall,
        Some("all") => ExitWhat::All,
        Some(v) => {
            return Err(set.err("exit_what", format!("'{v}' is not group, stonewall or all")))
        }
    };
    Ok(Exit {
        all: set.flag("exitall")?.unwrap_or(false),
        on_error: set.flag("exitall_on_error")?.unwrap_or(false),
        what,
    })
}
