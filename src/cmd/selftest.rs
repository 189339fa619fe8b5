//! `iogauge selftest`: check iogauge's own timing on this machine, and say whether it passed.

use iogauge::cli::{OutputFormat, SelftestArgs};
use iogauge::error::{exit, Error};
use iogauge::report::{json::Json, Exporter, Subject};

pub fn cmd_selftest(args: &SelftestArgs) -> Result<u8, Error> {
    if !(args.seconds > 0.0 && args.seconds <= 600.0) {
        return Err(Error::usage(format!(
            "--seconds {} must be between 0 and 600",
            args.seconds
        )));
    }
    if !args.dir.is_dir() {
        return Err(Error::usage(format!(
            "--dir '{}' is not a folder",
            args.dir.display()
        )));
    }
    Subject::Selftest.check(args.output)?;
    let mut ctx = super::unsaved()?;
    let st = iogauge::selftest::run(&args.dir, args.seconds, ctx.interrupted())?;
    let text = match args.output {
        OutputFormat::Json => Json.render(&st),
        // The others were refused above.
        _ => st.text(),
    };
    ctx.write(&text)?;
    Ok(if st.passed() { exit::OK } else { exit::FAILURE })
}
