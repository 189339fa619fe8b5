//! From iogauge's own flags ([`crate::cli::RunArgs`]) to a validated [`JobSpec`].
//!
//! clap reads each number, size and duration into its type as it parses the command line
//! ([`read`]); a text that is not one is kept as its message and reported when the job is
//! built, in the same order and words as every other rejected value.

use super::*;
use crate::cli::{
    normalize_diskspd_args, Cli, Command, DedupeModeArg, EngineArg, RunArgs, TrimArg,
};
use crate::spec::flat::FlatRule;
use crate::units::{parse_duration_ns, parse_size};
use clap::Parser;
use read::{number, read_size as size};

pub mod read;

/// Size of the temporary file made when no target is given.
pub const DEFAULT_TEMP_SIZE: u64 = 1 << 30;
pub const DEFAULT_DURATION_NS: u64 = 10_000_000_000;
pub const DEFAULT_WARMUP_NS: u64 = 1_000_000_000;
pub const DEFAULT_QUEUE_DEPTH: u32 = 32;

/// An optional flag's value, checked.
fn given<T: Copy>(value: &Option<read::Checked<T>>) -> Result<Option<T>> {
    value.as_ref().map(read::Checked::get).transpose()
}

/// How many I/Os a thread submits at once and how many completions it waits for (0: auto,
/// runner/gather.rs), as given or by default. IOPS mode times no single I/O, so its warm-up
/// finds whether batches move more than one I/O at a time; batches of completions asked for
/// go with batches of submissions (a pass's I/Os with the wait after it, in one call).
/// Latency mode stamps each I/O as it completes: each I/O at once, each completion as it
/// comes (fio's defaults).
fn batches(depth: u32, latency: bool, submit: Option<u32>, complete: Option<u32>) -> (u32, u32) {
    let complete = complete.unwrap_or(if latency { 1 } else { 0 });
    let submit = submit.unwrap_or(if complete > 1 { depth } else { 1 });
    (submit, complete)
}

/// DiskSpd's -S suffixes.
fn diskspd_cache(flags: &str) -> Result<CacheMode> {
    Ok(match flags {
        "" | "u" => CacheMode::Direct,
        // -Sr: bypass the local (client) cache, let the remote server cache: O_DIRECT on Linux.
        "r" => CacheMode::Direct,
        "w" => CacheMode::WriteThrough,
        "uw" | "wu" | "h" => CacheMode::DirectWriteThrough,
        "b" => CacheMode::Buffered,
        other => {
            return Err(Error::usage(format!(
                "invalid caching switch '-S{other}': expected -S, -Su, -Sw, -Sh, -Suw, -Sr or -Sb"
            )))
        }
    })
}

fn cache_mode(text: &str) -> Result<CacheMode> {
    Ok(match text {
        "buffered" => CacheMode::Buffered,
        "direct" => CacheMode::Direct,
        "writethrough" => CacheMode::WriteThrough,
        "direct-writethrough" => CacheMode::DirectWriteThrough,
        other => {
            return Err(Error::usage(format!(
                "invalid value '{other}' for --cache: expected buffered, direct, writethrough or direct-writethrough"
            )))
        }
    })
}

fn distribution(text: &str) -> Result<Distribution> {
    let err = || {
        Error::usage(format!(
            "invalid value '{text}' for --distribution: expected uniform, zipf:THETA, pareto:H, zoned:IO%/SPAN%:... or zoned_abs:IO%/SIZE:..."
        ))
    };
    for (kind, absolute) in [("zoned_abs:", true), ("zoned:", false)] {
        if let Some(list) = text.strip_prefix(kind) {
            return Distribution::zoned(list, absolute, &|t| parse_size(t))
                .map_err(|e| Error::usage(format!("--distribution {text}: {e}")));
        }
    }
    let (name, param) = match text.split_once(':') {
        Some((n, p)) => (n, Some(p)),
        None => (text, None),
    };
    let value = |p: Option<&str>| -> Result<f64> { p.ok_or_else(err)?.parse().map_err(|_| err()) };
    Ok(match name {
        "uniform" if param.is_none() => Distribution::Uniform,
        "zipf" => Distribution::Zipf {
            theta: value(param)?,
        },
        "pareto" => Distribution::Pareto { h: value(param)? },
        _ => return Err(err()),
    })
}

/// `--rate-iops R,W` and `--rate-bw R,W`: limits for reads and writes apart (an empty part:
/// that direction is not limited); `None` where neither has a comma.
fn rates_apart(iops: Option<&str>, bw: Option<&str>) -> Result<Option<DirRates>> {
    let split = |flag: &str, text: Option<&str>| -> Result<[Option<Rate>; 2]> {
        let Some((r, w)) = text.and_then(|t| t.split_once(',')) else {
            return Ok([None, None]);
        };
        let one = |t: &str| -> Result<Option<Rate>> {
            let t = t.trim();
            if t.is_empty() {
                return Ok(None);
            }
            Ok(Some(if flag == "--rate-iops" {
                Rate::Iops {
                    iops: number(flag, t, "I/Os per second")?,
                }
            } else {
                Rate::Bytes {
                    per_sec: size(flag, t)?,
                }
            }))
        };
        Ok([one(r)?, one(w)?])
    };
    let (i, b) = (split("--rate-iops", iops)?, split("--rate-bw", bw)?);
    if iops.is_some_and(|t| t.contains(',')) && bw.is_some_and(|t| t.contains(',')) {
        for d in 0..2 {
            if i[d].is_some() && b[d].is_some() {
                return Err(Error::usage(format!(
                    "--rate-iops and --rate-bw both limit {}: give one limit for each direction",
                    ["reads", "writes"][d]
                )));
            }
        }
    }
    let (read, write) = (i[0].or(b[0]), i[1].or(b[1]));
    let apart = [iops, bw].iter().flatten().any(|t| t.contains(','));
    Ok(apart.then_some(DirRates { read, write }))
}

/// `--rate-min`, `--rate-min-iops` (either may be `R,W`: floors for reads and writes apart)
/// and `--rate-min-window`.
fn min_rate(args: &RunArgs) -> Result<Option<MinRate>> {
    let (bw, iops) = (args.rate_min.as_deref(), args.rate_min_iops.as_deref());
    if bw.is_none() && iops.is_none() {
        return Ok(None);
    }
    let window_ns = given(&args.rate_min_window)?
        .unwrap_or(1000)
        .saturating_mul(1_000_000);
    let bytes = |t: &str| -> Result<u64> {
        match t.trim() {
            "" => Ok(0),
            t => size("--rate-min", t),
        }
    };
    let count = |t: &str| -> Result<u64> {
        match t.trim() {
            "" => Ok(0),
            t => number("--rate-min-iops", t, "I/Os per second"),
        }
    };
    let apart = [bw, iops].iter().flatten().any(|t| t.contains(','));
    if !apart {
        return Ok(Some(MinRate {
            bytes_per_sec: bw.map(bytes).transpose()?.unwrap_or(0),
            iops: iops.map(count).transpose()?.unwrap_or(0),
            window_ns,
            apart: None,
        }));
    }
    fn split<'a>(t: Option<&'a str>, flag: &str) -> Result<(&'a str, &'a str)> {
        match t {
            None => Ok(("", "")),
            Some(t) => t.split_once(',').ok_or_else(|| {
                Error::usage(format!(
                    "{flag} {t}: give it as R,W too, where the other floor is given apart"
                ))
            }),
        }
    }
    let ((br, bw_), (ir, iw)) = (split(bw, "--rate-min")?, split(iops, "--rate-min-iops")?);
    Ok(Some(MinRate {
        bytes_per_sec: 0,
        iops: 0,
        window_ns,
        apart: Some([
            Floor {
                bytes_per_sec: bytes(br)?,
                iops: count(ir)?,
            },
            Floor {
                bytes_per_sec: bytes(bw_)?,
                iops: count(iw)?,
            },
        ]),
    }))
}

/// `T:DIST`: from T after the start, DIST.
fn delay_step(text: &str) -> Result<DelayStep> {
    let (t, dist) = text.split_once(':').ok_or_else(|| {
        Error::usage(format!(
            "invalid value '{text}' for --delay-step: expected T:DIST such as 2s:fixed:1ms"
        ))
    })?;
    Ok(DelayStep {
        after_ns: parse_duration_ns(t).map_err(|why| {
            Error::usage(format!("invalid value '{text}' for --delay-step: {why}"))
        })?,
        dist: delay_dist(dist, "--delay-step")?,
    })
}

fn delay(text: &str) -> Result<DelayDist> {
    delay_dist(text, "--delay")
}

fn delay_dist(text: &str, flag: &str) -> Result<DelayDist> {
    let err = |why: String| Error::usage(format!("invalid value '{text}' for {flag}: {why}"));
    let dur = |t: &str| parse_duration_ns(t).map_err(&err);
    let parts: Vec<&str> = text.split(':').collect();
    Ok(match parts.as_slice() {
        ["fixed", t] => DelayDist::Fixed { ns: dur(t)? },
        ["uniform", a, b] => DelayDist::Uniform {
            min_ns: dur(a)?,
            max_ns: dur(b)?,
        },
        ["lognormal", m, s] => DelayDist::Lognormal {
            median_ns: dur(m)?,
            sigma: s
                .parse()
                .map_err(|_| err(format!("sigma '{s}' is not a number")))?,
        },
        _ => {
            return Err(err(
                "expected fixed:T, uniform:MIN:MAX or lognormal:MEDIAN:SIGMA".into(),
            ))
        }
    })
}

fn affinity(text: &str) -> Result<Affinity> {
    if text == "auto" {
        return Ok(Affinity::Auto);
    }
    let cpus = text
        .split(',')
        .map(|c| {
            c.trim().parse::<usize>().map_err(|_| {
                Error::usage(format!("invalid value '{text}' for --affinity: expected auto or CPU numbers such as 0,2,4"))
            })
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(Affinity::Cpus { cpus })
}

/// `--zones SIZE[:SKIP[:RANGE]]`.
fn zones(args: &RunArgs) -> Result<Option<crate::spec::StridedZones>> {
    let Some(text) = args.zones.as_deref() else {
        return Ok(None);
    };
    let bad = || {
        Error::usage(format!(
            "invalid value '{text}' for --zones: expected SIZE[:SKIP[:RANGE]] such as 256M:2G"
        ))
    };
    let parts: Vec<u64> = text
        .split(':')
        .map(|p| parse_size(p).map_err(|_| bad()))
        .collect::<Result<_>>()?;
    match parts[..] {
        [size] => Ok(Some(crate::spec::StridedZones {
            size,
            range: size,
            skip: 0,
        })),
        [size, skip] => Ok(Some(crate::spec::StridedZones {
            size,
            range: size,
            skip,
        })),
        [size, skip, range] => Ok(Some(crate::spec::StridedZones { size, range, skip })),
        _ => Err(bad()),
    }
}

/// `--zbd SIZE[:CAPACITY]` with `--max-open-zones`, `--read-beyond-wp` and `--zone-reset`
/// (which mean nothing without it).
fn zbd(args: &RunArgs) -> Result<Option<crate::spec::WritePointerZones>> {
    let Some(text) = args.zbd.as_deref() else {
        let alone = [
            (args.max_open_zones.is_some(), "--max-open-zones"),
            (args.read_beyond_wp, "--read-beyond-wp"),
            (args.zone_reset.is_some(), "--zone-reset"),
        ];
        return match alone.iter().find(|(given, _)| *given) {
            Some((_, flag)) => Err(Error::usage(format!("{flag} needs --zbd SIZE"))),
            None => Ok(None),
        };
    };
    let bad = |flag: &str, v: &str, want: &str| {
        Error::usage(format!("invalid value '{v}' for {flag}: expected {want}"))
    };
    let sizes: Vec<u64> = text
        .split(':')
        .map(|p| parse_size(p).map_err(|_| bad("--zbd", text, "SIZE[:CAPACITY] such as 256M")))
        .collect::<Result<_>>()?;
    let (size, capacity) = match sizes[..] {
        [size] => (size, size),
        [size, capacity] => (size, capacity),
        _ => return Err(bad("--zbd", text, "SIZE[:CAPACITY] such as 256M")),
    };
    let (max_open, thread_max_open) = match args.max_open_zones.as_deref() {
        None => (0, 0),
        Some(v) => {
            let want = "N[:PER_THREAD], whole numbers";
            let n: Vec<u32> = v
                .split(':')
                .map(|p| {
                    p.parse::<u32>()
                        .map_err(|_| bad("--max-open-zones", v, want))
                })
                .collect::<Result<_>>()?;
            match n[..] {
                [n] => (n, 0),
                [n, per] => (n, per),
                _ => return Err(bad("--max-open-zones", v, want)),
            }
        }
    };
    let (reset_threshold, reset_frequency) = match args.zone_reset.as_deref() {
        None => (0.0, 0.0),
        Some(v) => {
            let want = "THRESHOLD:FREQUENCY, fractions 0..1 such as 0.5:0.25";
            let f: Vec<f64> = v
                .split(':')
                .map(|p| match p.parse::<f64>() {
                    Ok(f) if (0.0..=1.0).contains(&f) => Ok(f),
                    _ => Err(bad("--zone-reset", v, want)),
                })
                .collect::<Result<_>>()?;
            match f[..] {
                [t, q] => (t, q),
                _ => return Err(bad("--zone-reset", v, want)),
            }
        }
    };
    Ok(Some(crate::spec::WritePointerZones {
        size,
        capacity,
        max_open,
        thread_max_open,
        read_beyond_wp: args.read_beyond_wp,
        reset_threshold,
        reset_frequency,
    }))
}

/// `--numa-nodes` and `--numa-mem`.
fn numa(args: &RunArgs) -> Result<Option<crate::spec::numa::Numa>> {
    use crate::spec::numa::{parse_mem_policy, parse_nodes, Numa};
    let bad = |flag: &str, v: &str, e: String| {
        Error::usage(format!("invalid value '{v}' for {flag}: {e}"))
    };
    let cpu_nodes = args
        .numa_nodes
        .as_deref()
        .map(|v| parse_nodes(v).map_err(|e| bad("--numa-nodes", v, e)))
        .transpose()?;
    let memory = args
        .numa_mem
        .as_deref()
        .map(|v| parse_mem_policy(v).map_err(|e| bad("--numa-mem", v, e)))
        .transpose()?;
    Ok((cpu_nodes.is_some() || memory.is_some()).then_some(Numa { cpu_nodes, memory }))
}

/// `--block-sizes READ[,WRITE]`: the largest size and the mix (none if every I/O is one size).
fn block_mix(text: &str) -> Result<(u64, Option<BlockMix>)> {
    let err =
        |why: String| Error::usage(format!("invalid value '{text}' for --block-sizes: {why}"));
    let (r, w) = text.split_once(',').unwrap_or((text, text));
    let read = BlockSizes::parse(r).map_err(err)?;
    let write = BlockSizes::parse(w).map_err(err)?;
    let largest = read.largest().max(write.largest());
    Ok(match (&read, &write) {
        (BlockSizes::Fixed { bytes: a }, BlockSizes::Fixed { bytes: b }) if a == b => (*a, None),
        _ => (largest, Some(BlockMix { read, write })),
    })
}

/// Build and validate the job description for `iogauge run`. The flags are read concept by
/// concept, in the order their errors have always been reported.
pub fn job_from_args(args: &RunArgs) -> Result<JobSpec> {
    let (block_size, block_mix) = block_sizes(args)?;
    let flush = flushes(args)?;
    let think = think(args)?;
    let buffers = buffers(args)?;
    let engine = args.engine.map(engine_kind);
    // Operations on file names: no cache mode, no offsets, one per file. Their defaults
    // follow (buffered, sequential, each file once); flags that say otherwise are refused by
    // validation.
    let file_op = engine.is_some_and(|e| e.is_file_op());
    let cache = cache(args, file_op)?;
    let pattern = pattern(args, block_size, block_mix.as_ref(), file_op)?;
    let queue_depth = match given(&args.queue_depth)? {
        Some(q) => q,
        None if engine.is_some_and(|e| e.is_inline()) => 1,
        None => DEFAULT_QUEUE_DEPTH,
    };
    let write_pct = args.write_pct.get()?;
    let stop = stop(args, block_size, file_op)?;
    let targets = targets(args, block_size, file_op)?;
    // Read in the order below: the first bad flag is the one named.
    let threads_per_target = args.threads.get()?;
    let submit_batch = given(&args.submit_batch)?;
    let complete_batch = given(&args.complete_batch)?;
    let delay = args.delay.as_deref().map(delay).transpose()?;
    let delay_step = args.delay_step.as_deref().map(delay_step).transpose()?;
    let affinity = args.affinity.as_deref().map(affinity).transpose()?;
    let warmup_ns = match given(&args.warmup)? {
        Some(w) => w,
        None if file_op => 0,
        None => DEFAULT_WARMUP_NS,
    };
    let until_steady = given(&args.until_steady)?.map(|window_ns| SteadyRule {
        window_ns,
        drop_pct: 30,
        tolerance_pct: 10,
    });
    let cooldown_ns = args.cooldown.get()?;
    let base_offset = args.base_offset.get()?;
    let max_offset = given(&args.max_offset)?;
    let rate_iops = together(args.rate_iops.as_deref())
        .map(|r| number("--rate-iops", r, "I/Os per second"))
        .transpose()?;
    let rate_bytes_per_sec = together(args.rate_bw.as_deref())
        .map(|r| size("--rate-bw", r))
        .transpose()?;
    let rate_dirs = rates_apart(args.rate_iops.as_deref(), args.rate_bw.as_deref())?;
    let seed = seed(args)?;
    let interval_ns = args
        .interval
        .get()?
        .checked_mul(1_000_000)
        .ok_or_else(|| Error::usage("--interval is too large"))?;
    let random_pct = given(&args.random_pct)?;
    let random_every = given(&args.random_every)?;
    let min_rate = min_rate(args)?;
    let latency_target = latency_target(args)?;
    let thread_start = given(&args.thread_start)?.unwrap_or(0);
    let thread_offset = given(&args.thread_offset)?.unwrap_or(0);
    let file_sets = file_sets(args)?;
    // The search judges each I/O's completion latency: every I/O is timed.
    let latency = args.latency || latency_target.is_some();
    let (submit_batch, complete_batch) =
        batches(queue_depth, latency, submit_batch, complete_batch);
    let job = JobSpec {
        targets,
        threads_per_target,
        queue_depth,
        submit_batch,
        complete_batch,
        latency,
        affinity,
        numa: numa(args)?,
        shape: Shape {
            block_size,
            block_mix,
            pattern,
            write_pct,
            random_pct,
            random_every,
            base_offset,
            max_offset,
            thread_offset,
            thread_start,
            zones: zones(args)?,
            zbd: zbd(args)?,
            trim: trims(args),
        },
        timing: Timing {
            warmup_ns,
            stop,
            until_steady,
            until_flat: given(&args.until_flat)?.map(|r| FlatRule {
                check_ns: interval_ns,
                ..r
            }),
            stonewall: given(&args.stonewall)?.map(|ns| Stonewall {
                ns,
                wear_out: args.wear_out,
            }),
            cooldown_ns,
            interval_ns,
        },
        cache,
        remote_uncached: false,
        engine: EngineSpec {
            kind: engine,
            sqpoll: args.sqpoll,
            hipri: args.hipri,
            register: !args.no_register,
            delay,
            delay_step,
        },
        limits: Limits {
            rate_iops,
            rate_bytes_per_sec,
            rate_dirs,
            min_rate,
            latency_target,
            poisson: args.rate_poisson,
            flow: None,
        },
        per_io: PerIo {
            buffers,
            flush,
            end_fsync: args.end_fsync,
            think,
        },
        seed,
        allow_overwrite: args.allow_overwrite,
        keep: args.keep,
        continue_on_error: args.continue_on_error,
        fill: args.fill,
        prio: crate::spec::prio::Priority {
            ioprio: args
                .ioprio
                .as_deref()
                .map(|t| {
                    crate::spec::prio::IoPrio::parse(t)
                        .map_err(|e| Error::usage(format!("--ioprio: {e}")))
                })
                .transpose()?,
            cmdprio: match args.cmdprio.as_deref() {
                Some(t) => crate::spec::prio::parse_cmdprio(t)
                    .map_err(|e| Error::usage(format!("--cmdprio {e}")))?,
                None => Default::default(),
            },
        },
        ignore_errors: match args.ignore_error.as_deref() {
            Some(list) => crate::error::parse_errnos(list)
                .map_err(|e| Error::usage(format!("--ignore-error '{list}': {e}")))?,
            None => Vec::new(),
        },
        file_sets,
        dialect: Dialect::Iogauge,
        ranks: Ranks {
            shared_file: args.shared_file,
            shift: rank_shift(args)?,
            interleave: None,
        },
        verify: verify(args)?,
        cgroup: None,
    };
    job.validate()?;
    Ok(job)
}

/// --verify and its settings.
fn verify(args: &RunArgs) -> Result<Option<crate::verify::VerifySpec>> {
    if !args.verify {
        return Ok(None);
    }
    Ok(Some(crate::verify::VerifySpec {
        unit: args
            .verify_interval
            .as_deref()
            .map(|s| size("--verify-interval", s))
            .transpose()?
            .unwrap_or(0),
        pass: !args.no_verify_pass,
        backlog: given(&args.verify_backlog)?,
        go_on: args.verify_continue,
        dump: args.verify_dump.clone(),
        state: args.verify_state.clone(),
        load: args.verify_load,
        fresh: args.verify_fresh,
        seed: verify_seed(args),
        checkpoint_s: given(&args.verify_checkpoint)?.unwrap_or(1),
        save: true,
    }))
}

/// The block size of every I/O, or the largest of a mix and the mix.
fn block_sizes(args: &RunArgs) -> Result<(u64, Option<BlockMix>)> {
    match &args.block_sizes {
        Some(m) => block_mix(m),
        None => Ok((args.block_size.get()?, None)),
    }
}

fn flushes(args: &RunArgs) -> Result<Option<FlushEvery>> {
    Ok(match (given(&args.fsync)?, &args.fdatasync) {
        (Some(writes), _) => Some(FlushEvery {
            writes,
            data_only: false,
        }),
        (None, Some(n)) => Some(FlushEvery {
            writes: n.get()?,
            data_only: true,
        }),
        (None, None) => None,
    })
}

/// --latency-target and the flags that qualify it.
fn latency_target(args: &RunArgs) -> Result<Option<LatencyTarget>> {
    let Some(ns) = given(&args.latency_target)? else {
        return Ok(None);
    };
    Ok(Some(LatencyTarget {
        ns,
        window_ns: given(&args.latency_window)?.unwrap_or(0),
        pct: given(&args.latency_pct)?.unwrap_or(100.0),
        keep_adjusting: args.latency_keep_adjusting,
    }))
}

fn think(args: &RunArgs) -> Result<Option<Think>> {
    let Some(ns) = given(&args.think)? else {
        return Ok(None);
    };
    Ok(Some(Think {
        ns,
        spin_ns: given(&args.think_spin)?.unwrap_or(0),
        every: given(&args.think_every)?.unwrap_or(1),
    }))
}

/// What written buffers hold: --compressible and --refill-buffers, or DiskSpd's -Z.
fn buffers(args: &RunArgs) -> Result<BufferFill> {
    let mut buffers = BufferFill {
        compress_pct: given(&args.compressible)?.unwrap_or(0),
        refill: args.refill_buffers,
        dedupe: dedupe(args)?,
        pattern: None,
    };
    // DiskSpd: -Z zeroed buffers, -Zr a new random buffer per write, -Z<size> one random
    // buffer to write from (iogauge's buffers are random already).
    match args.diskspd_write_buffers.as_deref() {
        Some("") => buffers.compress_pct = 100,
        Some("r") => buffers.refill = true,
        _ => {}
    }
    // As fio: a partly compressible fill is refreshed per write, or neighbouring blocks
    // would compress together better than the share asked for.
    if buffers.compress_pct > 0 && buffers.compress_pct < 100 || buffers.dedupe.is_some() {
        buffers.refill = true;
    }
    Ok(buffers)
}

fn trims(args: &RunArgs) -> Trims {
    match args.trim {
        None => Trims::None,
        Some(TrimArg::Only) => Trims::Only,
        Some(TrimArg::ThenWrite) => Trims::ThenWrite,
    }
}

/// --dedupe and its mode; --dedupe-working-set alone asks for --dedupe-mode working-set.
fn dedupe(args: &RunArgs) -> Result<Option<Dedupe>> {
    let working_set = given(&args.dedupe_working_set)?;
    let mode = match (args.dedupe_mode, working_set) {
        (Some(DedupeModeArg::Repeat), Some(_)) => {
            return Err(Error::usage(
                "--dedupe-working-set applies to --dedupe-mode working-set, not repeat",
            ))
        }
        (Some(DedupeModeArg::Repeat), None) | (None, None) => DedupeMode::Repeat,
        (Some(DedupeModeArg::WorkingSet), _) | (None, Some(_)) => DedupeMode::WorkingSet {
            pct: working_set.unwrap_or(DedupeMode::WORKING_SET_PCT),
        },
    };
    Ok(match given(&args.dedupe)? {
        None | Some(0) => None,
        Some(pct) => Some(Dedupe {
            pct,
            mode,
            global: args.dedupe_global,
            job: 0,
            shared: None,
        }),
    })
}

fn engine_kind(e: EngineArg) -> EngineKind {
    match e {
        EngineArg::Sync => EngineKind::Sync,
        EngineArg::IoUring => EngineKind::IoUring,
        EngineArg::Iocp => EngineKind::Iocp,
        EngineArg::Null => EngineKind::Null,
        EngineArg::Delay => EngineKind::Delay,
        EngineArg::Mmap => EngineKind::Mmap,
        EngineArg::Filecreate => EngineKind::FileCreate,
        EngineArg::Filestat => EngineKind::FileStat,
        EngineArg::Filedelete => EngineKind::FileDelete,
        EngineArg::Falloc => EngineKind::Falloc,
        EngineArg::Ftruncate => EngineKind::Ftruncate,
    }
}

/// --cache, or DiskSpd's -S; file operations default to buffered (they move no data).
fn cache(args: &RunArgs, file_op: bool) -> Result<CacheMode> {
    match (&args.cache, &args.diskspd_cache) {
        (Some(_), Some(_)) => Err(Error::usage(
            "--cache and -S both set the caching mode: give one",
        )),
        (Some(c), None) => cache_mode(c),
        (None, Some(s)) => diskspd_cache(s),
        (None, None) if file_op => Ok(CacheMode::Buffered),
        (None, None) => Ok(CacheMode::Direct),
    }
}

/// Where offsets go: random (aligned, drawn from --distribution) or sequential (with a
/// stride, perhaps shared by the threads).
fn pattern(
    args: &RunArgs,
    block_size: u64,
    block_mix: Option<&BlockMix>,
    file_op: bool,
) -> Result<Pattern> {
    let dist = distribution(&args.distribution)?;
    if args.interlocked && args.random.is_some() {
        return Err(Error::usage(
            "--interlocked (-si) is sequential I/O and cannot be combined with --random",
        ));
    }
    // --interlocked alone means sequential with the default stride, as DiskSpd's -si does.
    let sequential = args
        .sequential
        .clone()
        .or_else(|| args.interlocked.then(String::new));
    let sequential = match (&args.random, sequential) {
        (None, None) if file_op || args.backwards => Some(String::new()),
        (_, s) => s,
    };
    if let Some(stride) = sequential {
        if dist != Distribution::Uniform {
            return Err(Error::usage(
                "--distribution applies to random I/O and cannot be combined with --sequential",
            ));
        }
        let stride_bytes = if stride.is_empty() {
            block_size
        } else {
            size("--sequential", &stride)?
        };
        return Ok(Pattern::Sequential {
            stride_bytes,
            interlocked: args.interlocked,
            backwards: args.backwards,
        });
    }
    // As fio: random offsets align to the smallest block size of a mix.
    let smallest = block_mix.map_or(block_size, |m| m.read.smallest().min(m.write.smallest()));
    let align_bytes = match args.random.as_deref() {
        None | Some("") => smallest,
        Some(a) => size("--random", a)?,
    };
    Ok(Pattern::Random {
        align_bytes,
        distribution: dist,
    })
}

/// `--rank-shift[=N]`: by N ranks, or (no N) onto another host's data.
fn rank_shift(args: &RunArgs) -> Result<Option<RankShift>> {
    let Some(text) = args.rank_shift.as_deref() else {
        return Ok(None);
    };
    if text == "host" {
        return Ok(Some(RankShift::OtherHost));
    }
    match text.parse::<u32>() {
        Ok(n) if n > 0 => Ok(Some(RankShift::By(n))),
        _ => Err(Error::usage(format!(
            "invalid value '{text}' for --rank-shift: expected a number of ranks, 1 or more"
        ))),
    }
}

/// A duration, a byte count, or whichever comes first; file operations: once per file.
fn stop(args: &RunArgs, block_size: u64, file_op: bool) -> Result<Stop> {
    let once = (args.targets.len().max(1) as u64).saturating_mul(block_size);
    Ok(match (&args.total, &args.duration) {
        (None, d) if file_op => Stop::TotalBytes {
            bytes: once,
            max_ns: given(d)?,
        },
        (Some(t), d) => Stop::TotalBytes {
            bytes: t.get()?,
            max_ns: given(d)?,
        },
        (None, Some(d)) => Stop::Duration { ns: d.get()? },
        (None, None) => Stop::Duration {
            ns: DEFAULT_DURATION_NS,
        },
    })
}

/// The targets given (created with -c where missing), or a temporary file here.
fn targets(args: &RunArgs, block_size: u64, file_op: bool) -> Result<Vec<TargetSpec>> {
    let create_size = given(&args.create)?;
    if create_size == Some(0) {
        return Err(Error::usage("--create size must be more than 0"));
    }
    if !args.targets.is_empty() {
        return Ok(args
            .targets
            .iter()
            .map(|p| TargetSpec {
                path: p.clone(),
                create_size,
                temporary: false,
            })
            .collect());
    }
    let dir = std::env::current_dir().map_err(|e| {
        Error::usage(format!(
            "cannot find the current folder for the temporary target: {e}"
        ))
    })?;
    Ok(vec![TargetSpec {
        path: dir.join(format!("iogauge-{}.tmp", std::process::id())),
        // A file operation needs no data in it: one block, as fio's filecreate sizes it.
        create_size: Some(create_size.unwrap_or(if file_op {
            block_size
        } else {
            DEFAULT_TEMP_SIZE
        })),
        temporary: true,
    }])
}

/// `--rate-iops N` or `--rate-bw SIZE`: one limit for reads and writes together (`R,W` are
/// limits apart, read by [`rates_apart`]).
fn together(rate: Option<&str>) -> Option<&str> {
    rate.filter(|r| !r.contains(','))
}

/// --seed, or DiskSpd's -z (alone: a seed from the clock).
fn seed(args: &RunArgs) -> Result<u64> {
    match args.diskspd_seed.as_deref() {
        Some("clock") => Ok(std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(1, |d| d.as_nanos() as u64)),
        Some(z) => number("-z", z, "a whole number"),
        None => args.seed.as_ref().map_or(Ok(0), |s| s.get()),
    }
}

/// The seed verification headers carry: the run's where the user chose one (--seed, -z), else
/// a fresh one, so that a target's headers name the run that wrote them.
fn verify_seed(args: &RunArgs) -> Option<u64> {
    if args.seed.is_some() || args.diskspd_seed.is_some() {
        return None;
    }
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    Some(crate::rng::Rng::new(now, &[u64::from(std::process::id())]).next_u64())
}

/// --file-set, with --file-service and --open-files.
fn file_sets(args: &RunArgs) -> Result<Option<FileSets>> {
    let Some(n) = args.file_set.as_deref() else {
        return Ok(None);
    };
    Ok(Some(FileSets {
        files: if n == "all" {
            args.targets.len() as u32
        } else {
            number("--file-set", n, "a number of files, or all")?
        },
        service: args
            .file_service
            .as_deref()
            .map(|t| FileService::parse(t).map_err(|e| Error::usage(format!("--file-service {e}"))))
            .transpose()?
            .unwrap_or(FileService::RoundRobin { every: 1 }),
        open_files: given(&args.open_files)?,
    }))
}

/// A whole `iogauge run ...` argument list (profiles' passes, the self-test, `explain`) into a
/// validated job, through the same parser as the command line.
pub fn job_from_argv(args: &[String]) -> Result<JobSpec> {
    let args = normalize_diskspd_args(args.iter().cloned());
    let cli = Cli::try_parse_from(&args).map_err(|e| {
        Error::usage(format!(
            "'{}': {}",
            args.join(" "),
            e.render().to_string().lines().next().unwrap_or("invalid")
        ))
    })?;
    match cli.command {
        Some(Command::Run(r)) => job_from_args(&r),
        _ => Err(Error::usage(format!(
            "'{}' is not an iogauge run command",
            args.join(" ")
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(line: &str) -> Result<JobSpec> {
        let args = normalize_diskspd_args(
            format!("iogauge run {line}")
                .split_whitespace()
                .map(String::from),
        );
        let Some(Command::Run(run)) = Cli::try_parse_from(args).expect("clap parse").command else {
            panic!("run")
        };
        job_from_args(&run)
    }

    #[test]
    fn batches_default_to_auto_in_iops_mode_and_to_each_in_latency_mode() {
        let b = |line: &str| {
            let j = job(line).unwrap();
            (j.submit_batch, j.complete_batch)
        };
        assert_eq!(b("-o 32 f"), (1, 0));
        assert_eq!(b("-o 32 -L f"), (1, 1));
        // Batches of completions asked for bring batches of submissions.
        assert_eq!(b("-o 32 --complete-batch 16 f"), (32, 16));
        assert_eq!(b("-o 32 --complete-batch 16 --submit-batch 4 f"), (4, 16));
        assert_eq!(b("-o 32 -L --complete-batch auto f"), (1, 0));
        let e = job("-o 32 --complete-batch 0 f").unwrap_err().to_string();
        assert!(e.contains("invalid value '0' for --complete-batch"), "{e}");
        let e = job("-o 8 --complete-batch 9 f").unwrap_err().to_string();
        assert!(
            e.contains("--complete-batch 9 must be between 1 and the queue depth (8)"),
            "{e}"
        );
    }

    #[test]
    fn until_flat_reads_fios_criterion_with_iogauges_units() {
        use crate::spec::flat::{FlatLimit, FlatMetric, FlatTest};
        let j = job("--until-flat=bw_slope:1M,30 --interval 500 -d 60 f").unwrap();
        let f = j.timing.until_flat.unwrap();
        assert_eq!(
            (f.metric, f.test, f.limit),
            (
                FlatMetric::Bw,
                FlatTest::Slope,
                FlatLimit::Absolute(1048576.0)
            )
        );
        // One point per --interval.
        assert_eq!(
            (f.window_ns, f.check_ns, f.ramp_ns),
            (30_000_000_000, 500_000_000, 0)
        );
        let j = job("--until-flat=lat:2ms -L f").unwrap();
        let f = j.timing.until_flat.unwrap();
        assert_eq!(
            (f.limit, f.window_ns),
            (FlatLimit::Absolute(2e6), 60_000_000_000)
        );
        let e = |line| job(line).unwrap_err().to_string();
        assert!(
            e("--until-flat=iops f")
                .contains("invalid value 'iops' for --until-flat: 'iops' needs a limit"),
            "{}",
            e("--until-flat=iops f")
        );
        assert!(e("--until-flat=iops:5%,x f").contains("invalid value 'x' for --until-flat"));
        assert!(e("--until-flat=lat:5% f")
            .contains("--until-flat judges latency, which this job does not time (add -L)"));
        assert!(e("--until-flat=iops:5%,1.5 f")
            .contains("--until-flat 1500ms must be a whole number of --interval (1000ms)"));
        assert!(e("--until-flat=iops:5% --until-steady f")
            .contains("--until-steady and --until-flat are two different stop rules"));
    }

    #[test]
    #[cfg_attr(
        not(target_os = "linux"),
        ignore = "io_uring (Linux's) is the default engine there"
    )]
    fn per_io_flags() {
        let split = |parts: &[(u64, u8)]| BlockSizes::Split {
            parts: parts
                .iter()
                .map(|&(bytes, pct)| SizeShare { bytes, pct })
                .collect(),
        };
        for (text, want) in [
            ("4k/10:64k/90", split(&[(4096, 10), (65536, 90)])),
            // A share left out takes what the others leave; sizes are sorted.
            ("64k:4k/10", split(&[(4096, 10), (65536, 90)])),
            ("4k:8k:16k", split(&[(4096, 33), (8192, 33), (16384, 34)])),
            ("4k/100", BlockSizes::Fixed { bytes: 4096 }),
            (
                "1k-4k",
                BlockSizes::Range {
                    min: 1024,
                    max: 4096,
                    any_byte: false,
                },
            ),
            ("8k-8k", BlockSizes::Fixed { bytes: 8192 }),
        ] {
            assert_eq!(BlockSizes::parse(text), Ok(want.clone()), "{text}");
            // The text form reads back as the same sizes.
            assert_eq!(BlockSizes::parse(&want.text()), Ok(want), "{text}");
        }
        for (text, why) in [
            ("4k-6k", "MAX must be a multiple of MIN"),
            ("8k-4k", "needs 0 < MIN <= MAX"),
            ("4k/60:8k/50", "add up to 110%"),
            ("4k/50:8k/40", "add up to 90%"),
            ("4k/x", "not a whole percentage"),
        ] {
            let e = BlockSizes::parse(text).unwrap_err();
            assert!(e.contains(why), "{text}: {e}");
        }
        let j = job("--block-sizes 4k/50:64k/50,16k -w 30 f").unwrap();
        assert_eq!(j.shape.block_size, 65536);
        assert_eq!(
            j.shape.block_mix.as_ref().map(|m| &m.write),
            Some(&BlockSizes::Fixed { bytes: 16384 })
        );
        // Random offsets align to the smallest size of the mix.
        assert!(matches!(
            j.shape.pattern,
            Pattern::Random {
                align_bytes: 4096,
                ..
            }
        ));
        // One size for both directions is no mix.
        let j = job("--block-sizes 8k f").unwrap();
        assert_eq!((j.shape.block_size, j.shape.block_mix), (8192, None));
        let j =
            job("--fdatasync 4 --end-fsync --think 1ms --think-every 3 --compressible 25 -w 100 f")
                .unwrap();
        assert_eq!(
            j.per_io.flush,
            Some(FlushEvery {
                writes: 4,
                data_only: true
            })
        );
        assert!(j.per_io.end_fsync);
        assert_eq!(
            j.per_io.think,
            Some(Think {
                ns: 1_000_000,
                spin_ns: 0,
                every: 3
            })
        );
        // Partly compressible data is refreshed per write; all zeros is not.
        assert_eq!(
            j.per_io.buffers,
            BufferFill {
                compress_pct: 25,
                refill: true,
                dedupe: None,
                pattern: None,
            }
        );
        assert!(!job("--compressible 100 f").unwrap().per_io.buffers.refill);
        // --dedupe refreshes every write; --dedupe-working-set asks for its mode.
        let b = job("--dedupe 30 --dedupe-working-set 20 --dedupe-global -w 100 f")
            .unwrap()
            .per_io
            .buffers;
        assert!(b.refill);
        assert_eq!(
            b.dedupe,
            Some(Dedupe {
                pct: 30,
                mode: DedupeMode::WorkingSet { pct: 20 },
                global: true,
                job: 0,
                shared: None,
            })
        );
        let d = job("--dedupe 30 -w 100 f").unwrap().per_io.buffers.dedupe;
        assert_eq!(d.map(|d| d.mode), Some(DedupeMode::Repeat));
        assert_eq!(
            job("--dedupe 0 -w 100 f").unwrap().per_io.buffers.dedupe,
            None
        );
        assert_eq!(job("-Z f").unwrap().per_io.buffers.compress_pct, 100);
        for (line, why) in [
            ("--random-pct 50 -s f", "--random-pct applies to random I/O"),
            (
                "--random-pct 100 f",
                "--random-pct 100 must be between 1 and 99",
            ),
            (
                "--block-sizes 4k-16k -s=32k f",
                "cannot be combined with a --sequential stride",
            ),
            (
                "--think 1ms --think-spin 2ms f",
                "--think-spin must not be longer",
            ),
            (
                "--think 1ms --think-every 0 f",
                "--think-every must be at least 1",
            ),
            ("--fsync 0 f", "--fsync must be at least 1"),
            (
                "--rate-iops 100,50 --rate-bw 1M,2M -w 50 f",
                "--rate-iops and --rate-bw both limit reads",
            ),
            ("--rate-iops , -w 50 f", "give at least one limit"),
            (
                "--rate-iops 100 --rate-bw ,1M -w 50 f",
                "cannot be combined with one limit for both",
            ),
            ("--rate-iops 0,5 -w 50 f", "every limit must be more than 0"),
            (
                "--rate-min 1M,2M --rate-min-iops 100 -w 50 f",
                "--rate-min-iops 100: give it as R,W too",
            ),
            ("--rate-min , -w 50 f", "--rate-min needs a rate above 0"),
            (
                "--rate-bw ,50K --rate-min 100K,100K -w 50 f",
                "the floor for writes is above their rate limit",
            ),
            (
                "--rate-iops 100 --rate-min-iops 200 f",
                "the floor for I/Os is above their rate limit",
            ),
            (
                "--distribution zoned:50/10:40/10 f",
                "--distribution zoned:50/10:40/10: the I/O shares add up to 90%, not 100%",
            ),
            (
                "--distribution zoned_abs:50/rest:50/1G f",
                "only the last zone may span the rest",
            ),
            (
                "--file-set 2 a b c",
                "--file-set 2: the 3 targets must split into sets of 2 or more files",
            ),
            ("--file-set all f", "sets of 2 or more files"),
            (
                "--file-set all --file-service slots -o 3 a b",
                "queue depth 3 does not split evenly over 2 files",
            ),
            (
                "--file-set all --file-service zigzag a b",
                "--file-service 'zigzag' is not roundrobin[:N], random[:N], sequential or slots",
            ),
            (
                "--file-set all --file-service random:0 a b",
                "'0' in 'random:0' is not a count of I/Os above 0",
            ),
            (
                "--fsync 4 --hipri --cache direct f",
                "polled io_uring rings cannot flush",
            ),
            (
                "--compressible 101 f",
                "--compressible 101 is not in 0..100",
            ),
            ("--dedupe 101 -w 100 f", "--dedupe 101 is not in 0..100"),
            (
                "--dedupe 60 --dedupe-working-set 50 -w 100 f",
                "--dedupe-working-set 50 and --dedupe 60 add up to more than 100",
            ),
            (
                "--dedupe 10 --dedupe-mode repeat --dedupe-working-set 5 -w 100 f",
                "--dedupe-working-set applies to --dedupe-mode working-set, not repeat",
            ),
            (
                "--dedupe 10 --dedupe-global -w 100 f",
                "--dedupe-global applies to --dedupe-mode working-set",
            ),
            (
                "--dedupe 10 --verify -w 100 f",
                "--dedupe cannot be combined with --verify",
            ),
            (
                "--thread-start 4k -r f",
                "--thread-start applies to sequential I/O",
            ),
            ("--thread-start 4k --interlocked f", "not --interlocked"),
            (
                "--thread-start 1000 -s f",
                "--thread-start 1000 is not a multiple of 512",
            ),
            ("--rate-min-iops 0 f", "--rate-min needs a rate above 0"),
            (
                "--random-every 4 -s f",
                "--random-every applies to random I/O",
            ),
            ("--random-every 1 f", "--random-every 1 must be at least 2"),
            (
                "--block-sizes 4k/50:1000/50 -s --cache direct f",
                "--block-sizes 1000 is not a multiple of 512",
            ),
        ] {
            let e = job(line).unwrap_err().to_string();
            assert!(e.contains(why), "{line}: {e}");
        }
    }

    #[test]
    fn defaults() {
        let j = job("f").unwrap();
        assert_eq!(j.shape.block_size, 4096);
        assert_eq!(j.queue_depth, 32);
        assert_eq!(j.cache, CacheMode::Direct);
        assert_eq!(
            j.shape.pattern,
            Pattern::Random {
                align_bytes: 4096,
                distribution: Distribution::Uniform
            }
        );
        assert_eq!(j.timing.stop, Stop::Duration { ns: 10_000_000_000 });
    }

    #[test]
    fn diskspd_and_long_forms_agree() {
        let a = job("-b8k -t4 -o16 -r4k -w30 -d5 -W2 -C1 -Sh f").unwrap();
        let b = job(
            "--block-size 8K --threads 4 --queue-depth 16 --random=4k --write-pct 30 \
                     --duration 5 --warmup 2 --cooldown 1 --cache direct-writethrough f",
        )
        .unwrap();
        assert_eq!(a, b);
        let s = job("-si -Sw f").unwrap();
        assert_eq!(
            job("-s8k -si f").unwrap().shape.pattern,
            Pattern::Sequential {
                stride_bytes: 8192,
                interlocked: true,
                backwards: false,
            }
        );
        assert_eq!(
            s.shape.pattern,
            Pattern::Sequential {
                stride_bytes: 4096,
                interlocked: true,
                backwards: false,
            }
        );
        assert_eq!(s.cache, CacheMode::WriteThrough);
        assert_eq!(job("-Sb f").unwrap().cache, CacheMode::Buffered);
        assert_eq!(job("-Sr f").unwrap().cache, CacheMode::Direct);
        assert_eq!(job("--engine sync f").unwrap().queue_depth, 1);
    }

    #[test]
    fn zones_and_numa_from_flags() {
        let z = job("-c 64M -s --zones 1M:8M f")
            .unwrap()
            .shape
            .zones
            .unwrap();
        assert_eq!((z.size, z.skip, z.range), (1 << 20, 8 << 20, 1 << 20));
        let z = job("-c 64M -s --zones 3M:8M:2M f")
            .unwrap()
            .shape
            .zones
            .unwrap();
        assert_eq!((z.size, z.skip, z.range), (3 << 20, 8 << 20, 2 << 20));
        let e = job("-c 64M --zones 1M:x f").unwrap_err().to_string();
        assert!(e.contains("invalid value '1M:x' for --zones"), "{e}");
        assert!(job("-c 64M -r --zones 1M f").unwrap().shape.zones.is_some());
        let e = job("-c 64M -r --distribution zipf:1.1 --zones 1M f")
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("--zones: zones are walked by sequential I/O"),
            "{e}"
        );
        let z = job("-c 64M -r -w 100 --zbd 1M:768K --max-open-zones 8:2 --zone-reset 0.5:0.1 f")
            .unwrap()
            .shape
            .zbd
            .unwrap();
        assert_eq!(
            (z.size, z.capacity, z.max_open, z.thread_max_open),
            (1 << 20, 768 << 10, 8, 2)
        );
        assert_eq!((z.reset_threshold, z.reset_frequency), (0.5, 0.1));
        let e = job("-c 64M --read-beyond-wp f").unwrap_err().to_string();
        assert_eq!(e, "--read-beyond-wp needs --zbd SIZE");
        let e = job("-c 64M --zbd 1M --max-open-zones x f")
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("invalid value 'x' for --max-open-zones"),
            "{e}"
        );
        let e = job("-c 64M --zbd 1M --zone-reset 2:1 f")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("invalid value '2:1' for --zone-reset"), "{e}");
        let e = job("-c 64M --zbd 256 f").unwrap_err().to_string();
        assert_eq!(e, "--zbd: a zone must be at least 512 bytes");
        let n = job("-c 64M --numa-nodes 0 --numa-mem local f")
            .unwrap()
            .numa
            .unwrap();
        assert_eq!(n.memory.unwrap().text(), "local");
        let e = job("-c 64M --numa-mem prefer f").unwrap_err().to_string();
        assert!(e.contains("invalid value 'prefer' for --numa-mem"), "{e}");
    }

    #[test]
    fn latency_mode_delay_and_affinity() {
        let j = job("-L --engine delay --delay lognormal:1ms:0.5 -a f").unwrap();
        assert!(j.latency);
        assert_eq!(
            j.engine.delay,
            Some(DelayDist::Lognormal {
                median_ns: 1_000_000,
                sigma: 0.5
            })
        );
        assert_eq!(j.affinity, Some(Affinity::Auto));
        assert_eq!(
            job("-a0,2 f").unwrap().affinity,
            Some(Affinity::Cpus { cpus: vec![0, 2] })
        );
        assert_eq!(
            job("--engine delay --delay uniform:100us:300us f")
                .unwrap()
                .engine
                .delay,
            Some(DelayDist::Uniform {
                min_ns: 100_000,
                max_ns: 300_000
            })
        );
        assert!(!job("f").unwrap().latency, "IOPS mode by default");
        assert!(job("f").unwrap().engine.register);
    }

    #[test]
    fn distributions() {
        let j = job("--distribution zipf:1.2 f").unwrap();
        assert_eq!(
            j.shape.pattern,
            Pattern::Random {
                align_bytes: 4096,
                distribution: Distribution::Zipf { theta: 1.2 }
            }
        );
        for bad in [
            "zipf",
            "zipf:x",
            "zipf:0",
            "pareto:1.5",
            "normal",
            "uniform:3",
        ] {
            let e = job(&format!("--distribution {bad} f"))
                .unwrap_err()
                .to_string();
            assert!(e.contains("--distribution"), "{bad}: {e}");
        }
    }

    #[test]
    fn bad_values_are_reported_in_turn() {
        // clap reads -t first; the block size is checked first.
        let e = job("-t x -b 4q f").unwrap_err().to_string();
        assert!(e.starts_with("invalid size for --block-size: '4q'"), "{e}");
        // A value nothing reads is not an error.
        assert!(job("--rate-min-window x f").is_ok());
    }

    #[test]
    #[cfg_attr(
        not(target_os = "linux"),
        ignore = "io_uring's ring limit (Linux) is the default engine's there"
    )]
    fn bad_values_name_their_flag() {
        let cases = [
            ("-b 4q f", "--block-size"),
            ("-b 0 f", "--block-size"),
            ("-t 0 f", "--threads"),
            ("-t x f", "--threads"),
            ("-o 0 f", "--queue-depth"),
            // The io_uring ring's limit (IORING_MAX_ENTRIES), for the default engine too.
            (
                "-o 32769 f",
                "--queue-depth 32769 is more than the io_uring engine (the default)",
            ),
            (
                "-o 40000 --engine io_uring f",
                "--queue-depth 40000 is more than the io_uring engine can queue: at most 32768",
            ),
            ("-w 101 f", "--write-pct"),
            ("-d abc f", "--duration"),
            ("-d 0 f", "--duration"),
            ("-B 8k -f 4k f", "--max-offset"),
            ("-B 0 -f 2k -b 4k --cache buffered f", "--block-size"),
            ("-b 1000 f", "--block-size"),
            ("-b 4k -B 100 f", "--base-offset"),
            ("--cache fast f", "--cache"),
            ("-Sx f", "-Sx"),
            ("--cache direct -Su f", "-S"),
            ("--rate-iops 0 f", "--rate-iops"),
            ("--total 1k f", "--total"),
            ("--total 1M -C 1 f", "--cooldown"),
            ("-r -si f", "--interlocked"),
            ("-c 0 f", "--create"),
            ("f f", "twice"),
            ("--interval 5 f", "--interval"),
            ("-o 4 --submit-batch 8 f", "--submit-batch"),
            ("--engine delay f", "--delay"),
            ("--engine delay --delay fixed:1 f", "--delay"),
            ("--engine delay --delay uniform:2ms:1ms f", "--delay"),
            ("--engine delay --delay lognormal:1ms:x f", "--delay"),
            ("--delay fixed:1ms f", "--engine delay"),
            ("--engine filecreate -r f", "--random"),
            ("--engine filecreate -t 2 f", "--threads"),
            ("--engine filestat --cache direct f", "--cache"),
            ("--engine filedelete --fsync 2 -w 100 f", "--fsync"),
            ("--engine filecreate --total 1M f", "--total"),
            ("--engine filestat -W 1 f", "--warmup"),
            ("--engine filestat -w 50 f", "--write-pct"),
            ("--engine filestat --rate-bw 1M f", "--rate-bw"),
            (
                "--engine filecreate --file-set all --file-service random a b",
                "--file-service",
            ),
            ("--engine sync --sqpoll f", "--sqpoll"),
            ("--hipri --cache buffered f", "--hipri"),
            ("--affinity=0,x f", "--affinity"),
        ];
        for (line, culprit) in cases {
            let e = job(line).unwrap_err();
            assert_eq!(e.exit_code(), 2, "{line}");
            assert!(e.to_string().contains(culprit), "{line}: {e}");
            assert!(
                !e.to_string().contains('\n'),
                "{line}: one line please: {e}"
            );
        }
    }
}
