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
}
