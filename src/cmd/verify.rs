//! `iogauge verify TARGET`: a target written with `--verify --keep`, read back against the
//! state its run saved. A unit may hold any generation from the state's on (writes after the
//! last checkpoint may or may not have reached the device), never an older one, a torn one or
//! another's.

use iogauge::cli::VerifyArgs;
use iogauge::error::{exit, Error, Result};
use iogauge::report::OutputFormat;
use iogauge::verify::map::GenMap;
use iogauge::verify::pass::{read_back, PassOpts, PassResult, PassTarget};
use iogauge::verify::{state, Log, Mismatch};
use serde::Serialize;
use std::fs::File;

/// What `iogauge verify` found.
#[derive(Debug, Serialize)]
struct Checked {
    target: String,
    state: String,
    saved_unix_ns: u64,
    unit: u64,
    units: u64,
    ok: bool,
    pass: PassResult,
    mismatches: Vec<Mismatch>,
}

pub fn cmd_verify(a: &VerifyArgs) -> Result<u8> {
    if !matches!(a.output, OutputFormat::Text | OutputFormat::Json) {
        return Err(Error::usage("iogauge verify writes text or json"));
    }
    let state_path = match &a.state {
        Some(s) => s.clone(),
        None => iogauge::verify::state_path(&Default::default(), &a.target, 1, 0),
    };
    if let Some(dump) = &a.dump {
        iogauge::verify::check_dump("--dump", dump)?;
    }
    let (meta, gens) = state::load(&state_path)?;
    let shown = a.target.display();
    let file =
        File::open(&a.target).map_err(|e| Error::usage(format!("cannot open '{shown}': {e}")))?;
    meta.check_target(&state_path, &a.target, &file)?;
    // What the device holds, not what this machine's page cache may still hold of it.
    let _ = iogauge::os::cache::drop_file(&file);
    let map = GenMap::new(meta.units, meta.unit).map_err(Error::runtime)?;
    for (u, g) in gens.into_iter().enumerate() {
        map.set(u as u64, g);
    }
    let threads = match a.threads {
        Some(0) => return Err(Error::usage("--threads 0: at least one thread")),
        Some(n) => n,
        None => iogauge::os::threads::default_threads(),
    };
    let t = PassTarget {
        file: &file,
        path: a.target.display().to_string(),
        map: &map,
        origin: meta.origin,
        id: meta.id,
        seed: meta.seed,
    };
    let o = PassOpts {
        compress_pct: meta.compress_pct,
        threads,
        at_least: true,
        during: "verify",
        dump: a.dump.clone(),
    };
    let log = Log::default();
    let mut ctx = super::unsaved()?;
    let pass = read_back(&[t], &o, &log, ctx.interrupted())?;
    let mismatches = log
        .mismatches
        .into_inner()
        .unwrap_or_else(|p| p.into_inner());
    let c = Checked {
        target: a.target.display().to_string(),
        state: state_path.display().to_string(),
        saved_unix_ns: meta.saved_unix_ns,
        unit: meta.unit,
        units: meta.units,
        ok: pass.mismatches == 0,
        pass,
        mismatches,
    };
    let text = match a.output {
        OutputFormat::Json => serde_json::to_string_pretty(&c).expect("serializes") + "\n",
        _ => text(&c),
    };
    ctx.write(&text)?;
    Ok(if c.ok { exit::OK } else { exit::CHECK_FAILED })
}

fn text(c: &Checked) -> String {
    let p = &c.pass;
    let mut o = format!(
        "{}: {} against its state {} (saved {} UTC)\n",
        c.target,
        if c.ok {
            "every unit there"
        } else {
            "DIFFERENT"
        },
        c.state,
        iogauge::dates::format_utc(c.saved_unix_ns)
    );
    o += &format!(
        "  {} units of {} read back in {:.2} s: {} as saved or newer ({} newer: written after \
         the last checkpoint), {} never written with verification\n",
        p.checked,
        iogauge::units::format_size(c.unit),
        p.elapsed_ns as f64 / 1e9,
        p.checked - p.mismatches,
        p.newer,
        p.unjudged
    );
    if p.mismatches > 0 {
        let kinds: Vec<String> = p.by_kind.iter().map(|(k, v)| format!("{v} {k}")).collect();
        o += &format!("  {} mismatches: {}\n", p.mismatches, kinds.join(", "));
        for m in c.mismatches.iter().take(20) {
            o += &format!("  {}\n", m.line());
        }
    }
    o
}
