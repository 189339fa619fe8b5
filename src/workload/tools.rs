//! The system's own tools doing a step's work (`--compare-with-tools`): `cp -r`, `zip -r`,
//! `tar` with `zstd`, `unzip`, `find`, `cat`, `rm -rf`, run as a user would type them, on the
//! same input, writing only inside a folder iogauge made for them. A tool that is not
//! installed is said, not guessed at.

use super::{ArchiveFormat, Step, StepKind};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

/// A tool's command for one step.
#[derive(Debug, Clone)]
pub struct Tool {
    /// "cp -r", "tar --zstd"...
    pub name: String,
    pub program: String,
    pub args: Vec<OsString>,
    pub cwd: Option<PathBuf>,
}

/// What a step's tool writes, and where: a new folder to fill, or a file to make inside one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolOutput {
    Nothing,
    /// The tree lands inside this new (empty) folder.
    Folder,
    /// An archive file named [`archive_name`] inside this new folder.
    ArchiveIn,
    /// The tool removes this tree (a copy made for it).
    Removes,
}

pub fn output_of(kind: StepKind) -> ToolOutput {
    match kind {
        StepKind::Copy | StepKind::Extract => ToolOutput::Folder,
        StepKind::Archive => ToolOutput::ArchiveIn,
        StepKind::Delete => ToolOutput::Removes,
        StepKind::Scan | StepKind::Readall => ToolOutput::Nothing,
    }
}

pub fn archive_name(format: ArchiveFormat) -> String {
    format!("archive.{}", format.name())
}

fn os(s: impl Into<OsString>) -> OsString {
    s.into()
}

/// The tool that does `step` on `input` (a tree, or for extract an archive of `format`),
/// writing at `out` (see [`output_of`]).
pub fn tool_for(step: &Step, input: &Path, format: ArchiveFormat, out: &Path) -> Tool {
    let tool = |name: &str, program: &str, args: Vec<OsString>| Tool {
        name: name.into(),
        program: program.into(),
        args,
        cwd: None,
    };
    match step.kind {
        // The contents of input into out, as `cp -r SRC/. DST`.
        StepKind::Copy => tool(
            "cp -r",
            "cp",
            vec![os("-r"), input.join(".").into(), out.into()],
        ),
        StepKind::Archive => match format {
            ArchiveFormat::Zip => Tool {
                cwd: Some(input.to_path_buf()),
                ..tool(
                    "zip -r",
                    "zip",
                    vec![
                        os("-q"),
                        os("-r"),
                        // Links stored as links, as iogauge stores them.
                        os("-y"),
                        os(format!("-{}", step.level())),
                        out.join(archive_name(format)).into(),
                        os("."),
                    ],
                )
            },
            ArchiveFormat::TarZst => tool(
                "tar --zstd",
                "tar",
                vec![
                    os("-C"),
                    input.into(),
                    os("-I"),
                    os(format!("zstd -{} -T{}", step.level(), step.threads)),
                    os("-cf"),
                    out.join(archive_name(format)).into(),
                    os("."),
                ],
            ),
        },
        StepKind::Extract => match format {
            ArchiveFormat::Zip => tool(
                "unzip",
                "unzip",
                vec![os("-q"), input.into(), os("-d"), out.into()],
            ),
            ArchiveFormat::TarZst => tool(
                "tar --zstd -x",
                "tar",
                vec![
                    os("-C"),
                    out.into(),
                    os("-I"),
                    os("zstd"),
                    os("-xf"),
                    input.into(),
                ],
            ),
        },
        StepKind::Scan => tool(
            "find -printf %s",
            "find",
            vec![input.into(), os("-printf"), os("%s\\n")],
        ),
        StepKind::Readall => tool(
            "find -exec cat",
            "find",
            vec![
                input.into(),
                os("-type"),
                os("f"),
                os("-exec"),
                os("cat"),
                os("{}"),
                os("+"),
            ],
        ),
        StepKind::Delete => tool("rm -rf", "rm", vec![os("-rf"), out.into()]),
    }
}

impl Tool {
    /// The programs it needs ("zip", or "tar" and "zstd").
    fn needs(&self) -> Vec<&str> {
        let mut n = vec![self.program.as_str()];
        if self.name.starts_with("tar") {
            n.push("zstd");
        }
        if self.name.contains("cat") {
            n.push("cat");
        }
        n
    }

    /// Why it cannot run here: a program it needs is not installed.
    pub fn missing(&self) -> Option<String> {
        self.needs()
            .into_iter()
            .find(|p| !installed(p))
            .map(|p| format!("{p} is not installed"))
    }

    /// As a user would type it.
    pub fn line(&self) -> String {
        let quote = |a: &OsString| {
            let s = a.to_string_lossy();
            if s.is_empty() || s.contains([' ', '\'', '"', '\\', '{', '}', '%', '*']) {
                format!("'{}'", s.replace('\'', "'\\''"))
            } else {
                s.into_owned()
            }
        };
        let mut l = String::new();
        if let Some(c) = &self.cwd {
            l = format!("cd {} && ", quote(&c.clone().into_os_string()));
        }
        l.push_str(&self.program);
        for a in &self.args {
            l.push(' ');
            l.push_str(&quote(a));
        }
        l
    }

    /// Run it to its end, output thrown away; its wall time, or why it failed.
    pub fn run(&self) -> Result<u64, String> {
        let mut c = Command::new(&self.program);
        c.args(&self.args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        if let Some(d) = &self.cwd {
            c.current_dir(d);
        }
        let t0 = Instant::now();
        let out = c
            .output()
            .map_err(|e| format!("{} did not start: {e}", self.program))?;
        let ns = t0.elapsed().as_nanos() as u64;
        if !out.status.success() {
            let err = String::from_utf8_lossy(&out.stderr);
            let first = err.lines().next().unwrap_or("").trim();
            return Err(format!("{} failed ({}): {first}", self.name, out.status));
        }
        Ok(ns)
    }
}

/// Whether `program` is on the PATH.
fn installed(program: &str) -> bool {
    std::env::var_os("PATH").is_some_and(|paths| {
        std::env::split_paths(&paths).any(|d| crate::os::process::is_program(&d, program))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg_attr(
        windows,
        ignore = "the tools compared with are Linux's (cp, tar, find, rm); Windows' are not yet"
    )]
    fn each_step_has_the_command_a_user_would_type() {
        let step = |kind, threads| Step {
            kind,
            threads,
            method: None,
            format: Some(ArchiveFormat::TarZst),
            level: None,
        };
        let t = tool_for(
            &step(StepKind::Archive, 4),
            Path::new("/d/src"),
            ArchiveFormat::TarZst,
            Path::new("/t/out"),
        );
        assert_eq!(
            t.line(),
            "tar -C /d/src -I 'zstd -3 -T4' -cf /t/out/archive.tar.zst ."
        );
        let t = tool_for(
            &step(StepKind::Scan, 1),
            Path::new("/d/my src"),
            ArchiveFormat::Zip,
            Path::new("/x"),
        );
        assert_eq!(t.line(), "find '/d/my src' -printf '%s\\n'");
        assert!(installed("sh"));
        assert!(!installed("no-such-program-here"));
    }
}
