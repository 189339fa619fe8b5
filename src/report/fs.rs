//! Reports of the file-system suite (`iogauge fs`): tables of tests x file systems as text
//! or Markdown, and every repetition as CSV. The HTML report draws its bar charts from the
//! same [`FsResult`].

use crate::report::table::Grid;
use crate::result::fs::{FsResult, Status, Summary};
use crate::units::{format_count, format_ns, format_ratio, format_size};

/// What a cell shows when there is no time.
fn no_time(status: Status, partial: bool) -> &'static str {
    match status {
        Status::NotSupported => "not supported",
        Status::Failed => "FAILED",
        Status::NotRun if partial => "not run",
        _ => "-",
    }
}

fn cell_text(r: &FsResult, t: usize, f: usize, show: impl Fn(&Summary) -> String) -> String {
    let Some(c) = r.tests.get(t).and_then(|t| t.cells.get(f)) else {
        return "-".into();
    };
    match &c.summary {
        Some(s) => {
            let mut v = show(s);
            if c.status != Status::Ok {
                // Fewer repetitions than asked for (Ctrl-C).
                v.push_str(&format!(" ({} of {})", c.elapsed_ns.len(), r.params.repeat));
            }
            v
        }
        None => no_time(c.status, r.partial).to_string(),
    }
}

fn ratio(v: Option<f64>) -> String {
    v.map(format_ratio).unwrap_or_else(|| "-".into())
}

/// The three tables: fastest time and ratio, median and spread, operations per second.
pub fn grids(r: &FsResult) -> [(String, Grid); 3] {
    let reference = reference_label(r);
    let labels: Vec<String> = r.filesystems.iter().map(|f| f.label.clone()).collect();
    let head = |first: &[&str]| {
        let mut h: Vec<String> = first.iter().map(|s| s.to_string()).collect();
        h.extend(labels.iter().cloned());
        h
    };
    let mut best = Grid::new(head(&["TEST", "OPS"]));
    let mut median = Grid::new(head(&["TEST"]));
    let mut rate = Grid::new(head(&["TEST"]));
    best.right = (1..labels.len() + 2).collect();
    median.right = (1..labels.len() + 1).collect();
    rate.right = median.right.clone();
    for (ti, t) in r.tests.iter().enumerate() {
        let ops = t.cells.first().map_or("-".into(), |c| c.ops.to_string());
        let mut b = vec![t.name.clone(), ops];
        let mut m = vec![t.name.clone()];
        let mut q = vec![t.name.clone()];
        for f in 0..labels.len() {
            b.push(cell_text(r, ti, f, |s| {
                format!("{:>9}  {:>6}", format_ns(s.min_ns as f64), ratio(s.ratio))
            }));
            m.push(cell_text(r, ti, f, |s| {
                format!(
                    "{:>9}  {:>6}  {:>3.0}%",
                    format_ns(s.median_ns as f64),
                    ratio(s.median_ratio),
                    s.spread_pct
                )
            }));
            q.push(cell_text(r, ti, f, |s| {
                format!("{}/s", format_count(s.ops_per_s))
            }));
        }
        best.push(b);
        median.push(m);
        rate.push(q);
    }
    let n = r.params.repeat;
    [
        (
            format!(
                "Fastest of {n} repetitions, and its ratio to {reference} (= 1.00; lower is faster):"
            ),
            best,
        ),
        (
            format!(
                "Median of {n}, its ratio to {reference}, and the spread ((max - min) / median):"
            ),
            median,
        ),
        ("Operations per second in the fastest repetition:".to_string(), rate),
    ]
}

/// The reference's name; "the reference" where the index names none (a result made by hand).
pub fn reference_label(r: &FsResult) -> &str {
    r.filesystems
        .get(r.reference)
        .map_or("the reference", |f| f.label.as_str())
}

fn heading(r: &FsResult) -> String {
    let p = &r.params;
    format!(
        "iogauge fs: {} file system{}, {} files{}, {} data file, {} iteration{}, {} thread{}, {} repetition{}{}",
        r.filesystems.len(),
        plural(r.filesystems.len() as u64),
        p.files,
        match &r.ranks {
            Some(k) => format!(" on each of {} ranks", k.ranks),
            None => String::new(),
        },
        format_size(p.file_size),
        p.iterations,
        plural(p.iterations),
        p.threads,
        plural(p.threads as u64),
        p.repeat,
        plural(p.repeat as u64),
        if r.partial { " [PARTIAL: interrupted]" } else { "" }
    )
}

fn plural(n: u64) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// Who is who: label, folder, file system, device, O_DIRECT.
fn legend(r: &FsResult) -> Grid {
    let mut g = Grid::new(
        ["NAME", "FOLDER", "FILE SYSTEM", "O_DIRECT"]
            .map(String::from)
            .to_vec(),
    );
    for (i, f) in r.filesystems.iter().enumerate() {
        let mut fs = f.facts.fs_type.clone().unwrap_or_else(|| "?".into());
        if let Some(d) = &f.facts.block_device {
            fs.push_str(&format!(" on {d}"));
        }
        if i == r.reference {
            fs.push_str(" (reference)");
        }
        let direct = match &f.direct_io_refused {
            Some(why) => why.clone(),
            None => f.facts.direct_io.clone(),
        };
        g.push(vec![f.label.clone(), f.dir.clone(), fs, direct]);
    }
    g
}

pub fn text(r: &FsResult) -> String {
    let mut o = heading(r);
    o.push_str("\n\n");
    o.push_str(&legend(r).text());
    for (title, g) in grids(r) {
        o.push('\n');
        o.push_str(&title);
        o.push('\n');
        o.push_str(&g.text());
    }
    o.push_str("\nNotes:\n");
    for n in &r.notes {
        o.push_str(&format!("  {n}\n"));
    }
    for f in r.failures() {
        o.push_str(&format!("  FAILED: {f}\n"));
    }
    o
}

pub fn markdown(r: &FsResult) -> String {
    let mut o = format!("## {}\n\n", heading(r));
    o.push_str(&legend(r).markdown());
    for (title, g) in grids(r) {
        o.push_str(&format!("\n{title}\n\n"));
        o.push_str(&g.markdown());
    }
    o
}

/// Every repetition, one row each: what anyone needs to recompute the figures.
pub fn csv(r: &FsResult) -> String {
    let mut o = String::from("test,group,filesystem,folder,status,repetition,ops,elapsed_ns\n");
    let q = |s: &str| {
        if s.contains([',', '"', '\n']) {
            format!("\"{}\"", s.replace('"', "\"\""))
        } else {
            s.to_string()
        }
    };
    for t in &r.tests {
        for (c, fs) in t.cells.iter().zip(&r.filesystems) {
            let status = serde_json::to_value(c.status)
                .ok()
                .and_then(|v| v.as_str().map(String::from))
                .unwrap_or_default();
            let group = serde_json::to_value(t.group)
                .ok()
                .and_then(|v| v.as_str().map(String::from))
                .unwrap_or_default();
            for (i, ns) in c.elapsed_ns.iter().enumerate() {
                o.push_str(&format!(
                    "{},{},{},{},{},{},{},{}\n",
                    q(&t.name),
                    group,
                    q(&fs.label),
                    q(&fs.dir),
                    status,
                    i + 1,
                    c.ops,
                    ns
                ));
            }
        }
    }
    o
}

/// Saved suite results side by side (`iogauge compare` of fs results): per test, each file
/// system's fastest time in each result, and its ratio to the same file system (by name) in the
/// first result.
#[derive(Debug, serde::Serialize)]
pub struct FsComparison {
    /// "#ID NAME" per column: every file system of every result.
    pub columns: Vec<String>,
    pub rows: Vec<FsCompareRow>,
    /// The result the ratios are taken against.
    pub reference_id: i64,
}

#[derive(Debug, serde::Serialize)]
pub struct FsCompareRow {
    pub test: String,
    /// One per column; null where the test has no time there.
    pub cells: Vec<Option<FsCompareCell>>,
}

#[derive(Debug, serde::Serialize)]
pub struct FsCompareCell {
    pub min_ns: u64,
    /// min_ns over the same file system's min_ns in the first result; null where that has none.
    pub ratio: Option<f64>,
    /// Every repetition of one side is faster than every repetition of the other: a
    /// difference the run-to-run spread cannot explain.
    pub beyond_noise: bool,
}

pub fn compare(results: &[(i64, &FsResult)]) -> FsComparison {
    let Some(&(first_id, first)) = results.first() else {
        return FsComparison {
            columns: Vec::new(),
            rows: Vec::new(),
            reference_id: 0,
        };
    };
    let mut columns = Vec::new();
    let mut tests: Vec<String> = Vec::new();
    for (id, r) in results {
        for f in &r.filesystems {
            columns.push(format!("#{id} {}", f.label));
        }
        for t in &r.tests {
            if !tests.contains(&t.name) {
                tests.push(t.name.clone());
            }
        }
    }
    let cell_of = |r: &FsResult, test: &str, label: &str| {
        let f = r.filesystems.iter().position(|f| f.label == label)?;
        let c = r.tests.iter().find(|t| t.name == test)?.cells.get(f)?;
        c.summary.as_ref().map(|s| (s.min_ns, s.max_ns))
    };
    let rows = tests
        .iter()
        .map(|test| {
            let mut cells = Vec::new();
            for (_, r) in results {
                for f in &r.filesystems {
                    let here = cell_of(r, test, &f.label);
                    let base = cell_of(first, test, &f.label);
                    cells.push(here.map(|(min, max)| FsCompareCell {
                        min_ns: min,
                        ratio: base.filter(|b| b.0 > 0).map(|b| min as f64 / b.0 as f64),
                        beyond_noise: base.is_some_and(|(bmin, bmax)| max < bmin || min > bmax),
                    }));
                }
            }
            FsCompareRow {
                test: test.clone(),
                cells,
            }
        })
        .collect();
    FsComparison {
        columns,
        rows,
        reference_id: first_id,
    }
}

impl FsComparison {
    pub fn grid(&self) -> Grid {
        let mut head = vec!["TEST".to_string()];
        head.extend(self.columns.iter().cloned());
        let mut g = Grid::new(head);
        g.right = (1..=self.columns.len()).collect();
        for row in &self.rows {
            let mut r = vec![row.test.clone()];
            for c in &row.cells {
                r.push(match c {
                    Some(c) => format!(
                        "{:>9}  {:>6}{}",
                        format_ns(c.min_ns as f64),
                        ratio(c.ratio),
                        if c.beyond_noise { "*" } else { " " }
                    ),
                    None => "-".into(),
                });
            }
            g.push(r);
        }
        g
    }

    pub fn legend(&self) -> String {
        format!(
            "Fastest repetition of each test, and its ratio to the same file system (by name) in \
             #{} (lower is faster).\n* beyond noise: every repetition of one result was faster \
             than every repetition of the other.",
            self.reference_id
        )
    }
}
