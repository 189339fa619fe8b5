//! `iogauge mdtest`: an mdtest command line (spec/mdtest.rs), its phases run on this rank
//! and fenced with the others (fs_suite/mdtest.rs), mdtest's rate table printed by rank 0
//! (report/mdtest.rs).

use iogauge::cluster::Place;
use iogauge::context::ranks::Opened;
use iogauge::context::{Context, Outputs};
use iogauge::error::{exit, Error, Result};
use iogauge::fs_suite::mdtest::{self, Ranked};
use iogauge::spec::mdtest as spec;

pub fn cmd_mdtest(args: &[String], argv: Vec<String>) -> Result<u8> {
    if args.iter().any(|a| a == "-h" || a == "--help") {
        return help();
    }
    if let Some(a) = args.iter().find(|a| a.starts_with("--")) {
        return Err(Error::usage(format!(
            "{a}: not an option of iogauge mdtest (mdtest's options are -x)"
        )));
    }
    // Every rank reads the line: no rank goes on unless all can.
    let checked = |_: Option<&Place>| spec::parse(args);
    let (mut ctx, m) = match Context::open_ranked(Outputs::unsaved(true), checked)? {
        Opened::Ready(ctx, m) => (ctx, m),
        Opened::Ended(code) => return Ok(code),
    };
    let team = ctx.team();
    let (rank, size) = team.map_or((0, 1), |c| (c.place().rank, c.place().size));
    let ranked = Ranked {
        rank,
        size,
        team,
        stop: ctx.interrupted(),
    };
    let result = match mdtest::run(&m, &ranked) {
        Ok(r) => r,
        // Each rank says its own error; those that only saw another's fail stay quiet.
        Err(e) if team.is_some() && e.to_string().contains("another rank") => {
            return Ok(e.exit_code())
        }
        Err(e) => return Err(e),
    };
    if rank != 0 {
        return Ok(exit::OK);
    }
    let mut text = String::new();
    for n in &m.notes {
        text.push_str(&format!("NOTE: {n}\n"));
    }
    text.push_str(&iogauge::report::mdtest::text(
        &result, &argv, m.files, m.dirs,
    ));
    ctx.write(&text)?;
    Ok(exit::OK)
}

fn help() -> Result<u8> {
    use clap::CommandFactory;
    let mut cmd = iogauge::cli::Cli::command();
    let sub = cmd
        .find_subcommand_mut("mdtest")
        .expect("the mdtest command exists");
    let mut sub = sub.clone().bin_name("iogauge mdtest");
    super::write_output("-", &sub.render_long_help().to_string())?;
    Ok(exit::OK)
}
