//! The variables a fio option's value may use: `${VAR}` from the environment and fio's
//! reserved `$pagesize`, `$mb_memory` and `$ncpus`.

use super::job::Location;
use crate::error::{Error, Result};

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

/// `${VAR}` from the environment, and fio's reserved `$pagesize`, `$mb_memory`, `$ncpus`.
pub(super) fn expand(value: &str, vars: &Vars, at: &Location) -> Result<String> {
    let mut out = String::with_capacity(value.len());
    let mut rest = value;
    let mut reserved_used = false;
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
                reserved_used = true;
            }
            None => {
                out.push('$');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    if reserved_used {
        return Ok(worked_out(out));
    }
    Ok(out)
}

/// A value where a reserved variable stood, worked out as fio works it out (it pipes the
/// value to bc when it holds + - * or /, and no quote: options.c's bc_calc): whole numbers,
/// division truncated as bc's default scale 0 truncates. A value that is no such expression
/// (a path, a suffix bc would refuse) stays as it is.
fn worked_out(value: String) -> String {
    if !value.contains(['+', '-', '*', '/']) || value.contains('\'') {
        return value;
    }
    let whole = |t: &str| t.trim().parse::<i128>().map_err(|e| e.to_string());
    match super::expr::Expr::new(&value, &whole).eval() {
        Ok(v) => v.to_string(),
        Err(_) => value,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::fio::read_str;
    use std::path::Path;

    #[test]
    fn reserved_variables_are_this_machines() {
        let v = Vars::here();
        assert!(v.pagesize >= 4096 && v.ncpus >= 1 && v.mb_memory > 0);
        let jobs = read_str("[j]\nbs=$pagesize\n", "t.fio", Path::new("."), &v).unwrap();
        assert_eq!(jobs[0].options[0].value, Some(v.pagesize.to_string()));
    }

    #[test]
    fn arithmetic_with_a_reserved_variable_is_worked_out_as_fio_does() {
        // PerfKitBenchmarker's fio job: filesize=10*10*1000*$mb_memory (fio pipes it to bc).
        let v = crate::spec::fio::tests::vars();
        let at = Location {
            file: "t.fio".into(),
            line: 1,
        };
        let e = |s: &str| expand(s, &v, &at).unwrap();
        assert_eq!(e("10*10*1000*$mb_memory"), (100_000 * 2048).to_string());
        assert_eq!(e("$ncpus/3"), "5");
        assert_eq!(e("/mnt/$ncpus-x"), "/mnt/16-x");
        // Without a reserved variable fio does no arithmetic here (the number reader then
        // takes 128, as fio's does).
        assert_eq!(e("128*4"), "128*4");
    }
}
