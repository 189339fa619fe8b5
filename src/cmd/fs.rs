//! `iogauge fs`: flags to the suite's parameters, then run, report and save.

use super::interrupt_flag;
use super::saved::Saver;
use iogauge::cli::FsArgs;
use iogauge::error::{exit, Error, Result};
use iogauge::fs_suite::{self, FsResult, Params};
use iogauge::report::Subject;
use iogauge::store::record::Record;
use iogauge::units::parse_size;
use std::io::IsTerminal;
use std::path::PathBuf;

pub fn cmd_fs(db: &Option<PathBuf>, a: &FsArgs, argv: Vec<String>) -> Result<u8> {
    let exporter = Subject::Fs.exporter::<FsResult>(a.output)?;
    let tests = fs_suite::select_tests(&a.tests)?;
    let file_size = parse_size(&a.file_size).map_err(|e| {
        Error::usage(format!(
            "invalid value '{}' for --file-size: {e}",
            a.file_size
        ))
    })?;
    let params = Params {
        files: a.files,
        file_size,
        iterations: a.iterations,
        threads: a.threads,
        repeat: a.repeat,
        tests: tests.iter().map(|t| t.name().to_string()).collect(),
        drop_caches: !a.no_drop_caches,
        page_size: iogauge::os::page_size(),
    };
    params.validate()?;
    let targets = fs_suite::targets(&a.dirs)?;
    let reference = fs_suite::reference_of(&targets, a.reference.as_deref())?;
    // The output file and the database are opened before anything is measured: a bad
    // --output-file or --db costs nothing.
    let mut sink = iogauge::report::sink::Sink::open(&a.output_file, "--output-file")?;
    let mut saver = Saver::new(db, &a.save, a.quiet)?;
    let interrupted = interrupt_flag()?;
    let live = !a.quiet && std::io::stderr().is_terminal();
    let mut progress = |line: &str| {
        if live {
            eprint!("\r\x1b[K{line}");
        }
    };
    let result = fs_suite::run(
        &targets,
        reference,
        &tests,
        &params,
        argv,
        &interrupted,
        &mut progress,
    );
    if live {
        eprint!("\r\x1b[K");
    }
    let result = result?;
    sink.write(&exporter.render(&result))?;
    let failures = result.failures();
    let partial = result.partial;
    let measured = result
        .tests
        .iter()
        .any(|t| t.cells.iter().any(|c| !c.elapsed_ns.is_empty()));
    if measured {
        saver.save(&Record::Fs(Box::new(result)))?;
    }
    if partial {
        eprintln!("iogauge: interrupted; the results above are partial");
        return Ok(exit::INTERRUPTED);
    }
    if !failures.is_empty() {
        eprintln!(
            "iogauge: error: {} test{} failed: {}",
            failures.len(),
            if failures.len() == 1 { "" } else { "s" },
            failures.join("; ")
        );
        return Ok(exit::FAILURE);
    }
    Ok(exit::OK)
}
