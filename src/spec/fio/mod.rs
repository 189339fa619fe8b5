//! fio's job-file format, read: jobs made of `key[=value]` options, each option remembering
//! the file and line it came from so that any later error can name them.
//!
//! This is the reading layer of the fio front end (issue 7): the INI structure (`[global]`
//! sections that apply to the jobs below them, `;` and `#` comments, `include`), `${VAR}`
//! from the environment and fio's reserved `$pagesize`, `$mb_memory` and `$ncpus`, and fio's
//! number syntax (0x prefixes, size suffixes with fio's kb_base rules, time suffixes, ranges,
//! arithmetic in parentheses). What the options mean, and the JobSpec they make, is the next
//! layer ([`options`]); nothing here runs anything.

pub mod options;

use crate::error::{Error, Result};
use std::path::{Path, PathBuf};

/// Where an option or a section was written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    pub file: String,
    pub line: usize,
}

/// The `file` of options given on the command line; their `line` is the argument's position.
pub const COMMAND_LINE: &str = "<command line>";

impl std::fmt::Display for Location {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.file == COMMAND_LINE {
            write!(f, "command-line argument {}", self.line)
        } else {
            write!(f, "{}:{}", self.file, self.line)
        }
    }
}

/// fio's command line, read the way fio reads it: `--key=value`, `--key value` (see
/// [`next_value`]) and `--flag` options, where
/// each `--name=NAME` starts a new job and the options before the first one apply to every
/// job (fio's global options; fio 3.33's JSON lists them as "global options"), and the options
/// after a `--name` belong to that job only; any argument not starting with `--` is a job
/// file, returned apart. `args` excludes the program name.
pub fn read_args(args: &[String], vars: &Vars) -> Result<CommandLine> {
    let mut state = State {
        current: Some(Current::Global),
        ..State::default()
    };
    let mut files = Vec::new();
    let mut next = 0;
    while let Some(a) = args.get(next) {
        let at = Location {
            file: COMMAND_LINE.to_string(),
            line: next + 1,
        };
        next += 1;
        let Some(opt) = a.strip_prefix("--") else {
            if a.starts_with('-') && a.len() > 1 {
                return Err(Error::usage(format!(
                    "{at}: '{a}': fio options are written --key=value"
                )));
            }
            files.push(a.clone());
            continue;
        };
        let (key, value) = match opt.split_once('=') {
            Some((k, v)) => (k.trim(), Some(v)),
            None => (opt.trim(), next_value(opt.trim(), args, &mut next)),
        };
        if key.is_empty() {
            return Err(Error::usage(format!("{at}: '{a}' names no option")));
        }
        let value = value.map(|v| expand(v.trim(), vars, &at)).transpose()?;
        if key == "name" {
            let name = value.clone().filter(|v| !v.is_empty()).ok_or_else(|| {
                Error::usage(format!("{at}: --name needs a job name (--name=NAME)"))
            })?;
            state.jobs.push(FioJob {
                name,
                options: state.globals.clone(),
                inherited: state.globals.len(),
                at,
            });
            state.current = Some(Current::Job(state.jobs.len() - 1));
            continue;
        }
        let opt = FioOption {
            key: key.to_string(),
            value,
            at,
        };
        match state.current {
            Some(Current::Job(j)) => state.jobs[j].options.push(opt),
            _ => state.globals.push(opt),
        }
    }
    Ok(CommandLine {
        jobs: state.jobs,
        files,
        globals: state.globals,
    })
}

/// The value of `--key` written without `=`: the argument after it (moving `next` past it),
/// as fio's getopt_long gives it to every option but fio's bare flags
/// ([`options::takes_value`]). Not an argument that is itself an option: fio would take
/// `--direct --size=1m` as direct=--size=1m and refuse it, or name a log '--size=1m'; here
/// `--direct` stays a bare flag. `next` indexes `args`.
pub fn next_value<'a>(key: &str, args: &'a [String], next: &mut usize) -> Option<&'a str> {
    let v = args.get(*next).filter(|v| !v.starts_with("--"))?;
    if !options::takes_value(key) {
        return None;
    }
    *next += 1;
    Some(v)
}

/// A fio command line, read.
#[derive(Debug)]
pub struct CommandLine {
    /// The jobs started with `--name`, each holding the global options first.
    pub jobs: Vec<FioJob>,
    /// Job files to read.
    pub files: Vec<String>,
    /// The options before the first `--name`: fio applies them to the jobs of job files too,
    /// as if they were the first lines of a `[global]` section (checked with fio 3.33).
    pub globals: Vec<FioOption>,
}

impl FioJob {
    /// Put `globals` before this job's options, as inherited ones.
    pub fn inherit(&mut self, globals: &[FioOption]) {
        let mut options = globals.to_vec();
        options.append(&mut self.options);
        self.options = options;
        self.inherited += globals.len();
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FioOption {
    pub key: String,
    /// None for a bare flag (`time_based`).
    pub value: Option<String>,
    pub at: Location,
}

/// One job: the options of the `[global]` sections above it, then its own, in order (a later
/// option overrides an earlier one of the same key, as in fio).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FioJob {
    pub name: String,
    pub options: Vec<FioOption>,
    /// How many of `options`, from the front, came from global options (fio's JSON lists only
    /// the rest under "job options").
    pub inherited: usize,
    pub at: Location,
}

/// What `$pagesize`, `$mb_memory`, `$ncpus` and `${VAR}` stand for.
pub struct Vars<'a> {
    pub pagesize: u64,
    pub mb_memory: u64,
    pub ncpus: u64,
    pub env: &'a dyn Fn(&str) -> Option<String>,
}

impl Vars<'_> {
    /// This machine's values and the process environment.
    pub fn here() -> Vars<'static> {
        Vars {
            pagesize: crate::os::page_size(),
            mb_memory: crate::facts::memory_bytes().unwrap_or(0) >> 20,
            ncpus: std::thread::available_parallelism()
                .map(|n| n.get() as u64)
                .unwrap_or(1),
            env: &|k| std::env::var(k).ok(),
        }
    }
}

/// fio refuses longer lines; so do we, rather than read something else than fio would.
const MAX_LINE: usize = 8192;
const MAX_INCLUDE_DEPTH: usize = 16;

/// Read a job file (and the files it includes).
pub fn read_file(path: &Path, vars: &Vars) -> Result<Vec<FioJob>> {
    let mut state = State::default();
    read_into(path, vars, &mut state, 0, None)?;
    Ok(state.jobs)
}

/// Read job-file text; `file` names it in errors, `dir` is where its includes are looked for.
pub fn read_str(text: &str, file: &str, dir: &Path, vars: &Vars) -> Result<Vec<FioJob>> {
    let mut state = State::default();
    parse(text, file, dir, vars, &mut state, 0)?;
    Ok(state.jobs)
}

#[derive(Default)]
struct State {
    globals: Vec<FioOption>,
    /// The section being read: a job (index into jobs) or a global section.
    current: Option<Current>,
    jobs: Vec<FioJob>,
}

#[derive(Clone, Copy)]
enum Current {
    Global,
    Job(usize),
}

fn read_into(
    path: &Path,
    vars: &Vars,
    state: &mut State,
    depth: usize,
    from: Option<&Location>,
) -> Result<()> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        let by = from
            .map(|l| format!(" (included at {l})"))
            .unwrap_or_default();
        Error::usage(format!(
            "cannot read fio job file '{}'{by}: {e}",
            path.display()
        ))
    })?;
    let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
    parse(&text, &path.display().to_string(), &dir, vars, state, depth)
}

fn parse(
    text: &str,
    file: &str,
    dir: &Path,
    vars: &Vars,
    state: &mut State,
    depth: usize,
) -> Result<()> {
    for (i, raw) in text.lines().enumerate() {
        let at = Location {
            file: file.to_string(),
            line: i + 1,
        };
        if raw.len() > MAX_LINE {
            return Err(Error::usage(format!(
                "{at}: line longer than fio's limit of {MAX_LINE} bytes"
            )));
        }
        let line = strip_comment(raw).trim();
        if line.is_empty() {
            continue;
        }
        if let Some(rest) = line.strip_prefix('[') {
            let name = rest.strip_suffix(']').ok_or_else(|| {
                Error::usage(format!("{at}: section header '{line}' has no closing ']'"))
            })?;
            let name = name.trim();
            if name.is_empty() {
                return Err(Error::usage(format!("{at}: empty section name '[]'")));
            }
            if name == "global" {
                state.current = Some(Current::Global);
            } else {
                state.jobs.push(FioJob {
                    name: name.to_string(),
                    options: state.globals.clone(),
                    inherited: state.globals.len(),
                    at,
                });
                state.current = Some(Current::Job(state.jobs.len() - 1));
            }
            continue;
        }
        if let Some(target) = line.strip_prefix("include ").map(str::trim) {
            if depth >= MAX_INCLUDE_DEPTH {
                return Err(Error::usage(format!(
                    "{at}: includes nested more than {MAX_INCLUDE_DEPTH} deep (does a file include itself?)"
                )));
            }
            let target = expand(target, vars, &at)?;
            let path = if Path::new(&target).is_absolute() {
                PathBuf::from(&target)
            } else {
                dir.join(&target)
            };
            read_into(&path, vars, state, depth + 1, Some(&at))?;
            continue;
        }
        let (key, value) = match line.split_once('=') {
            Some((k, v)) => (k.trim(), Some(expand(v.trim(), vars, &at)?)),
            None => (line, None),
        };
        if key.is_empty() || key.contains(char::is_whitespace) {
            return Err(Error::usage(format!(
                "{at}: '{line}' is not an option (expected key=value or a flag)"
            )));
        }
        let opt = FioOption {
            key: key.to_string(),
            value,
            at: at.clone(),
        };
        match state.current {
            Some(Current::Global) => state.globals.push(opt),
            Some(Current::Job(j)) => state.jobs[j].options.push(opt),
            None => {
                return Err(Error::usage(format!(
                    "{at}: option '{key}' comes before any [section]"
                )))
            }
        }
    }
    Ok(())
}

/// A job-file line up to its comment. fio 3.33 cuts every line at its first `;` and then at
/// its first `#`, wherever they stand (its strip_blank_end): `numjobs=4 ; four`, `rw=read;x`
/// and `filename=a#b` are `numjobs=4`, `rw=read` and `filename=a`, so a value in a job file
/// can hold neither. Command-line values keep them, as fio's do.
fn strip_comment(line: &str) -> &str {
    line.find([';', '#']).map_or(line, |i| &line[..i])
}

/// `${VAR}` from the environment, and fio's reserved `$pagesize`, `$mb_memory`, `$ncpus`.
fn expand(value: &str, vars: &Vars, at: &Location) -> Result<String> {
    let mut out = String::with_capacity(value.len());
    let mut rest = value;
    while let Some(i) = rest.find('$') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        if let Some(inner) = after.strip_prefix('{') {
            let end = inner.find('}').ok_or_else(|| {
                Error::usage(format!("{at}: '${{' without a closing '}}' in '{value}'"))
            })?;
            let name = &inner[..end];
            let v = (vars.env)(name).ok_or_else(|| {
                Error::usage(format!(
                    "{at}: environment variable '{name}' is not set (used as ${{{name}}})"
                ))
            })?;
            out.push_str(&v);
            rest = &inner[end + 1..];
            continue;
        }
        let reserved = [
            ("pagesize", vars.pagesize),
            ("mb_memory", vars.mb_memory),
            ("ncpus", vars.ncpus),
        ];
        match reserved.iter().find(|(n, _)| after.starts_with(n)) {
            Some((n, v)) => {
                out.push_str(&v.to_string());
                rest = &after[n.len()..];
            }
            None => {
                out.push('$');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    Ok(out)
}

/// fio's "int" with a data unit: `4k`, `4kb`, `0x1000`, `1KiB`, `(4k*2)`. Suffixes ignore case.
/// k/m/g/t/p, with or without a trailing b or i, are powers of kb_base (1024 by default);
/// with "ib" (KiB, mib...) they are powers of the other base (1000 where kb_base is 1024).
/// That is what fio 3.33 does, checked by running it (its man page says 1mi is 1,000,000
/// with the default kb_base; fio itself makes it 1,048,576). In parentheses, arithmetic.
pub fn parse_size(text: &str, kb_base: u64) -> std::result::Result<u64, String> {
    let t = text.trim();
    if let Some(expr) = t.strip_prefix('(').and_then(|e| e.strip_suffix(')')) {
        let v = Expr::new(expr, &|s| parse_size(s, kb_base).map(|v| v as i128)).eval()?;
        return u64::try_from(v).map_err(|_| format!("'{t}' is out of range"));
    }
    let (digits, suffix) = split_number(t)?;
    let n = parse_digits(digits)?;
    let s = suffix.to_ascii_lowercase();
    let (letter, flipped) = match s.strip_suffix("ib") {
        Some(l) if !l.is_empty() => (l, true),
        _ => (
            s.strip_suffix('b')
                .or_else(|| s.strip_suffix('i').filter(|l| !l.is_empty()))
                .unwrap_or(&s),
            false,
        ),
    };
    let power = match letter {
        "" => 0,
        "k" => 1,
        "m" => 2,
        "g" => 3,
        "t" => 4,
        "p" => 5,
        _ => return Err(format!("'{t}' has an unknown size suffix '{suffix}'")),
    };
    let base: u64 = match (kb_base == 1000, flipped) {
        (true, false) | (false, true) => 1000,
        _ => 1024,
    };
    base.checked_pow(power)
        .and_then(|m| n.checked_mul(m))
        .ok_or_else(|| format!("'{t}' is too large"))
}

/// fio's "time": a number with d, h, m, s/sec, ms/msec or us/usec; without a unit it is in
/// `default_unit_ns` (seconds for most options, microseconds for some). Returns nanoseconds.
/// In parentheses, arithmetic is in microseconds unless a unit is given, as in fio.
pub fn parse_time_ns(text: &str, default_unit_ns: u64) -> std::result::Result<u64, String> {
    let t = text.trim();
    if let Some(expr) = t.strip_prefix('(').and_then(|e| e.strip_suffix(')')) {
        // Evaluated in microseconds (each number with a unit converted to them), as fio does.
        let us = Expr::new(expr, &|s| {
            parse_time_ns(s, 1_000).map(|ns| (ns / 1_000) as i128)
        })
        .eval()?;
        return u64::try_from(us)
            .ok()
            .and_then(|us| us.checked_mul(1_000))
            .ok_or_else(|| format!("'{t}' is out of range"));
    }
    let (digits, suffix) = split_number(t)?;
    let n = parse_digits(digits)?;
    let unit: u64 = match suffix.to_ascii_lowercase().as_str() {
        "" => default_unit_ns,
        "us" | "usec" => 1_000,
        "ms" | "msec" => 1_000_000,
        "s" | "sec" => 1_000_000_000,
        "m" => 60_000_000_000,
        "h" => 3_600_000_000_000,
        "d" => 86_400_000_000_000,
        _ => return Err(format!("'{t}' has an unknown time unit '{suffix}'")),
    };
    n.checked_mul(unit)
        .ok_or_else(|| format!("'{t}' is too long"))
}

/// fio's "irange": `lo-hi` or `lo:hi`, swapped when given high first.
pub fn parse_size_range(text: &str, kb_base: u64) -> std::result::Result<(u64, u64), String> {
    let t = text.trim();
    let (a, b) = t
        .split_once(':')
        .or_else(|| t.split_once('-'))
        .ok_or_else(|| format!("'{t}' is not a range (expected LOW-HIGH or LOW:HIGH)"))?;
    let (a, b) = (parse_size(a, kb_base)?, parse_size(b, kb_base)?);
    Ok((a.min(b), a.max(b)))
}

/// The number and what follows it: "0x10" -> ("0x10", ""), "4kb" -> ("4", "kb").
fn split_number(t: &str) -> std::result::Result<(&str, &str), String> {
    let end = if t.starts_with("0x") || t.starts_with("0X") {
        2 + t[2..]
            .find(|c: char| !c.is_ascii_hexdigit())
            .unwrap_or(t.len() - 2)
    } else {
        t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len())
    };
    if end == 0 || (end == 2 && t.len() >= 2 && t[..2].eq_ignore_ascii_case("0x")) {
        return Err(format!("'{t}' is not a number"));
    }
    Ok((&t[..end], &t[end..]))
}

fn parse_digits(d: &str) -> std::result::Result<u64, String> {
    let r = match d.strip_prefix("0x").or_else(|| d.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => d.parse(),
    };
    r.map_err(|_| format!("'{d}' is out of range"))
}

/// fio's arithmetic in parentheses: + - * / % ^ and nested parentheses over numbers with
/// units (each read by `atom`).
struct Expr<'a> {
    s: &'a [u8],
    pos: usize,
    /// Parentheses, signs and powers open now: each is a recursion, so it is bounded.
    depth: usize,
    text: &'a str,
    atom: &'a dyn Fn(&str) -> std::result::Result<i128, String>,
}

/// Far more nesting than any job file needs, and far less than would exhaust the stack.
const MAX_EXPR_DEPTH: usize = 64;

impl<'a> Expr<'a> {
    fn new(text: &'a str, atom: &'a dyn Fn(&str) -> std::result::Result<i128, String>) -> Self {
        Expr {
            s: text.as_bytes(),
            pos: 0,
            depth: 0,
            text,
            atom,
        }
    }

    fn eval(mut self) -> std::result::Result<i128, String> {
        let v = self.sum()?;
        self.skip();
        if self.pos != self.s.len() {
            return Err(format!("'({})' is not an expression fio takes", self.text));
        }
        Ok(v)
    }

    fn skip(&mut self) {
        while self.pos < self.s.len() && self.s[self.pos].is_ascii_whitespace() {
            self.pos += 1;
        }
    }

    fn peek(&mut self) -> Option<u8> {
        self.skip();
        self.s.get(self.pos).copied()
    }

    fn sum(&mut self) -> std::result::Result<i128, String> {
        let mut v = self.product()?;
        while let Some(op @ (b'+' | b'-')) = self.peek() {
            self.pos += 1;
            let r = self.product()?;
            let v2 = if op == b'+' {
                v.checked_add(r)
            } else {
                v.checked_sub(r)
            };
            v = v2.ok_or_else(|| self.overflow())?;
        }
        Ok(v)
    }

    fn overflow(&self) -> String {
        format!("'({})' overflows", self.text)
    }

    fn product(&mut self) -> std::result::Result<i128, String> {
        let mut v = self.power()?;
        while let Some(op @ (b'*' | b'/' | b'%')) = self.peek() {
            self.pos += 1;
            let r = self.power()?;
            v = match op {
                b'*' => v.checked_mul(r),
                _ if r == 0 => return Err(format!("'({})' divides by zero", self.text)),
                b'/' => v.checked_div(r),
                _ => v.checked_rem(r),
            }
            .ok_or_else(|| self.overflow())?;
        }
        Ok(v)
    }

    fn power(&mut self) -> std::result::Result<i128, String> {
        let base = self.unary()?;
        if self.peek() == Some(b'^') {
            self.pos += 1;
            let e = self.nested(Self::power)?;
            let e = u32::try_from(e).map_err(|_| format!("bad exponent in '({})'", self.text))?;
            return base.checked_pow(e).ok_or_else(|| self.overflow());
        }
        Ok(base)
    }

    /// `inner`, one level deeper: a one-line error past [`MAX_EXPR_DEPTH`], not a stack
    /// overflow.
    fn nested(
        &mut self,
        inner: fn(&mut Self) -> std::result::Result<i128, String>,
    ) -> std::result::Result<i128, String> {
        if self.depth >= MAX_EXPR_DEPTH {
            return Err(format!(
                "'({})' nests more than {MAX_EXPR_DEPTH} deep",
                self.text
            ));
        }
        self.depth += 1;
        let v = inner(self);
        self.depth -= 1;
        v
    }

    fn unary(&mut self) -> std::result::Result<i128, String> {
        match self.peek() {
            Some(b'-') => {
                self.pos += 1;
                let v = self.nested(Self::unary)?;
                v.checked_neg().ok_or_else(|| self.overflow())
            }
            Some(b'(') => {
                self.pos += 1;
                let v = self.nested(Self::sum)?;
                if self.peek() != Some(b')') {
                    return Err(format!("unbalanced parentheses in '({})'", self.text));
                }
                self.pos += 1;
                Ok(v)
            }
            Some(_) => {
                let start = self.pos;
                while self.pos < self.s.len() && self.s[self.pos].is_ascii_alphanumeric() {
                    self.pos += 1;
                }
                let word = &self.text[start..self.pos];
                if word.is_empty() {
                    return Err(format!("'({})' is not an expression fio takes", self.text));
                }
                (self.atom)(word)
            }
            None => Err(format!("'({})' ends too early", self.text)),
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Fixed values, and one environment variable (SIZE=8g), for the readers' tests.
    pub(crate) fn vars() -> Vars<'static> {
        Vars {
            pagesize: 4096,
            mb_memory: 2048,
            ncpus: 16,
            env: &|k| (k == "SIZE").then(|| "8g".to_string()),
        }
    }

    #[test]
    fn globals_apply_to_the_jobs_below_them() {
        let text = "\
; a comment
# another
[global]
ioengine=libaio
direct = 1

[seq-read]
rw=read
bs=${SIZE}

[global]
bs=4k
[rand-read]
rw=randread
numjobs=$ncpus
time_based
";
        let jobs = read_str(text, "t.fio", Path::new("."), &vars()).unwrap();
        assert_eq!(jobs.len(), 2);
        let kv = |j: &FioJob| {
            j.options
                .iter()
                .map(|o| format!("{}={}", o.key, o.value.as_deref().unwrap_or("<flag>")))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            kv(&jobs[0]),
            ["ioengine=libaio", "direct=1", "rw=read", "bs=8g"]
        );
        assert_eq!(
            kv(&jobs[1]),
            [
                "ioengine=libaio",
                "direct=1",
                "bs=4k",
                "rw=randread",
                "numjobs=16",
                "time_based=<flag>"
            ]
        );
        assert_eq!(jobs[1].name, "rand-read");
        assert_eq!(jobs[1].at.to_string(), "t.fio:13");
        assert_eq!(jobs[1].options[4].at.line, 15);
    }

    #[test]
    fn includes_are_read_relative_to_the_including_file() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("common.fio"), "[global]\nbs=64k\n").unwrap();
        std::fs::write(
            d.path().join("main.fio"),
            "include common.fio\n[job]\nrw=write\n",
        )
        .unwrap();
        let jobs = read_file(&d.path().join("main.fio"), &vars()).unwrap();
        assert_eq!(jobs[0].options[0].key, "bs");
        assert!(jobs[0].options[0].at.file.ends_with("common.fio"));
        std::fs::write(d.path().join("loop.fio"), "include loop.fio\n").unwrap();
        let e = read_file(&d.path().join("loop.fio"), &vars()).unwrap_err();
        assert!(e.to_string().contains("nested more than"), "{e}");
        std::fs::write(d.path().join("bad.fio"), "[j]\ninclude none.fio\n").unwrap();
        let e = read_file(&d.path().join("bad.fio"), &vars()).unwrap_err();
        assert!(e.to_string().contains("included at"), "{e}");
        assert!(e.to_string().contains("bad.fio:2"), "{e}");
    }

    #[test]
    fn bad_lines_name_file_and_line() {
        let cases = [
            ("bs=4k\n", "t.fio:1: option 'bs' comes before any [section]"),
            (
                "[job\n",
                "t.fio:1: section header '[job' has no closing ']'",
            ),
            (
                "[j]\nrw = read write\nbad key=1\n",
                "t.fio:3: 'bad key=1' is not an option",
            ),
            (
                "[j]\nfilename=${NOPE}\n",
                "environment variable 'NOPE' is not set",
            ),
            ("[]\n", "empty section name"),
        ];
        for (text, want) in cases {
            let e = read_str(text, "t.fio", Path::new("."), &vars()).unwrap_err();
            assert!(e.to_string().contains(want), "{text:?}: {e}");
        }
    }

    #[test]
    fn comments_end_a_line_where_fio_ends_it() {
        // Each value as fio 3.33 read it (its JSON "job options"), checked by running it.
        let text = "\
[global] # every job
size=1m ; a megabyte
[j] ; the job
numjobs=4 ; four threads
filename=g.dat\t; or use a disk
rw=randread;x
description=a#b;c
time_based # no value
";
        let jobs = read_str(text, "t.fio", Path::new("."), &vars()).unwrap();
        assert_eq!(jobs.len(), 1);
        assert_eq!(jobs[0].name, "j");
        let kv: Vec<(String, Option<String>)> = jobs[0]
            .options
            .iter()
            .map(|o| (o.key.clone(), o.value.clone()))
            .collect();
        let s = |k: &str, v: Option<&str>| (k.to_string(), v.map(String::from));
        assert_eq!(
            kv,
            [
                s("size", Some("1m")),
                s("numjobs", Some("4")),
                s("filename", Some("g.dat")),
                s("rw", Some("randread")),
                s("description", Some("a")),
                s("time_based", None),
            ]
        );
        // fio keeps them in command-line values.
        let args = ["--name=j", "--description=a;b #c"].map(String::from);
        let cl = read_args(&args, &vars()).unwrap();
        assert_eq!(cl.jobs[0].options[0].value.as_deref(), Some("a;b #c"));
    }

    #[test]
    fn reserved_variables_are_this_machines() {
        let v = Vars::here();
        assert!(v.pagesize >= 4096 && v.ncpus >= 1 && v.mb_memory > 0);
        let jobs = read_str("[j]\nbs=$pagesize\n", "t.fio", Path::new("."), &v).unwrap();
        assert_eq!(jobs[0].options[0].value, Some(v.pagesize.to_string()));
    }

    #[test]
    fn command_lines_read_like_fio() {
        let args: Vec<String> = [
            "--bs=8k",
            "--direct=1",
            "--name=w",
            "--rw=randwrite",
            "--iodepth=14",
            "--name=r",
            "--rw=randread",
            "--group_reporting",
            "more.fio",
        ]
        .map(String::from)
        .to_vec();
        let CommandLine { jobs, files, .. } = read_args(&args, &vars()).unwrap();
        assert_eq!(files, ["more.fio"]);
        assert_eq!(jobs.len(), 2);
        let keys = |j: &FioJob| j.options.iter().map(|o| o.key.clone()).collect::<Vec<_>>();
        assert_eq!(keys(&jobs[0]), ["bs", "direct", "rw", "iodepth"]);
        assert_eq!(keys(&jobs[1]), ["bs", "direct", "rw", "group_reporting"]);
        assert_eq!(jobs[1].options[3].value, None);
        assert_eq!(jobs[1].at.to_string(), "command-line argument 6");
        for (bad, want) in [
            (vec!["--name"], "--name needs a job name"),
            (
                vec!["-bs=4k"],
                "command-line argument 1: '-bs=4k': fio options are written",
            ),
            (vec!["--=4k"], "names no option"),
        ] {
            let a: Vec<String> = bad.iter().map(|s| s.to_string()).collect();
            let e = read_args(&a, &vars()).unwrap_err().to_string();
            assert!(e.contains(want), "{bad:?}: {e}");
        }
    }

    #[test]
    fn values_may_follow_as_the_next_argument() {
        // As fio's getopt_long reads them (checked with fio 3.33): every option but the bare
        // flags takes the next argument; a bare flag leaves it, here a job file.
        let args: Vec<String> = [
            "--bs",
            "8k",
            "--name",
            "w",
            "--time_based",
            "more.fio",
            "--runtime",
            "2",
            "--group_reporting",
            "--direct",
            "--size=1m",
            "--rw",
            "-x",
        ]
        .map(String::from)
        .to_vec();
        let CommandLine {
            jobs,
            files,
            globals,
        } = read_args(&args, &vars()).unwrap();
        assert_eq!(files, ["more.fio"]);
        assert_eq!(globals[0].value.as_deref(), Some("8k"));
        assert_eq!(jobs[0].name, "w");
        let kv: Vec<(&str, Option<&str>)> = jobs[0]
            .options
            .iter()
            .map(|o| (o.key.as_str(), o.value.as_deref()))
            .collect();
        assert_eq!(
            kv,
            [
                ("bs", Some("8k")),
                ("time_based", None),
                ("runtime", Some("2")),
                ("group_reporting", None),
                // An option is never taken as a value (fio would, then refuse it).
                ("direct", None),
                ("size", Some("1m")),
                ("rw", Some("-x")),
            ]
        );
        assert_eq!(jobs[0].options[2].at.to_string(), "command-line argument 7");
    }

    #[test]
    fn sizes_follow_fio_kb_base_rules() {
        // Every pair below was checked against fio 3.33 (--ioengine=null, io_bytes of --size).
        let k = |s: &str| parse_size(s, 1024).unwrap();
        let d = |s: &str| parse_size(s, 1000).unwrap();
        for (text, with_1024, with_1000) in [
            ("4096", 4096, 4096),
            ("4096b", 4096, 4096),
            ("1k", 1024, 1000),
            ("1ki", 1024, 1000),
            ("4kb", 4096, 4000),
            ("4KB", 4096, 4000),
            ("1KiB", 1000, 1024),
            ("1kib", 1000, 1024),
            ("1m", 1 << 20, 1_000_000),
            ("1mi", 1 << 20, 1_000_000),
            ("1Mi", 1 << 20, 1_000_000),
            ("1000ki", 1_024_000, 1_000_000),
            ("0x1000", 4096, 4096),
        ] {
            assert_eq!((k(text), d(text)), (with_1024, with_1000), "{text}");
        }
        assert_eq!(k("1t"), 1 << 40);
        // Arithmetic, as fio documents it (Debian's fio 3.33 is built without it and refuses).
        assert_eq!(k("(4k*2)"), 8192);
        assert_eq!(k("((1m - 4k) / 2)"), ((1 << 20) - 4096) / 2);
        // fio takes an expression only when the whole value is in parentheses.
        assert!(parse_size("(1m - 4k) / 2", 1024).is_err());
        assert_eq!(k("(2^10 % 1000 + (3))"), 27);
        for bad in ["", "k", "4q", "1.5m", "(4k", "(1/0)", "0x"] {
            assert!(parse_size(bad, 1024).is_err(), "{bad:?}");
        }
        assert_eq!(parse_size_range("1k-4k", 1024).unwrap(), (1024, 4096));
        assert_eq!(parse_size_range("64k:4k", 1024).unwrap(), (4096, 65536));
    }

    /// Found by fuzzing (fuzz/fuzz_targets/numbers.rs): each panicked (an overflow) or
    /// overflowed the stack.
    #[test]
    fn arithmetic_that_overflows_or_nests_too_deep_is_an_error() {
        let min = "((0-2^126)*2)";
        for (text, want) in [
            ("((0-2^126)*2/(0-1))", "overflows"),
            ("((0-2^126)*2%(0-1))", "overflows"),
            ("(-((0-2^126)*2))", "overflows"),
            ("(2^126+2^126)", "overflows"),
            ("((0-2^126)*2-1)", "overflows"),
            ("(2^200)", "overflows"),
        ] {
            let e = parse_size(text, 1024).unwrap_err();
            assert!(e.contains(want) && e.contains(text), "{text}: {e}");
        }
        assert!(parse_size(min, 1024).unwrap_err().contains("out of range"));
        for deep in [
            format!("({}1{})", "(".repeat(100_000), ")".repeat(100_000)),
            format!("({}1)", "-".repeat(100_000)),
            format!("({}1)", "2^".repeat(100_000)),
        ] {
            let e = parse_size(&deep, 1024).unwrap_err();
            assert!(e.contains("nests more than 64 deep"), "{e}");
            assert!(parse_time_ns(&deep, 1).is_err());
        }
        assert_eq!(
            parse_size(&format!("({}1{})", "(".repeat(60), ")".repeat(60)), 1024),
            Ok(1)
        );
    }

    #[test]
    fn times_have_fio_units() {
        let s = 1_000_000_000;
        assert_eq!(parse_time_ns("30", s).unwrap(), 30 * s);
        assert_eq!(parse_time_ns("10m", s).unwrap(), 600 * s);
        assert_eq!(parse_time_ns("2h", s).unwrap(), 7200 * s);
        assert_eq!(parse_time_ns("1d", s).unwrap(), 86_400 * s);
        assert_eq!(parse_time_ns("250ms", s).unwrap(), 250_000_000);
        assert_eq!(parse_time_ns("250MSEC", s).unwrap(), 250_000_000);
        assert_eq!(parse_time_ns("100us", s).unwrap(), 100_000);
        assert_eq!(parse_time_ns("100", 1_000).unwrap(), 100_000);
        // In parentheses, plain numbers are microseconds.
        assert_eq!(parse_time_ns("(500*2)", s).unwrap(), 1_000_000);
        assert_eq!(parse_time_ns("(1s/4)", s).unwrap(), 250_000_000);
        assert!(parse_time_ns("10y", s).is_err());
    }
}
