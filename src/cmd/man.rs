//! `iogauge man DIR`: a man page for iogauge and one for each command, from the CLI's
//! definition.

use iogauge::cli::{Cli, ManArgs};
use iogauge::error::{exit, Error};

pub fn cmd_man(m: &ManArgs) -> Result<u8, Error> {
    use clap::CommandFactory;
    let fail = |e: std::io::Error| {
        Error::runtime(format!(
            "cannot write man pages to '{}': {e}",
            m.dir.display()
        ))
    };
    std::fs::create_dir_all(&m.dir).map_err(fail)?;
    let cmd = Cli::command();
    let mut pages = vec![("iogauge".to_string(), cmd.clone())];
    for sub in cmd.get_subcommands() {
        pages.push((format!("iogauge-{}", sub.get_name()), sub.clone()));
    }
    for (name, c) in pages {
        let mut buf = Vec::new();
        clap_mangen::Man::new(c)
            .title(name.clone())
            .render(&mut buf)
            .map_err(fail)?;
        std::fs::write(m.dir.join(format!("{name}.1")), buf).map_err(fail)?;
    }
    Ok(exit::OK)
}
