//! Saved workloads side by side (`iogauge compare` of workload records, and the HTML report's
//! table of them): each step matched by its position in the script and its kind.

use crate::report::table::Grid;
use crate::result::workload::{Place, StepKind, StepResult, StepSummary, Work, WorkloadResult};
use crate::units::{format_count, format_ns, format_ratio, format_size_human};
use serde::Serialize;

/// Saved workloads side by side (`iogauge compare` of workload records, and the report's
/// table of them): each step, matched by its position in the script and its kind, with every
/// record's fastest repetition and the ratio of its time to the first record's.
#[derive(Debug, Clone, Serialize)]
pub struct WorkloadComparison {
    /// "#ID NAME" per record.
    pub titles: Vec<String>,
    /// The record the ratios are taken against.
    pub reference_id: i64,
    pub steps: Vec<StepRow>,
    /// Where the records' steps or sources differ, in words.
    pub differences: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct StepRow {
    /// From 1, in the script.
    pub position: usize,
    pub kind: StepKind,
    /// As the first record with this step names it ("copy (copy_file_range, 4 threads)").
    pub label: String,
    /// One per record; null where its step at this position is of another kind, or missing.
    pub cells: Vec<Option<StepCell>>,
}

#[derive(Debug, Clone, Serialize)]
pub struct StepCell {
    /// Repetitions that ran, whole or cut short.
    pub repetitions: usize,
    /// Of the fastest whole repetition; null where none finished.
    pub min_ns: Option<u64>,
    /// Files per second (entries, for scan and delete).
    pub files_per_s: Option<f64>,
    /// The step's own work in bytes per second: read for copy, archive and readall, written
    /// for extract; null for scan and delete.
    pub bytes_per_s: Option<f64>,
    /// min_ns over the first record's; null where that has none.
    pub ratio: Option<f64>,
    /// Both were repeated, and every repetition of one was faster than every repetition of
    /// the other: a difference the run-to-run spread cannot explain.
    pub beyond_noise: bool,
}

/// `results` step by step, the first the reference.
pub fn compare(results: &[(i64, &WorkloadResult)]) -> WorkloadComparison {
    let steps = step_keys(results)
        .into_iter()
        .map(|(pos, kind)| {
            let found: Vec<Option<&StepResult>> = results
                .iter()
                .map(|(_, r)| r.steps.get(pos).filter(|s| s.step.kind == kind))
                .collect();
            let reference = found[0];
            StepRow {
                position: pos + 1,
                kind,
                label: found
                    .iter()
                    .flatten()
                    .next()
                    .map_or(String::new(), |s| s.label.clone()),
                cells: found
                    .iter()
                    .map(|s| s.map(|s| step_cell(s, reference)))
                    .collect(),
            }
        })
        .collect();
    WorkloadComparison {
        titles: results
            .iter()
            .map(|(id, r)| format!("#{id} {}", r.params.workload))
            .collect(),
        reference_id: results.first().map_or(0, |r| r.0),
        steps,
        differences: differences(results),
    }
}

/// Every (position, kind) any record has, in script order: steps of different kinds at one
/// position are rows of their own, never compared with each other.
fn step_keys(results: &[(i64, &WorkloadResult)]) -> Vec<(usize, StepKind)> {
    let longest = results
        .iter()
        .map(|(_, r)| r.steps.len())
        .max()
        .unwrap_or(0);
    let mut keys = Vec::new();
    for pos in 0..longest {
        for (_, r) in results {
            if let Some(s) = r.steps.get(pos) {
                if !keys.contains(&(pos, s.step.kind)) {
                    keys.push((pos, s.step.kind));
                }
            }
        }
    }
    keys
}

/// Repetitions that ran to the end.
fn whole_reps(s: &StepResult) -> usize {
    s.reps.iter().filter(|r| !r.cut_short).count()
}

fn step_cell(s: &StepResult, reference: Option<&StepResult>) -> StepCell {
    let sum = s.summary.as_ref();
    let base: Option<&StepSummary> = reference.and_then(|r| r.summary.as_ref());
    let repeated = whole_reps(s) > 1 && reference.is_some_and(|r| whole_reps(r) > 1);
    StepCell {
        repetitions: s.reps.len(),
        min_ns: sum.map(|x| x.min_ns),
        files_per_s: sum.map(|x| x.files_per_s),
        bytes_per_s: sum.and_then(|x| match s.step.kind.work() {
            Work::Read => Some(x.read_bytes_per_s),
            Work::Written => Some(x.write_bytes_per_s),
            Work::Entries => None,
        }),
        ratio: match (sum, base) {
            (Some(a), Some(b)) if b.min_ns > 0 => Some(a.min_ns as f64 / b.min_ns as f64),
            _ => None,
        },
        beyond_noise: match (sum, base) {
            (Some(a), Some(b)) => repeated && (a.max_ns < b.min_ns || a.min_ns > b.max_ns),
            _ => false,
        },
    }
}

/// Where a record's source or steps are not the first's, so that a ratio is not read as the
/// same work done faster.
fn differences(results: &[(i64, &WorkloadResult)]) -> Vec<String> {
    let Some(&(first_id, first)) = results.first() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for &(id, r) in &results[1..] {
        let (a, b) = (&r.source, &first.source);
        if (&a.what, a.files, a.bytes) != (&b.what, b.files, b.bytes) {
            out.push(format!(
                "#{id}'s source ({}) is not #{first_id}'s ({}): not the same work",
                source_words(a),
                source_words(b)
            ));
        }
    }
    let longest = results
        .iter()
        .map(|(_, r)| r.steps.len())
        .max()
        .unwrap_or(0);
    for pos in 0..longest {
        let at: Vec<(i64, Option<&StepResult>)> = results
            .iter()
            .map(|(id, r)| (*id, r.steps.get(pos)))
            .collect();
        if let Some(d) = step_difference(pos, &at) {
            out.push(d);
        }
    }
    out
}

/// "step 2: archive (zip level 6, 2 threads) in #1, #2; archive (tar.zst level 3, 2
/// threads) in #3; none in #4", where the records' steps at `pos` are not all alike.
fn step_difference(pos: usize, at: &[(i64, Option<&StepResult>)]) -> Option<String> {
    let mut groups: Vec<(Option<&str>, Vec<String>)> = Vec::new();
    for (id, s) in at {
        let label = s.map(|s| s.label.as_str());
        match groups.iter_mut().find(|g| g.0 == label) {
            Some(g) => g.1.push(format!("#{id}")),
            None => groups.push((label, vec![format!("#{id}")])),
        }
    }
    if groups.len() < 2 {
        return None;
    }
    let each: Vec<String> = groups
        .iter()
        .map(|(label, ids)| format!("{} in {}", label.unwrap_or("none"), ids.join(", ")))
        .collect();
    let mut kinds: Vec<StepKind> = at.iter().filter_map(|a| a.1).map(|s| s.step.kind).collect();
    kinds.sort_by_key(|k| k.name());
    kinds.dedup();
    let apart = if kinds.len() > 1 {
        " (steps of different kinds are not compared)"
    } else {
        ""
    };
    Some(format!("step {}: {}{apart}", pos + 1, each.join("; ")))
}

/// "a tree of 2001 files, 61.7MiB", "an archive of 32.1MiB".
pub(crate) fn source_words(p: &Place) -> String {
    match p.what.as_str() {
        "tree" => format!(
            "a tree of {} files, {}",
            format_count(p.files as f64),
            format_size_human(p.bytes)
        ),
        what => format!("{} {what} of {}", article(what), format_size_human(p.bytes)),
    }
}

fn article(word: &str) -> &'static str {
    if word.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    }
}

/// A rate over the first record's, for the grid.
fn rate_ratio(v: Option<f64>, first: Option<f64>) -> Option<f64> {
    match (v, first) {
        (Some(v), Some(f)) if f > 0.0 => Some(v / f),
        _ => None,
    }
}

impl WorkloadComparison {
    /// A row per step and figure (time, files/s, MB/s), a column per record.
    pub fn grid(&self) -> Grid {
        let mut head = vec!["step".to_string(), "figure".to_string()];
        head.extend(self.titles.iter().cloned());
        let mut g = Grid::new(head);
        g.right = (2..2 + self.titles.len()).collect();
        for row in &self.steps {
            let step = format!("{}. {}", row.position, row.label);
            g.push(time_row(step, row));
            let per_s = match row.kind {
                StepKind::Scan | StepKind::Delete => "entries/s",
                _ => "files/s",
            };
            g.push(rate_row(per_s, row, |c| c.files_per_s, format_count));
            let mb = match row.kind.work() {
                Work::Read => "MB/s read",
                Work::Written => "MB/s written",
                Work::Entries => continue,
            };
            g.push(rate_row(
                mb,
                row,
                |c| c.bytes_per_s,
                |v| format!("{:.1}", v / 1e6),
            ));
        }
        g
    }

    /// The note under the table: what is compared, what the marks mean, where they differ.
    pub fn legend(&self) -> String {
        let mut s = self.key();
        if !self.differences.is_empty() {
            s.push_str("\nWhere they differ:");
            for d in &self.differences {
                s.push_str("\n  ");
                s.push_str(d);
            }
        }
        s
    }

    /// What is compared and what the marks mean.
    pub fn key(&self) -> String {
        format!(
            "Fastest repetition of each step, matched by position and kind; in parentheses its \
             ratio to #{} (time: lower is faster; files/s and MB/s: higher is faster). MB/s is \
             the step's own work: bytes read for copy, archive and readall, written for \
             extract.\n* beyond noise: both were repeated, and every repetition of one was \
             faster than every repetition of the other.",
            self.reference_id
        )
    }
}

/// A step's time row: each record's fastest time, its ratio to the first's, and * where the
/// difference is beyond noise.
fn time_row(step: String, row: &StepRow) -> Vec<String> {
    let mut r = vec![step, "time".into()];
    for (j, c) in row.cells.iter().enumerate() {
        r.push(match c {
            None => "-".into(),
            Some(c) => match c.min_ns {
                None if c.repetitions == 0 => "not run".into(),
                None => "cut short".into(),
                Some(ns) => format!(
                    "{}{}{}",
                    format_ns(ns as f64),
                    match c.ratio {
                        Some(x) if j > 0 => format!(" ({})", format_ratio(x)),
                        _ => String::new(),
                    },
                    if c.beyond_noise { "*" } else { "" }
                ),
            },
        });
    }
    r
}

/// A rate's row: each record's value and its ratio to the first's.
fn rate_row(
    name: &str,
    row: &StepRow,
    of: impl Fn(&StepCell) -> Option<f64>,
    show: impl Fn(f64) -> String,
) -> Vec<String> {
    let first = row.cells[0].as_ref().and_then(&of);
    let mut r = vec![String::new(), name.to_string()];
    for (j, c) in row.cells.iter().enumerate() {
        let v = c.as_ref().and_then(&of);
        r.push(match (v, rate_ratio(v, first)) {
            (None, _) => "-".into(),
            (Some(v), Some(x)) if j > 0 => format!("{} ({})", show(v), format_ratio(x)),
            (Some(v), _) => show(v),
        });
    }
    r
}

#[cfg(test)]
mod tests {
    use super::fixture::workload;
    use super::*;
    use crate::result::workload::StepKind::{Archive, Copy, Scan};

    #[test]
    fn workloads_are_compared_step_by_step_by_position_and_kind() {
        let a = workload(&[
            (Copy, &[100, 110]),
            (Archive, &[200, 220]),
            (Scan, &[10, 11]),
        ]);
        let b = workload(&[(Copy, &[50, 55]), (Scan, &[5])]);
        let c = compare(&[(1, &a), (2, &b)]);
        assert_eq!(c.titles, vec!["#1 mixed", "#2 mixed"]);
        let keys: Vec<(usize, StepKind)> = c.steps.iter().map(|r| (r.position, r.kind)).collect();
        // A scan where the first has an archive is a row of its own, compared with nothing.
        assert_eq!(keys, vec![(1, Copy), (2, Archive), (2, Scan), (3, Scan)]);
        let copy = c.steps[0].cells[1].as_ref().unwrap();
        assert_eq!(copy.min_ns, Some(50_000_000));
        assert_eq!(copy.ratio, Some(0.5));
        assert!(copy.beyond_noise, "55 ms is below 100 ms, both repeated");
        // Of the bytes read alone, not read and written summed.
        let mb = copy.bytes_per_s.unwrap() / 1e6;
        assert!((mb - 327.68).abs() < 0.01, "{mb}");
        assert!(c.steps[1].cells[1].is_none());
        let scan = c.steps[2].cells[1].as_ref().unwrap();
        assert_eq!(
            (scan.ratio, scan.beyond_noise, scan.bytes_per_s),
            (None, false, None)
        );
        assert!(c.steps[2].cells[0].is_none() && c.steps[3].cells[1].is_none());
        assert_eq!(
            c.differences,
            vec![
                "step 2: archive (zip, 2 threads) in #1; scan (2 threads) in #2 (steps of \
                 different kinds are not compared)",
                "step 3: scan (2 threads) in #1; none in #2",
            ]
        );
        let text = c.grid().text();
        assert!(
            text.contains("1. copy (copy_file_range, 2 threads)"),
            "{text}"
        );
        assert!(text.contains("50.00 ms (0.50)*"), "{text}");
        assert!(
            text.contains("327.7 (2.00)"),
            "MB/s read and its ratio: {text}"
        );
        assert!(
            text.contains("entries/s") && text.contains("MB/s read"),
            "{text}"
        );
        assert!(!text.contains("MB/s written"), "no extract here: {text}");
        let legend = c.legend();
        assert!(legend.contains("ratio to #1") && legend.contains("Where they differ:"));
    }

    #[test]
    fn a_difference_is_beyond_noise_only_where_both_were_repeated() {
        let a = workload(&[(Copy, &[100])]);
        let b = workload(&[(Copy, &[50, 60])]);
        let c = compare(&[(1, &a), (2, &b)]);
        let cell = c.steps[0].cells[1].as_ref().unwrap();
        assert_eq!(cell.ratio, Some(0.5));
        assert!(!cell.beyond_noise);
        assert!(c.differences.is_empty(), "{:?}", c.differences);
        assert!(!c.grid().text().contains('*'), "{}", c.grid().text());
    }

    #[test]
    fn another_source_is_said_to_be_other_work() {
        let a = workload(&[(Copy, &[100])]);
        let mut b = workload(&[(Copy, &[100])]);
        b.source.files = 3001;
        b.source.bytes = 2 << 30;
        let c = compare(&[(7, &a), (9, &b)]);
        assert_eq!(
            c.differences,
            vec![
                "#9's source (a tree of 3001 files, 2.0GiB) is not #7's (a tree of 1000 files, \
                 15.6MiB): not the same work"
            ]
        );
    }
}

/// Workload records made by hand, for the tests of the reports that show them.
#[cfg(test)]
pub(crate) mod fixture {
    use crate::facts::{SystemFacts, TargetFacts};
    use crate::result::workload::*;
    use crate::result::{Phase, Sample, SampleDir, TimeSeries};
    use crate::stats::phases::PhaseLabel;

    pub const FILES: u64 = 1000;
    /// Each file's bytes.
    pub const FILE: u64 = 16_384;
    const INTERVAL: u64 = 100_000_000;

    /// A workload on a tree of [`FILES`] files of [`FILE`] bytes: its steps, each with the
    /// times of its repetitions in milliseconds.
    pub fn workload(steps: &[(StepKind, &[u64])]) -> WorkloadResult {
        // From JSON, as a saved record is read: fields added since take their defaults.
        let place = |what: &str, files: u64| -> Place {
            serde_json::from_value(serde_json::json!({
                "path": format!("/data/{what}"),
                "what": what,
                "files": files,
                "dirs": 10,
                "links": 0,
                "bytes": files * FILE,
                "facts": TargetFacts::default(),
            }))
            .expect("a place")
        };
        let step_of = |kind| Step {
            kind,
            threads: 2,
            method: (kind == StepKind::Copy).then_some(CopyMethod::CopyFileRange),
            format: (kind == StepKind::Archive).then_some(ArchiveFormat::Zip),
            level: None,
        };
        let mut r = WorkloadResult {
            header: crate::result::Header {
                schema: SCHEMA_NAME.into(),
                schema_version: SCHEMA_VERSION,
                tool_version: "0.1.0".into(),
                started_unix_ns: 1_700_000_000_000_000_000,
                command_line: vec!["iogauge".into(), "workload".into(), "mixed".into()],
                system: SystemFacts {
                    hostname: "h".into(),
                    kernel: "6.1".into(),
                    cpu_model: None,
                    cpus: 2,
                    memory_bytes: None,
                },
            },
            params: Params {
                workload: "mixed".into(),
                steps: steps.iter().map(|(k, _)| step_of(*k)).collect(),
                repeat: steps.iter().map(|(_, t)| t.len() as u32).max().unwrap_or(1),
                drop_caches: true,
                verify: true,
                compare_with_tools: false,
                interval_ns: INTERVAL,
            },
            source: place("tree", FILES),
            target: Some(place("folder", 0)),
            cache_drop: crate::os::cache::CacheDrop::DropCaches,
            steps: steps
                .iter()
                .map(|(kind, times)| {
                    let step = step_of(*kind);
                    StepResult {
                        label: step.label(),
                        reps: times.iter().map(|&ms| rep(*kind, ms)).collect(),
                        step,
                        summary: None,
                        tool: None,
                    }
                })
                .collect(),
            partial: false,
            stop_message: None,
            notes: vec!["caches dropped before each measurement".into()],
            ranks: None,
        };
        r.summarize();
        r
    }

    /// A repetition of `ms` milliseconds over the whole tree, at an even pace: each step's
    /// bytes as it would move them (a copy reads and writes every byte), its files as `ios`.
    fn rep(kind: StepKind, ms: u64) -> Rep {
        let elapsed_ns = ms * 1_000_000;
        let bytes = FILES * FILE;
        let (read, written) = match kind {
            StepKind::Copy => (bytes, bytes),
            StepKind::Archive => (bytes, bytes / 2),
            StepKind::Extract => (bytes / 2, bytes),
            StepKind::Readall => (bytes, 0),
            StepKind::Scan | StepKind::Delete => (0, 0),
        };
        let mut samples = Vec::new();
        let mut start = 0;
        while start < elapsed_ns {
            let d = INTERVAL.min(elapsed_ns - start);
            let share = |v: u64| (v as u128 * d as u128 / elapsed_ns as u128) as u64;
            let dir = |b: u64| SampleDir {
                ios: share(FILES),
                bytes: share(b),
                ..Default::default()
            };
            samples.push(Sample {
                start_ns: start,
                duration_ns: d,
                read: dir(read),
                write: dir(written),
                trim: None,
            });
            start += d;
        }
        // Two phases over longer repetitions, as a ramp and a level would give.
        let half = (elapsed_ns / 2 / INTERVAL) * INTERVAL;
        let phase = |label, start_ns, end_ns| Phase {
            label,
            start_ns,
            end_ns,
            bytes_per_sec_mean: read as f64 * 1e9 / elapsed_ns as f64,
            bytes_per_sec_p5: 0.0,
            bytes_per_sec_p95: 0.0,
            iops_mean: 0.0,
            latency_mean_ns: None,
            latency_p99_ns: None,
        };
        let phases = if half > 0 {
            vec![
                phase(PhaseLabel::Transition, 0, half),
                phase(PhaseLabel::Steady, half, elapsed_ns),
            ]
        } else {
            Vec::new()
        };
        let made = matches!(kind, StepKind::Copy | StepKind::Extract);
        Rep {
            elapsed_ns,
            sync_ns: kind.writes().then_some(5_000_000),
            files: FILES,
            dirs: 10,
            links: 0,
            skipped: 0,
            bytes_read: read,
            bytes_written: written,
            cpu: CpuUse::of(2, 2, elapsed_ns / 4, elapsed_ns / 4, elapsed_ns),
            cache: CacheState {
                dropped: true,
                resident_pct: Some(0.0),
                sampled_files: 32,
            },
            time_series: TimeSeries {
                interval_ns: INTERVAL,
                samples,
            },
            phases,
            copy: None,
            compression: (kind == StepKind::Archive).then_some(Compression {
                format: ArchiveFormat::Zip,
                level: 6,
                tree_bytes: bytes,
                archive_bytes: bytes / 2,
            }),
            verify: made.then(|| Verified {
                ok: true,
                against: "the source's files".into(),
                files: FILES,
                missing: 0,
                wrong_size: 0,
                wrong_content: 0,
                extra: 0,
                first: Vec::new(),
            }),
            cut_short: false,
            limit: None,
        }
    }
}
