//! `iogauge baseline`: name saved runs as baselines for `iogauge check`.

use super::saved::open;
use super::write_output;
use iogauge::cli::{BaselineArgs, BaselineCommand};
use iogauge::dates::format_utc;
use iogauge::error::{exit, Error, Result};
use std::path::PathBuf;

pub fn cmd_baseline(db: &Option<PathBuf>, a: &BaselineArgs) -> Result<u8> {
    let mut store = open(db)?;
    match &a.command {
        BaselineCommand::Save { name, id } => {
            if name.trim().is_empty() {
                return Err(Error::usage("a baseline needs a non-empty name"));
            }
            store.save_baseline(name, *id)?;
            println!("baseline '{name}' is run {id}");
        }
        BaselineCommand::List => {
            let mut g = iogauge::report::table::Grid::new(
                ["baseline", "run", "saved (UTC)"]
                    .map(String::from)
                    .to_vec(),
            );
            for (name, id, at) in store.baselines()? {
                g.push(vec![name, id.to_string(), format_utc(at)]);
            }
            write_output("-", &g.text())?;
        }
        BaselineCommand::Delete { name } => {
            store.delete_baseline(name)?;
            println!("baseline '{name}' deleted (its run stays saved)");
        }
    }
    Ok(exit::OK)
}
