//! `iogauge io500`: IO500's phases (spec/io500.rs) one after another as one run, alone or on
//! every rank of an MPI job: the ior phases through `iogauge ior`'s phase runner, the mdtest
//! phases through fs_suite/mdtest.rs, find through fs_suite/find.rs; rank 0 prints IO500's
//! lines (report/io500.rs). Everything is made inside folders made new for the run, and
//! removed at the end, whichever way the run ends; nothing else is touched.

use iogauge::cluster::{team, Cluster, Place};
use iogauge::context::ranks::Opened;
use iogauge::context::{Context, Outputs};
use iogauge::error::{exit, Error, Result};
use iogauge::fs_suite::find;
use iogauge::fs_suite::mdtest::{self, Op, Ranked};
use iogauge::os::owned::Cleanup;
use iogauge::progress::Progress;
use iogauge::result::io500::{Found, Io500Result, Io500Row};
use iogauge::result::ior::IorRow;
use iogauge::spec::io500::{self, Io500, Phase, Step, PHASES};
use iogauge::spec::mdtest::Mdtest;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

const GIB: f64 = (1u64 << 30) as f64;

pub fn cmd_io500(a: &iogauge::cli::Io500Args, argv: Vec<String>) -> Result<u8> {
    // Every rank reads the configuration and makes every phase: none goes on unless all can.
    let checked = |_: Option<&Place>| {
        let mut cfg = io500::load(&a.target)?;
        if let Some(s) = a.stonewall {
            cfg.stonewall_s = s;
        }
        cfg.check()?;
        Ok(cfg)
    };
    let (mut ctx, cfg) = match Context::open_ranked(Outputs::unsaved(a.quiet), checked)? {
        Opened::Ready(ctx, cfg) => (ctx, cfg),
        Opened::Ended(code) => return Ok(code),
    };
    let team = ctx.team();
    let stop = ctx.interrupted().as_ref();
    let (rank, size) = team.map_or((0, 1), |c| (c.place().rank, c.place().size));
    let folders = match agreed(team, (rank == 0).then(|| make_folders(&cfg)), stop) {
        Ok(f) => f,
        Err(code) => return Ok(code),
    };
    let ranked = Ranked {
        rank,
        size,
        team,
        stop,
    };
    let mut run = Run {
        cfg: &cfg,
        ranked,
        files: Cleanup::new(false),
        progress: Progress::new(a.quiet || rank != 0),
        argv: &argv,
        result: new_result(&cfg, size),
    };
    let outcome = run.all();
    let Run { files, result, .. } = run;
    // Each rank's ior files, then rank 0's folders with all the rest, once every rank is done.
    fence(team, stop);
    drop(files);
    fence(team, stop);
    drop(folders);
    let interrupted = stop.load(Ordering::Relaxed);
    finish(
        &mut ctx,
        rank,
        a.json,
        &result,
        outcome.map_err(|e| (e, interrupted)),
    )
}

/// Rank 0 prints what was done (all of it, or the phases before the one that ended it); a
/// rank that only saw another rank fail says nothing.
fn finish(
    ctx: &mut Context,
    rank: u32,
    json: bool,
    result: &Io500Result,
    outcome: std::result::Result<(), (Error, bool)>,
) -> Result<u8> {
    if rank == 0 {
        let text = match json {
            true => iogauge::report::io500::json(result),
            false => iogauge::report::io500::text(result),
        };
        ctx.write(&text)?;
    }
    match outcome {
        Ok(()) => Ok(exit::OK),
        Err((e, _)) if rank != 0 && e.to_string().contains("another rank") => Ok(e.exit_code()),
        Err((e, true)) => {
            if rank == 0 {
                eprintln!("iogauge: error: {e}");
            }
            Ok(exit::INTERRUPTED)
        }
        Err((e, false)) => Err(e),
    }
}

fn new_result(cfg: &Io500, ranks: u32) -> Io500Result {
    Io500Result {
        ranks,
        config: cfg.described(),
        rows: Vec::new(),
        found: None,
        notes: vec![
            "mdtest-easy-write and mdtest-hard-write make all n files per rank: iogauge \
             mdtest has no stonewall (-W)"
                .into(),
            "find is iogauge's walk with pfind's filter: every rank lists every folder and \
             checks its share of the entries; the score is the files looked at per second"
                .into(),
            "a write phase that ends before stonewall-time counts here (IO500 sizes its runs \
             to pass it); one the stonewall ends early is still read back whole (no \
             stoneWallingStatusFile)"
                .into(),
            "not run: ior-rnd4K-easy-read (unscored), the extended phases, drop-caches".into(),
        ],
        ended_in: None,
    }
}

/// One rank's run: the configuration, this rank's place, the ior files it made (kept from
/// each write to its read), and on rank 0 the rows.
struct Run<'a> {
    cfg: &'a Io500,
    ranked: Ranked<'a>,
    files: Cleanup,
    progress: Progress,
    argv: &'a [String],
    result: Io500Result,
}

impl Run<'_> {
    /// Every phase in IO500's order; the one that fails (or Ctrl-C ends) is named.
    fn all(&mut self) -> Result<()> {
        for p in PHASES {
            if p == Phase::IorHardWrite {
                self.stamp()?;
            }
            let t0 = Instant::now();
            let score = self.phase(p);
            // A phase Ctrl-C cut short scores nothing.
            let score = match self.ranked.stop.load(Ordering::Relaxed) {
                true => Err(Error::Interrupted(format!("interrupted in {}", p.name()))),
                false => score,
            }
            .inspect_err(|_| self.result.ended_in = Some(p.name().to_string()))?;
            if let Some(score) = score {
                self.result.rows.push(Io500Row {
                    phase: p.name().to_string(),
                    score,
                    seconds: t0.elapsed().as_secs_f64(),
                });
            }
        }
        Ok(())
    }

    /// One phase's score (GiB/s or kIOPS) on rank 0; `None` on the others' ior phases.
    fn phase(&mut self, p: Phase) -> Result<Option<f64>> {
        match self.cfg.step(p)? {
            Step::Ior(ior, which) => {
                let job = ior.job(which, self.ranked.size, false)?;
                self.note(&ior.notes);
                let r = super::ior::run_phase(
                    self.ranked.team,
                    &job,
                    self.argv,
                    self.ranked.stop,
                    &mut self.progress,
                    &mut self.files,
                )?;
                Ok(r.map(|r| IorRow::from_run(which.word(), 0, &r).bandwidth() / GIB))
            }
            Step::Mdtest(m) => {
                self.note(&m.notes);
                let r = mdtest::run(&m, &self.ranked)?;
                Ok(Some(r.rates[0][op(&m) as usize] / 1000.0))
            }
            Step::Find(f) => {
                let (found, seconds) = find::run(&f, &self.ranked)?;
                self.result.found = Some(found);
                Ok(Some(files_per_s(found, seconds) / 1000.0))
            }
        }
    }

    /// IO500's timestamp phase: the find looks for files newer than this (rank 0 touches the
    /// file it made with the folders; the others wait for it).
    fn stamp(&mut self) -> Result<()> {
        let path = Path::new(&self.cfg.datadir).join("timestampfile");
        let touched = (self.ranked.rank == 0).then(|| {
            std::fs::File::options()
                .write(true)
                .open(&path)
                .and_then(|f| f.set_modified(std::time::SystemTime::now()))
                .map_err(|e| Error::runtime(format!("cannot touch '{}': {e}", path.display())))
        });
        let Some(c) = self.ranked.team else {
            return touched.unwrap_or(Ok(()));
        };
        // Rank 0 has said why; every rank ends.
        team::agree(c, touched.unwrap_or(Ok(())), self.ranked.stop)
            .map_err(|_| Error::runtime("another rank's timestamp phase failed"))
    }

    /// A phase's notes on how iogauge runs it, once each.
    fn note(&mut self, notes: &[String]) {
        for n in notes {
            if !self.result.notes.contains(n) {
                self.result.notes.push(n.clone());
            }
        }
    }
}

fn files_per_s(f: Found, seconds: f64) -> f64 {
    f.files as f64 / seconds
}

/// The rate of the one operation an IO500 mdtest phase runs (-C, -T, -E or -r, files only).
fn op(m: &Mdtest) -> Op {
    match (m.create, m.stat, m.read) {
        (true, _, _) => Op::FileCreate,
        (_, true, _) => Op::FileStat,
        (_, _, true) => Op::FileRead,
        _ => Op::FileRemove,
    }
}

/// The data folder (made where missing: then it is iogauge's to remove) and IO500's folders
/// in it, which must be new, and the timestamp file. Removed when the `Cleanup` is dropped.
fn make_folders(cfg: &Io500) -> Result<Cleanup> {
    let mut made = Cleanup::new(false);
    let dir = Path::new(&cfg.datadir);
    let shown = |p: &Path| p.display().to_string();
    if !dir.exists() {
        std::fs::create_dir(dir)
            .map_err(|e| Error::usage(format!("datadir: cannot make '{}': {e}", shown(dir))))?;
        made.created_named(dir)?;
    }
    for name in io500::MADE {
        let p = dir.join(name);
        let new = match name {
            "timestampfile" => std::fs::File::create_new(&p).map(drop),
            _ => std::fs::create_dir(&p),
        };
        new.map_err(|e| match e.kind() {
            std::io::ErrorKind::AlreadyExists => Error::usage(format!(
                "datadir: '{}' exists; iogauge io500 makes it new (remove it, or give another \
                 datadir)",
                shown(&p)
            )),
            _ => Error::usage(format!("datadir: cannot make '{}': {e}", shown(&p))),
        })?;
        made.created_named(&p)?;
    }
    Ok(made)
}

/// Go on together: rank 0's `work` (None elsewhere) agreed by every rank; the exit status
/// where it failed (rank 0 has said why).
fn agreed<T: Default>(
    team: Option<&dyn Cluster>,
    work: Option<Result<T>>,
    stop: &AtomicBool,
) -> std::result::Result<T, u8> {
    let mine = work.unwrap_or_else(|| Ok(T::default()));
    match team {
        Some(c) => team::agree(c, mine, stop),
        None => mine.map_err(|e| {
            eprintln!("iogauge: error: {e}");
            e.exit_code()
        }),
    }
}

fn fence(team: Option<&dyn Cluster>, stop: &AtomicBool) {
    if let Some(c) = team {
        c.fence(stop);
    }
}
