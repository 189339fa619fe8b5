//! The descriptors a job holds while it runs, weighed against what the process may hold
//! (RLIMIT_NOFILE) before any file is laid out or opened: a job of 20,000 files is refused at
//! once, naming the setting to change, not after laying out thousands of them.

use crate::engine::kind::DEFAULT_ENGINE;
use crate::error::{Error, Result};
use crate::os::limits::nofile;
use crate::os::owned::held_max;
use crate::spec::{Flag, JobSpec};

/// Descriptors iogauge may hold beside a job's files: standard streams, the folders it
/// created files in, the results store, log files.
const RESERVE: u64 = 32;

/// What a job holds at once while it runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Need {
    /// Its files: those each thread keeps open (`--open-files`), or every file once.
    pub files: u64,
    /// Beside them: rings, descriptors kept on created files, [`RESERVE`].
    pub other: u64,
}

impl Need {
    pub fn total(&self) -> u64 {
        self.files + self.other
    }
}

/// The descriptors `job` holds at once: it may use them all together, so all count.
pub fn need(job: &JobSpec) -> Need {
    let threads = job.total_threads();
    let file_op = job.engine.kind.is_some_and(|e| e.is_file_op());
    let files = match job.open_files() {
        Some(n) => threads * n as u64,
        None if file_op => 0,
        None => job.targets.len() as u64,
    };
    let rings = if job.engine.kind.unwrap_or(DEFAULT_ENGINE).caps().ring {
        threads
    } else {
        0
    };
    // Files laid out now keep a descriptor each, up to held_max(); a timed create keeps none.
    let created = if job.engine.kind.is_some_and(|e| e.caps().creates_files) {
        0
    } else {
        job.targets
            .iter()
            .filter(|t| t.create_size.is_some() && !t.path.exists())
            .take(held_max())
            .count() as u64
    };
    Need {
        files,
        other: rings + created + RESERVE,
    }
}

/// Refuse `job` where it would need more descriptors than the process may hold.
pub fn check(job: &JobSpec) -> Result<()> {
    let need = need(job);
    let (soft, hard) = nofile();
    if need.total() <= soft {
        return Ok(());
    }
    Err(Error::usage(format!(
        "{}, {} descriptors with iogauge's own, above the {soft} this process may hold (RLIMIT_NOFILE{}); {}",
        holds(job, need),
        need.total(),
        hard_limit(soft, hard),
        remedy(job, need.other, soft)
    )))
}

/// What keeps the job's files open, in its tool's words.
fn holds(job: &JobSpec, need: Need) -> String {
    let threads = job.total_threads();
    match (job.file_sets, job.open_files()) {
        (Some(_), Some(n)) => format!(
            "{} with {} {} {} files open at once",
            plural(threads, "thread"),
            job.dialect.assign(Flag::OpenFiles, &n.to_string()),
            if threads == 1 { "keeps" } else { "keep" },
            need.files
        ),
        (Some(f), None) => format!(
            "{} without {} keeps all {} files open at once",
            job.dialect.assign(Flag::FileSet, &f.files.to_string()),
            job.name(Flag::OpenFiles),
            need.files
        ),
        (None, _) => format!("its {} targets stay open at once", need.files),
    }
}

fn plural(n: u64, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}

/// Refuse jobs that run together (`names`, `jobs`: a batch of fio jobs) where each fits but
/// all together would need more descriptors than the process may hold.
pub fn check_together(names: &[&str], jobs: &[&JobSpec]) -> Result<()> {
    let total: u64 = jobs.iter().map(|j| need(j).total() - RESERVE).sum::<u64>() + RESERVE;
    let (soft, hard) = nofile();
    if total <= soft {
        return Ok(());
    }
    let name = jobs.first().map_or(Flag::OpenFiles.native().into(), |j| {
        j.dialect.assign(Flag::OpenFiles, "N").to_string()
    });
    Err(Error::usage(format!(
        "jobs '{}' run together and need {total} descriptors, above the {soft} this process may hold (RLIMIT_NOFILE{}); give them a lower {name}, run them one after another, or raise the hard limit (ulimit -Hn, limits.conf)",
        names.join("', '"),
        hard_limit(soft, hard)
    )))
}

fn hard_limit(soft: u64, hard: u64) -> String {
    match hard {
        h if h == soft => ", its hard limit".into(),
        u64::MAX => String::new(),
        h => format!("; hard limit {h}"),
    }
}

/// What to change: the most files each thread may keep open, where the job has file sets.
fn remedy(job: &JobSpec, other: u64, soft: u64) -> String {
    let threads = job.total_threads();
    let each = soft.saturating_sub(other) / threads.max(1);
    let raise = "or raise the hard limit (ulimit -Hn, limits.conf)";
    match job.file_sets {
        Some(_) if each > 0 => format!(
            "set {} or less, {raise}",
            job.dialect.assign(Flag::OpenFiles, &each.to_string())
        ),
        Some(_) => format!("run fewer {}, {raise}", job.name(Flag::Threads)),
        None => format!("give fewer targets, {raise}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::native::job_from_argv;

    fn job(line: &str) -> JobSpec {
        let argv: Vec<String> = line.split_whitespace().map(String::from).collect();
        job_from_argv(&argv).unwrap()
    }

    #[test]
    #[cfg_attr(not(target_os = "linux"), ignore = "the job names io_uring, Linux's")]
    fn files_count_once_or_per_thread_where_opened_as_needed() {
        let all = job("iogauge run --file-set all -t 4 --engine sync /d/a /d/b /d/c");
        assert_eq!(need(&all).files, 3);
        let lazy =
            job("iogauge run --file-set all --open-files 2 -t 4 --engine sync /d/a /d/b /d/c");
        assert_eq!(need(&lazy).files, 8);
        assert_eq!(need(&lazy).other, RESERVE);
        // io_uring: a ring per thread.
        let uring = job("iogauge run --file-set all -t 4 --engine io_uring /d/a /d/b /d/c");
        assert_eq!(need(&uring).other, RESERVE + 4);
        assert!(holds(&lazy, need(&lazy))
            .contains("4 threads with --open-files 2 keep 8 files open at once"));
        assert!(holds(&all, need(&all))
            .contains("--file-set 3 without --open-files keeps all 3 files open at once"));
        // 100 descriptors: 68 left for 4 threads' files.
        assert!(remedy(&all, RESERVE, 100).starts_with("set --open-files 17 or less"));
    }
}
