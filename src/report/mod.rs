//! Reports: one file per format, each rendering a finished result; none of them measures or
//! changes anything.
//!
//! Every format is an [`Exporter`] of the results it applies to, and this file is the one
//! place that says which formats exist for which kind of result: the `--output` formats of
//! each [`Subject`], fio's `--output-format` ([`FioFormat`]) and DiskSpd's text or XML
//! ([`diskspd_exporter`], [`diskspd_profile_exporter`]). Front ends ask before they measure,
//! so a refused format costs nothing, and every refusal is worded here.

pub mod charts;
pub mod compare;
pub mod csv;
pub mod dataset;
pub mod diskspd_profile;
pub mod diskspd_system;
pub mod diskspd_xml;
pub mod fio;
pub mod fs;
#[cfg(test)]
mod golden;
pub mod html;
pub mod io500;
pub mod ior;
pub mod iozone;
pub mod json;
mod markup;
pub mod mdtest;
pub mod sink;
pub mod sweep;
pub mod table;
pub mod text;
pub mod workload;
mod xml;

use crate::error::Error;
use crate::result::fs::FsResult;
use crate::result::profile::ProfileResult;
use crate::result::sweep::SweepResult;
use crate::result::RunResult;
use crate::spec::diskspd::Diskspd;

/// The output formats a report can be written in (`--output`).
#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputFormat {
    Text,
    Json,
    Csv,
    /// fio's `--output-format=json` shape, for scripts written for fio (runs only).
    #[value(name = "fio-json")]
    FioJson,
}

/// One format of one kind of result (a run unless it says otherwise).
pub trait Exporter<R: ?Sized = RunResult> {
    fn render(&self, result: &R) -> String;

    /// Whether the report lists the run's warnings itself, as the text reports do. Where it
    /// does not (they are data in JSON, or absent), the front end says them on stderr.
    fn lists_warnings(&self) -> bool {
        false
    }
}

/// What a report is of, for the `--output` formats: each subject has its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Subject {
    /// One run: `iogauge run`, or a saved run.
    Run,
    /// A profile as it runs (`iogauge profile`, `iogauge quick`).
    Profile,
    /// The file-system suite as it runs (`iogauge fs`).
    Fs,
    /// A sweep as it runs (`iogauge sweep`, `iogauge iozone`).
    Sweep,
    /// `iogauge selftest`.
    Selftest,
    /// `iogauge dataset create` and `verify`.
    Dataset,
    /// A workload as it runs (`iogauge workload`).
    Workload,
    /// The list of saved results (`results list`).
    Listing,
    /// Saved result `id`, a profile or a suite (`results show`, `results export`).
    Saved(i64),
}

impl Subject {
    /// Refuse a format this subject is not written in, saying which it is: the one table.
    pub fn check(self, format: OutputFormat) -> Result<(), Error> {
        use OutputFormat::{Csv, FioJson, Json, Text};
        let refusal = match (self, format) {
            (Subject::Run, _)
            | (_, Text | Json)
            | (Subject::Fs | Subject::Sweep | Subject::Workload | Subject::Saved(_), Csv) => {
                return Ok(())
            }
            (Subject::Profile, _) => {
                "profiles write text or json (iogauge run writes csv and fio-json)".to_string()
            }
            (Subject::Fs, FioJson) => {
                "iogauge fs writes text, json or csv (fio-json is for runs)".into()
            }
            (Subject::Sweep, FioJson) => {
                "iogauge sweep writes text, json or csv (fio-json is for runs)".into()
            }
            (Subject::Workload, FioJson) => {
                "iogauge workload writes text, json or csv (fio-json is for runs)".into()
            }
            (Subject::Selftest, _) => "selftest writes text or json".into(),
            (Subject::Dataset, _) => "iogauge dataset writes text or json".into(),
            (Subject::Listing, _) => "results list writes text or json".into(),
            (Subject::Saved(id), FioJson) => format!(
                "result {id} is not a run: fio-json is written for runs (iogauge run, iogauge fio)"
            ),
        };
        Err(Error::usage(refusal))
    }

    /// The exporter of `format` for this subject's result `R`, or [`Subject::check`]'s
    /// refusal.
    pub fn exporter<R: Formats + ?Sized>(
        self,
        format: OutputFormat,
    ) -> Result<Box<dyn Exporter<R>>, Error> {
        self.check(format)?;
        Ok(R::exporter(format)
            .expect("Subject::check passes only formats the result is written in"))
    }
}

/// A result type and its exporter of each `--output` format it can be written in. Which of
/// them a command offers is [`Subject::check`]'s to say.
pub trait Formats {
    fn exporter(format: OutputFormat) -> Option<Box<dyn Exporter<Self>>>;
}

impl Formats for RunResult {
    fn exporter(format: OutputFormat) -> Option<Box<dyn Exporter<Self>>> {
        Some(match format {
            OutputFormat::Text => Box::new(text::Text),
            OutputFormat::Json => Box::new(json::Json),
            OutputFormat::Csv => Box::new(csv::Csv),
            OutputFormat::FioJson => Box::new(fio::FioJson),
        })
    }
}

impl Formats for ProfileResult {
    fn exporter(format: OutputFormat) -> Option<Box<dyn Exporter<Self>>> {
        match format {
            OutputFormat::Text => Some(Box::new(text::Text)),
            OutputFormat::Json => Some(Box::new(json::Json)),
            OutputFormat::Csv => Some(Box::new(csv::Csv)),
            OutputFormat::FioJson => None,
        }
    }
}

impl Formats for crate::result::dataset::CreateReport {
    fn exporter(format: OutputFormat) -> Option<Box<dyn Exporter<Self>>> {
        match format {
            OutputFormat::Text => Some(Box::new(dataset::Text)),
            OutputFormat::Json => Some(Box::new(json::Json)),
            _ => None,
        }
    }
}

impl Formats for crate::result::dataset::VerifyReport {
    fn exporter(format: OutputFormat) -> Option<Box<dyn Exporter<Self>>> {
        match format {
            OutputFormat::Text => Some(Box::new(dataset::Text)),
            OutputFormat::Json => Some(Box::new(json::Json)),
            _ => None,
        }
    }
}

impl Formats for FsResult {
    fn exporter(format: OutputFormat) -> Option<Box<dyn Exporter<Self>>> {
        match format {
            OutputFormat::Text => Some(Box::new(text::Text)),
            OutputFormat::Json => Some(Box::new(json::Json)),
            OutputFormat::Csv => Some(Box::new(csv::Csv)),
            OutputFormat::FioJson => None,
        }
    }
}

/// `iogauge fio`'s reports, by fio's names for them (`--output-format`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FioFormat {
    Normal,
    Json,
    JsonPlus,
    /// fio's terse lines (`--minimal`), in terse version `version` (`--terse-version`).
    Terse {
        version: u8,
    },
}

/// The terse versions fio 3.33 writes; 3 is its default.
pub const TERSE_VERSIONS: std::ops::RangeInclusive<u32> = 2..=5;

impl FioFormat {
    /// fio's name of a format; "terse" is terse version 3, fio's default, until
    /// [`FioFormat::with_terse_version`] says otherwise.
    pub fn from_name(name: &str) -> Result<FioFormat, Error> {
        match name {
            "normal" => Ok(FioFormat::Normal),
            "json" => Ok(FioFormat::Json),
            "json+" => Ok(FioFormat::JsonPlus),
            "terse" => Ok(FioFormat::Terse { version: 3 }),
            other => Err(Error::usage(format!(
                "--output-format={other}: iogauge fio writes normal, json, json+ or terse"
            ))),
        }
    }

    /// `--terse-version=N`: refused outside 2 to 5 whatever the format, as fio refuses it;
    /// the version of a terse format, and no change to another.
    pub fn with_terse_version(self, version: u32) -> Result<FioFormat, Error> {
        if !TERSE_VERSIONS.contains(&version) {
            return Err(Error::usage(format!(
                "--terse-version={version}: fio's terse versions are 2, 3, 4 and 5"
            )));
        }
        Ok(match self {
            FioFormat::Terse { .. } => FioFormat::Terse {
                version: version as u8,
            },
            other => other,
        })
    }

    pub fn exporter<'a>(self) -> Box<dyn Exporter<fio::Jobs<'a>>> {
        match self {
            FioFormat::Normal => Box::new(fio::Normal),
            FioFormat::Json => Box::new(fio::JobsJson { plus: false }),
            FioFormat::JsonPlus => Box::new(fio::JobsJson { plus: true }),
            FioFormat::Terse { version } => Box::new(fio::Terse { version }),
        }
    }
}

/// `iogauge diskspd`'s report of a run: DiskSpd's XML with `-Rxml`, else its text.
pub fn diskspd_exporter(d: &Diskspd) -> Box<dyn Exporter + '_> {
    if d.xml {
        Box::new(diskspd_xml::DiskspdXml(d))
    } else {
        Box::new(text::DiskspdText)
    }
}

/// DiskSpd's `-Rp`: the profile alone, nothing run, in XML with `-Rpxml`, else in text
/// under `command_line` as typed.
pub fn diskspd_profile_exporter(d: &Diskspd, command_line: String) -> Box<dyn Exporter<Diskspd>> {
    if d.xml {
        Box::new(diskspd_xml::ProfileXml)
    } else {
        Box::new(diskspd_profile::ProfileText { command_line })
    }
}

impl Formats for SweepResult {
    fn exporter(format: OutputFormat) -> Option<Box<dyn Exporter<Self>>> {
        match format {
            OutputFormat::Text => Some(Box::new(sweep::Text)),
            OutputFormat::Json => Some(Box::new(json::Json)),
            OutputFormat::Csv => Some(Box::new(sweep::Csv)),
            OutputFormat::FioJson => None,
        }
    }
}

impl Formats for crate::result::workload::WorkloadResult {
    fn exporter(format: OutputFormat) -> Option<Box<dyn Exporter<Self>>> {
        match format {
            OutputFormat::Text => Some(Box::new(workload::Text)),
            OutputFormat::Json => Some(Box::new(json::Json)),
            OutputFormat::Csv => Some(Box::new(workload::Csv)),
            OutputFormat::FioJson => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FORMATS: [OutputFormat; 4] = [
        OutputFormat::Text,
        OutputFormat::Json,
        OutputFormat::Csv,
        OutputFormat::FioJson,
    ];

    /// Every format a kind lets through has an exporter for that kind's results.
    #[test]
    fn what_check_passes_can_be_written() {
        for f in FORMATS {
            if Subject::Run.check(f).is_ok() {
                assert!(RunResult::exporter(f).is_some(), "run {f:?}");
            }
            if Subject::Profile.check(f).is_ok() || Subject::Saved(1).check(f).is_ok() {
                assert!(ProfileResult::exporter(f).is_some(), "profile {f:?}");
            }
            if Subject::Fs.check(f).is_ok() || Subject::Saved(1).check(f).is_ok() {
                assert!(FsResult::exporter(f).is_some(), "fs {f:?}");
            }
        }
    }

    #[test]
    fn refusals_say_what_is_written() {
        let refused = |k: Subject, f| k.check(f).unwrap_err().to_string();
        assert!(
            refused(Subject::Profile, OutputFormat::Csv).contains("profiles write text or json")
        );
        assert!(refused(Subject::Fs, OutputFormat::FioJson).contains("text, json or csv"));
        assert!(
            refused(Subject::Saved(7), OutputFormat::FioJson).starts_with("result 7 is not a run")
        );
        assert!(Subject::Run.check(OutputFormat::FioJson).is_ok());
        assert!(Subject::Saved(7).check(OutputFormat::Csv).is_ok());
    }

    #[test]
    fn terse_is_version_3_until_told_otherwise() {
        let terse = FioFormat::from_name("terse").unwrap();
        assert_eq!(terse, FioFormat::Terse { version: 3 });
        for v in TERSE_VERSIONS {
            let set = terse.with_terse_version(v).unwrap();
            assert_eq!(set, FioFormat::Terse { version: v as u8 });
        }
        // Checked for any format, as fio checks it; no change to one that is not terse.
        assert_eq!(
            FioFormat::Json.with_terse_version(4).unwrap(),
            FioFormat::Json
        );
        for bad in [0, 1, 6] {
            let e = terse.with_terse_version(bad).unwrap_err().to_string();
            assert!(e.contains("2, 3, 4 and 5"), "{e}");
            assert!(FioFormat::Normal.with_terse_version(bad).is_err());
        }
    }
}
