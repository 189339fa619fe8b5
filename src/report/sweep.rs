//! The reports of a sweep (`iogauge sweep`, `iogauge iozone`): a matrix per test (file sizes
//! down, record sizes across) with its knees, one CSV row per cell, and two sweeps side by
//! side. iozone's own layouts are in [`super::iozone`].

use super::table::Grid;
use super::Exporter;
use crate::result::sweep::knee::Knee;
use crate::result::sweep::{CacheMode, Cell, Status, SweepResult, Test};
use crate::units::{format_ratio, format_size};
use serde::Serialize;
use std::fmt::Write;

pub struct Text;
pub struct Csv;
/// iozone's `-R` ("Excel") report: kB/s, sizes in kB.
pub struct Iozone;

impl Exporter<SweepResult> for Text {
    fn render(&self, r: &SweepResult) -> String {
        text(r)
    }
}

impl Exporter<SweepResult> for Csv {
    fn render(&self, r: &SweepResult) -> String {
        csv(r)
    }
}

impl Exporter<SweepResult> for Iozone {
    fn render(&self, r: &SweepResult) -> String {
        super::iozone::excel(r, super::iozone::Layout::default())
    }
}

/// MB/s (10^6 bytes) with the digits that matter.
pub fn mbps(bytes_per_sec: f64) -> String {
    let v = bytes_per_sec / 1e6;
    if v >= 100.0 {
        format!("{v:.0}")
    } else if v >= 1.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.3}")
    }
}

/// What a cell shows: its rate, or why it has none.
fn shown(c: Option<&Cell>) -> String {
    match c {
        None => String::new(),
        Some(c) => match (c.status, c.bytes_per_sec()) {
            (Status::Ok, Some(b)) => mbps(b),
            (Status::Ok, None) => "<1us".into(),
            (Status::Failed, _) => "failed".into(),
            (Status::NotRun, _) => "-".into(),
        },
    }
}

/// One test's matrix: a row per file size, a column per record size, MB/s.
pub fn matrix(r: &SweepResult, test: Test) -> Grid {
    let records = &r.params.record_sizes;
    let mut header = vec!["file \\ record".to_string()];
    header.extend(records.iter().map(|&s| format_size(s)));
    let mut g = Grid::new(header);
    g.right = (1..=records.len()).collect();
    for &f in &r.params.file_sizes {
        let mut row = vec![format_size(f)];
        row.extend(records.iter().map(|&rec| shown(r.cell(test, f, rec))));
        if row[1..].iter().any(|c| !c.is_empty()) {
            g.push(row);
        }
    }
    g
}

/// "cache effect ends between 32MiB and 64MiB: 2100 MB/s cached, 160 MB/s beyond (13.1x)".
pub fn knee_line(k: &Knee) -> String {
    format!(
        "{} records: cache effect ends between {} and {}: {} MB/s up to it, {} MB/s past it \
         ({}x)",
        format_size(k.record_size),
        format_size(k.last_cached_size),
        format_size(k.first_uncached_size),
        mbps(k.cached_bytes_per_sec),
        mbps(k.uncached_bytes_per_sec),
        format_ratio(k.ratio)
    )
}

fn heading(r: &SweepResult) -> String {
    let p = &r.params;
    let mut o = String::new();
    let fs = r.target.fs_type.as_deref().unwrap_or("unknown file system");
    let _ = writeln!(
        o,
        "iogauge sweep: {} ({fs}), {}, {} file sizes ({} to {}) x {} record sizes ({} to {}){}",
        r.dir,
        match p.cache {
            CacheMode::Buffered => "through the page cache",
            CacheMode::Direct => "O_DIRECT",
        },
        p.file_sizes.len(),
        format_size(p.file_sizes[0]),
        format_size(*p.file_sizes.last().expect("validated")),
        p.record_sizes.len(),
        format_size(p.record_sizes[0]),
        format_size(*p.record_sizes.last().expect("validated")),
        if p.threads > 1 {
            format!(
                ", {} threads each with its own file (throughput is their sum)",
                p.threads
            )
        } else {
            String::new()
        }
    );
    let _ = writeln!(o, "{}", r.header.system.host_line());
    let mut timed = vec!["the read and write calls"];
    if p.include_flush {
        timed.push("the fsync");
    }
    if p.include_close {
        timed.push("the close");
    }
    let _ = writeln!(
        o,
        "Timed: {} of one pass over the whole file{}",
        timed.join(", "),
        if p.sync_writes { "; writes O_SYNC" } else { "" }
    );
    if let Some(m) = &r.memory_cap {
        let _ = writeln!(o, "Memory: {}", m.describe());
    }
    o
}

pub fn text(r: &SweepResult) -> String {
    let mut o = heading(r);
    for &test in &r.params.tests {
        let _ = writeln!(o, "\n{} (MB/s): {}", test.name(), test.about());
        o.push_str(&matrix(r, test).text());
        let knees: Vec<&Knee> = r.knees.iter().filter(|k| k.test == test).collect();
        for k in &knees {
            let _ = writeln!(o, "  {}", knee_line(k));
        }
        if knees.is_empty() && r.params.file_sizes.len() > 1 {
            let _ = writeln!(
                o,
                "  no knee: throughput does not fall by {}% or more past any file size",
                r.params.knee_drop_pct
            );
        }
    }
    let waited = match r.rank_wait_ns {
        0 => String::new(),
        _ => format!(", waiting for the other ranks {:.2}%", r.rank_wait_pct()),
    };
    let _ = writeln!(
        o,
        "\nTime: {:.1} s; iogauge's own {:.2}%, making and removing each cell's files \
         {:.2}%{waited}, the rest in reads, writes, fsync and close",
        r.wall_ns as f64 / 1e9,
        r.overhead_pct(),
        r.cleanup_pct()
    );
    for n in &r.notes {
        let _ = writeln!(o, "Note: {n}");
    }
    if r.partial {
        let _ = writeln!(o, "Partial: the sweep stopped before the end of its grid");
    }
    o
}

/// One row per cell, base units.
pub fn csv(r: &SweepResult) -> String {
    let mut o = String::from(
        "test,file_size_bytes,record_size_bytes,status,bytes,elapsed_ns,bytes_per_sec,ops_per_sec\n",
    );
    for c in &r.cells {
        let rate = |v: Option<f64>| v.map(|v| format!("{v:.1}")).unwrap_or_default();
        let _ = writeln!(
            o,
            "{},{},{},{},{},{},{},{}",
            c.test.name(),
            c.file_size,
            c.record_size,
            serde_json::to_value(c.status)
                .ok()
                .and_then(|v| v.as_str().map(String::from))
                .unwrap_or_default(),
            c.bytes,
            c.elapsed_ns,
            rate(c.bytes_per_sec()),
            rate(c.ops_per_sec())
        );
    }
    o
}

/// Two or more sweeps, cell by cell: the first is the reference.
#[derive(Debug, Serialize)]
pub struct SweepComparison {
    pub ids: Vec<i64>,
    pub rows: Vec<SweepCompareRow>,
    /// Each sweep's knees, in the order of `ids`.
    pub knees: Vec<Vec<Knee>>,
}

#[derive(Debug, Serialize)]
pub struct SweepCompareRow {
    pub test: Test,
    pub file_size: u64,
    pub record_size: u64,
    /// Bytes per second of each sweep; null where it has no figure for the cell.
    pub bytes_per_sec: Vec<Option<f64>>,
    /// Each over the first.
    pub ratio: Vec<Option<f64>>,
}

/// Every cell any of the sweeps measured, in test, file size, record size order.
pub fn compare(sweeps: &[(i64, &SweepResult)]) -> SweepComparison {
    let mut keys: Vec<(usize, u64, u64)> = Vec::new();
    for (_, s) in sweeps {
        for c in &s.cells {
            let t = Test::ALL.iter().position(|&t| t == c.test).unwrap_or(0);
            keys.push((t, c.file_size, c.record_size));
        }
    }
    keys.sort_unstable();
    keys.dedup();
    let rows = keys
        .into_iter()
        .map(|(t, f, rec)| {
            let test = Test::ALL[t];
            let rates: Vec<Option<f64>> = sweeps
                .iter()
                .map(|(_, s)| s.cell(test, f, rec).and_then(Cell::bytes_per_sec))
                .collect();
            let ratio = rates
                .iter()
                .map(|v| match (rates[0], *v) {
                    (Some(a), Some(b)) if a > 0.0 => Some(b / a),
                    _ => None,
                })
                .collect();
            SweepCompareRow {
                test,
                file_size: f,
                record_size: rec,
                bytes_per_sec: rates,
                ratio,
            }
        })
        .collect();
    SweepComparison {
        ids: sweeps.iter().map(|s| s.0).collect(),
        rows,
        knees: sweeps.iter().map(|s| s.1.knees.clone()).collect(),
    }
}

impl SweepComparison {
    pub fn grid(&self) -> Grid {
        let mut header: Vec<String> = ["test", "file", "record"].map(String::from).to_vec();
        for (i, id) in self.ids.iter().enumerate() {
            header.push(format!("#{id} MB/s"));
            if i > 0 {
                header.push(format!("#{id}/#{}", self.ids[0]));
            }
        }
        let mut g = Grid::new(header);
        g.right = (3..3 + 2 * self.ids.len()).collect();
        for r in &self.rows {
            let mut row = vec![
                r.test.name().to_string(),
                format_size(r.file_size),
                format_size(r.record_size),
            ];
            for (i, v) in r.bytes_per_sec.iter().enumerate() {
                row.push(v.map(mbps).unwrap_or_else(|| "-".into()));
                if i > 0 {
                    row.push(r.ratio[i].map(format_ratio).unwrap_or_else(|| "-".into()));
                }
            }
            g.push(row);
        }
        g
    }

    /// Each sweep's knees, one line each.
    pub fn legend(&self) -> String {
        let mut o = String::new();
        for (id, knees) in self.ids.iter().zip(&self.knees) {
            if knees.is_empty() {
                let _ = writeln!(o, "#{id}: no knee");
            }
            for k in knees {
                let _ = writeln!(o, "#{id} {}, {}", k.test.name(), knee_line(k));
            }
        }
        o
    }
}
