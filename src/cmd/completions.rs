//! `iogauge completions SHELL`: the shell's completion script, from the CLI's definition.

use super::write_output;
use iogauge::cli::{Cli, CompletionsArgs};
use iogauge::error::{exit, Error};

pub fn cmd_completions(c: &CompletionsArgs) -> Result<u8, Error> {
    use clap::CommandFactory;
    let mut cmd = Cli::command();
    let mut buf = Vec::new();
    clap_complete::generate(c.shell, &mut cmd, "iogauge", &mut buf);
    write_output("-", &String::from_utf8_lossy(&buf))?;
    Ok(exit::OK)
}
