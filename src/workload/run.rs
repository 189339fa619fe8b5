//! Running a workload: the source surveyed and the target claimed ([`super::setup`],
//! untimed), then each repetition runs every step in order ([`super::step`]), and where asked
//! the system's tool does the same step on the same input, before iogauge's turn in odd
//! repetitions and after it in even ones, so that neither always meets the caches the other
//! left.
//!
//! Everything made goes in the target under a new name and is removed (identity checked)
//! when the repetition ends, on an error and on Ctrl-C; `--keep` keeps the last repetition's.

use super::made::Made;
use super::setup::{self, Input};
use super::step::{empty_caches, ready_input, run_step, Ctx};
use super::tools::{self, ToolOutput};
use super::{Params, Step, StepResult, ToolResult, WorkloadResult, SCHEMA_NAME, SCHEMA_VERSION};
use crate::cluster::team::go_on;
use crate::cluster::{Cluster, Place};
use crate::context::{Context, Suite};
use crate::error::{Error, Result};
use crate::os::cache::CacheDrop;
use crate::result::Header;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

/// Where a workload works.
#[derive(Debug, Clone)]
pub struct Options {
    pub source: PathBuf,
    pub target: Option<PathBuf>,
    /// Work in a target that holds other things (never writing over any of them).
    pub force: bool,
    /// Keep what the last repetition made (and, after an error, what was made).
    pub keep: bool,
}

/// A workload as the context runs it.
pub struct Workload {
    pub params: Params,
    pub opts: Options,
}

impl Suite for Workload {
    type Result = WorkloadResult;

    fn run(&self, argv: Vec<String>, ctx: &mut Context) -> Result<WorkloadResult> {
        let line = ctx.line();
        let stop = ctx.interrupted();
        run(
            &self.params,
            &self.opts,
            argv,
            stop,
            &|l| line.show(l),
            ctx.team(),
        )
    }

    fn combine(parts: Vec<(Place, WorkloadResult)>) -> WorkloadResult {
        super::ranks::combine(parts)
    }
}

/// Run the workload `params` on `opts`' source and target. Errors before anything is measured
/// are returned; an error or Ctrl-C after is kept in the result (`partial`, `stop_message`).
/// In a `team` (the ranks of an MPI job, each with a target of its own), every step starts
/// together on every rank, and where one rank's step fails every rank stops after it.
pub fn run(
    params: &Params,
    opts: &Options,
    argv: Vec<String>,
    stop: &AtomicBool,
    progress: &(dyn Fn(&str) + Sync),
    team: Option<&dyn Cluster>,
) -> Result<WorkloadResult> {
    params.validate()?;
    let source = setup::source_of(&opts.source)?;
    setup::check_chain(&params.steps, &source, &opts.source)?;
    let mut settled = params.clone();
    setup::settle(&mut settled.steps, &source);
    let params = &settled;
    let target = target_of(params, opts)?;
    let started_unix_ns = crate::dates::now_unix_ns();
    let mut top = Made::new();
    if let Some(t) = &target {
        setup::claim_target(t, opts.force, &mut top)?;
    }
    // An error from here on removes the target iogauge made, unless kept.
    top.keep = opts.keep;
    let surveyed = setup::survey_source(&source, stop)?;
    let target_place = target.as_deref().map(setup::place_of_target);
    let (reference, hashed) =
        setup::reference_of(params, &source, surveyed.manifest, stop, progress)?;
    let ctx = Ctx {
        params,
        target,
        cache: CacheDrop::choose(params.drop_caches),
        reference,
        survey: surveyed.survey,
        source,
        stop,
        progress,
        notes: Mutex::new(Vec::new()),
    };
    ctx.note(ctx.cache.describe());
    if let Some(n) = hashed {
        ctx.note(n);
    }
    let mut steps: Vec<StepResult> = params
        .steps
        .iter()
        .map(|s| StepResult {
            step: s.clone(),
            label: s.label(),
            reps: Vec::new(),
            summary: None,
            tool: None,
        })
        .collect();
    let (partial, stop_message) = match repetitions(&ctx, &mut steps, opts.keep, team) {
        Ok(()) => (false, None),
        // An error that the stop caused (a read cut short) is the stop.
        Err(Error::Interrupted(_)) => (true, Some("interrupted".to_string())),
        Err(_) if stop.load(Ordering::Relaxed) => (true, Some("interrupted".to_string())),
        Err(e) => (true, Some(e.to_string())),
    };
    drop(top);
    let mut r = WorkloadResult {
        header: Header::new(SCHEMA_NAME, SCHEMA_VERSION, started_unix_ns, argv),
        params: params.clone(),
        source: surveyed.place,
        target: target_place,
        cache_drop: ctx.cache,
        steps,
        partial,
        stop_message,
        notes: ctx.notes.into_inner().unwrap_or_else(|p| p.into_inner()),
        ranks: None,
    };
    r.summarize();
    Ok(r)
}

/// The target, resolved: needed by a step that writes, never inside the source.
fn target_of(params: &Params, opts: &Options) -> Result<Option<PathBuf>> {
    let Some(t) = &opts.target else {
        return match params.steps.iter().find(|s| s.kind.writes()) {
            Some(w) => Err(Error::usage(format!(
                "{} writes: give --target DIR, a folder on the file system to measure (new, or \
                 empty unless --force)",
                w.kind.name()
            ))),
            None => Ok(None),
        };
    };
    setup::check_apart(&opts.source, t).map(Some)
}

/// Every repetition of every step; an error stops them, with what was done kept in `steps`.
fn repetitions(
    ctx: &Ctx,
    steps: &mut [StepResult],
    keep: bool,
    team: Option<&dyn Cluster>,
) -> Result<()> {
    let reps = ctx.params.repeat;
    for rep in 0..reps {
        let mut made = Made::new();
        // The last repetition's outputs stay with --keep; after an error, all of them do.
        made.keep = keep;
        let mut input = ctx.source.clone();
        for (i, step) in ctx.params.steps.iter().enumerate() {
            // The tool's input is made before iogauge's turn, which may remove its own.
            let tool_input = match tool_wanted(ctx, step, &mut steps[i]) {
                true => Some(ready_input(ctx, i, step, &input, &mut made, "tool-")?),
                false => None,
            };
            let tool_first = rep % 2 == 1;
            if let (true, Some(ti)) = (tool_first, &tool_input) {
                run_tool(ctx, i, step, ti, &mut made, &mut steps[i]);
            }
            let next = in_step(ctx, team, |start| {
                run_step(
                    ctx,
                    (i, rep),
                    step,
                    &input,
                    &mut made,
                    &mut steps[i].reps,
                    start,
                )
            })?;
            if let (false, Some(ti)) = (tool_first, &tool_input) {
                run_tool(ctx, i, step, ti, &mut made, &mut steps[i]);
            }
            if let Some(ti) = tool_input {
                if ti.path() != input.path() {
                    made.remove(ti.path());
                }
            }
            input = next.unwrap_or(input);
        }
        made.keep = keep && rep + 1 == reps;
    }
    Ok(())
}

/// One step, between the other ranks' (alone: just the step): every rank meets the others
/// at its start (`work` calls `start` once its input is ready and the caches are emptied;
/// after a failure before that, this does), and after it, where every rank learns whether any
/// failed; then all stop.
fn in_step<T>(
    ctx: &Ctx,
    team: Option<&dyn Cluster>,
    work: impl FnOnce(&mut dyn FnMut() -> bool) -> Result<T>,
) -> Result<T> {
    let mut met = false;
    let r = work(&mut || {
        met = true;
        team.is_none_or(|c| c.fence(ctx.stop))
    });
    if let (false, Some(c)) = (met, team) {
        c.fence(ctx.stop);
    }
    match (go_on(team, r.is_err(), ctx.stop), r) {
        (false, Ok(_)) => Err(Error::runtime(super::ranks::OTHER_RANK_STOPPED)),
        (_, r) => r,
    }
}

/// Whether the system's tool is to do this step too: asked, installed, and not failed before.
fn tool_wanted(ctx: &Ctx, step: &Step, result: &mut StepResult) -> bool {
    if !ctx.params.compare_with_tools || result.tool.as_ref().is_some_and(|t| t.not_run.is_some()) {
        return false;
    }
    let probe = tools::tool_for(step, Path::new("/"), step.format(), Path::new("/"));
    match probe.missing() {
        Some(why) => {
            result.tool = Some(tool_result(probe.name.clone(), String::new(), Some(why)));
            false
        }
        None => true,
    }
}

fn tool_result(tool: String, command: String, not_run: Option<String>) -> ToolResult {
    ToolResult {
        tool,
        command,
        elapsed_ns: Vec::new(),
        min_ns: None,
        median_ns: None,
        speed_ratio: None,
        not_run,
    }
}

/// The system's tool on step `i`'s input, made ready for it (caches emptied first); what it
/// made (or the copy it removed) goes at once.
fn run_tool(
    ctx: &Ctx,
    i: usize,
    step: &Step,
    input: &Input,
    made: &mut Made,
    result: &mut StepResult,
) {
    if ctx.stop.load(Ordering::Relaxed) {
        return;
    }
    let format = match input {
        Input::Archive(_, f) => *f,
        Input::Tree(_) => step.format(),
    };
    let out = match tools::output_of(step.kind) {
        ToolOutput::Nothing | ToolOutput::Removes => Ok(input.path().to_path_buf()),
        ToolOutput::Folder | ToolOutput::ArchiveIn => {
            let o = ctx.out_name(i, &format!("tool-{}", step.kind.name()));
            made.folder_whole(&o).map(|()| o)
        }
    };
    let r = out.and_then(|out| {
        let tool = tools::tool_for(step, input.path(), format, &out);
        let r = empty_caches(ctx, input).and_then(|_| {
            (ctx.progress)(&format!("running {}", tool.line()));
            tool.run().map_err(Error::runtime)
        });
        if tools::output_of(step.kind) != ToolOutput::Nothing {
            made.remove(&out);
        }
        r.map(|ns| (tool, ns))
    });
    match r {
        Ok((tool, ns)) => result
            .tool
            .get_or_insert_with(|| tool_result(tool.name.clone(), tool.line(), None))
            .elapsed_ns
            .push(ns),
        Err(e) => {
            let name = tools::tool_for(step, input.path(), format, input.path()).name;
            let t = result
                .tool
                .get_or_insert_with(|| tool_result(name, String::new(), None));
            t.not_run = Some(e.to_string());
        }
    }
}
