//! IOR's summary, as IOR prints it (ior-output.c): the test's options, the per-repetition
//! table ("access bw(MiB/s) IOPS Latency(s) ..."), "Max Write:"/"Max Read:" and "Summary of
//! all tests:"; or the same in IOR's `-O summaryFormat=JSON` shape. Tools that read IOR's
//! output (IO500's scripts, site dashboards) find the lines where they look for them.

use crate::result::ior::{IorParams, IorResult, IorRow};
use serde_json::{json, Value};
use std::fmt::Write;

const MIB: f64 = 1048576.0;
const MB: f64 = 1_000_000.0;

/// IOR's text summary.
pub fn text(r: &IorResult) -> String {
    let mut out = String::new();
    let p = &r.params;
    let _ = writeln!(
        out,
        "iogauge {} ior: MPI Coordinated Test of Parallel I/O (IOR's output format)",
        env!("CARGO_PKG_VERSION")
    );
    key(&mut out, "Began", &date(r.began_unix_s));
    key(&mut out, "Command line", &r.command_line.join(" "));
    key(&mut out, "Machine", &r.host);
    key(&mut out, "TestID", "0");
    out.push_str("Options: \n");
    for (k, v) in options(p) {
        key(&mut out, k, &v);
    }
    for n in &r.notes {
        let _ = writeln!(out, "NOTE: {n}");
    }
    out.push_str("\nResults: \n\n");
    out.push_str("access    bw(MiB/s)  IOPS       Latency(s)  block(KiB) xfer(KiB)  open(s)    wr/rd(s)   close(s)   total(s)   iter\n");
    out.push_str("------    ---------  ----       ----------  ---------- ---------  --------   --------   --------   --------   ----\n");
    for row in &r.rows {
        table_row(&mut out, p, row);
    }
    checks(&mut out, r);
    max_lines(&mut out, r);
    summary(&mut out, r);
    key(&mut out, "Finished", &date(r.finished_unix_s));
    out
}

fn key(out: &mut String, k: &str, v: &str) {
    let _ = writeln!(out, "{k:<20}: {v}");
}

fn date(unix_s: u64) -> String {
    crate::dates::format_utc(unix_s.saturating_mul(1_000_000_000))
}

/// IOR's "Options:" block, in its order and words.
fn options(p: &IorParams) -> Vec<(&'static str, String)> {
    let mut v = vec![
        ("api", p.api.clone()),
        ("test filename", p.test_file.clone()),
        ("access", access_kind(p).into()),
        ("type", "independent".into()),
        ("segments", p.segments.to_string()),
        (
            "ordering in a file",
            if p.random { "random" } else { "sequential" }.into(),
        ),
    ];
    if p.reorder {
        v.push(("ordering inter file", "constant task offset".into()));
        v.push(("task offset", p.task_offset.to_string()));
    } else {
        v.push(("ordering inter file", "no tasks offsets".into()));
    }
    v.extend([
        ("nodes", p.nodes.to_string()),
        ("tasks", p.tasks.to_string()),
        ("clients per node", p.tasks_per_node.to_string()),
        ("repetitions", p.repetitions.to_string()),
        ("xfersize", human(p.transfer)),
        ("blocksize", human(p.block)),
        ("aggregate filesize", human(aggregate(p))),
    ]);
    if p.deadline_s > 0 {
        v.push(("stonewallingTime", p.deadline_s.to_string()));
        v.push(("stoneWallingWearOut", u8::from(p.wear_out).to_string()));
    }
    v
}

fn access_kind(p: &IorParams) -> &'static str {
    match p.file_per_proc {
        true => "file-per-process",
        false => "single-shared-file",
    }
}

/// The bytes every rank moves in one phase: blockSize × segmentCount × tasks.
fn aggregate(p: &IorParams) -> u64 {
    p.block
        .saturating_mul(p.segments)
        .saturating_mul(u64::from(p.tasks))
}

/// IOR's HumanReadable (base two): "1 MiB", "256 KiB", "47008 bytes", "1.50 GiB".
fn human(bytes: u64) -> String {
    const UNITS: [(&str, u32); 4] = [("TiB", 40), ("GiB", 30), ("MiB", 20), ("KiB", 10)];
    for (name, shift) in UNITS {
        let unit = 1u64 << shift;
        if bytes >= unit {
            return match bytes % unit {
                0 => format!("{} {name}", bytes / unit),
                _ => format!("{:.2} {name}", bytes as f64 / unit as f64),
            };
        }
    }
    format!("{bytes} bytes")
}

/// IOR's PPDouble: 10 wide, left-justified, 6 decimals below 1, 2 below 3600, else none;
/// "-" for what was not measured.
fn pp(out: &mut String, number: f64, append: &str) {
    if number < 0.0 {
        let _ = write!(out, "   -      {append}");
        return;
    }
    let precision = match number {
        n if n < 1.0 => 6,
        n if n < 3600.0 => 2,
        _ => 0,
    };
    let _ = write!(out, "{number:<10.precision$}{append}");
}

fn table_row(out: &mut String, p: &IorParams, row: &IorRow) {
    let _ = write!(out, "{:<10}", row.access);
    pp(out, row.bandwidth() / MIB, " ");
    pp(out, row.iops(p.transfer), " ");
    pp(out, row.latency_ns / 1e9, "  ");
    pp(out, p.block as f64 / 1024.0, " ");
    pp(out, p.transfer as f64 / 1024.0, " ");
    // Open and close are outside iogauge's timed window (the notes say why).
    pp(out, -1.0, " ");
    pp(out, row.seconds(), " ");
    pp(out, -1.0, " ");
    pp(out, row.seconds(), " ");
    let _ = writeln!(out, "{:<4}", row.iteration);
}

/// -W: what the read-back after each write found, with IOR's warning where data was wrong.
fn checks(out: &mut String, r: &IorResult) {
    for row in &r.rows {
        let Some((checked, wrong)) = row.checked else {
            continue;
        };
        let _ = writeln!(
            out,
            "check of write {}: {checked} units read back and checked, {wrong} wrong",
            row.iteration
        );
        if wrong > 0 {
            let _ = writeln!(
                out,
                "WARNING: incorrect data on write ({wrong} errors found)."
            );
        }
    }
}

/// The best repetition of each access (IOR's PrintShortSummary).
fn best(r: &IorResult, access: &str) -> Option<f64> {
    r.of(access)
        .iter()
        .map(|row| row.bandwidth())
        .reduce(f64::max)
}

fn max_lines(out: &mut String, r: &IorResult) {
    if let Some(bw) = best(r, "write") {
        let _ = writeln!(
            out,
            "Max Write: {:.2} MiB/sec ({:.2} MB/sec)",
            bw / MIB,
            bw / MB
        );
    }
    if let Some(bw) = best(r, "read") {
        let _ = writeln!(
            out,
            "Max Read:  {:.2} MiB/sec ({:.2} MB/sec)",
            bw / MIB,
            bw / MB
        );
    }
}

/// Max, min, mean and (population) standard deviation, as IOR's bw_ops_values.
struct Spread {
    max: f64,
    min: f64,
    mean: f64,
    sd: f64,
}

fn spread(values: &[f64]) -> Spread {
    let n = values.len().max(1) as f64;
    let mean = values.iter().sum::<f64>() / n;
    let var = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / n;
    Spread {
        max: values.iter().copied().fold(0.0, f64::max),
        min: values.iter().copied().reduce(f64::min).unwrap_or(0.0),
        mean,
        sd: var.sqrt(),
    }
}

/// One operation's figures over the repetitions: bandwidth, operations, mean time.
struct Summary {
    bw: Spread,
    ops: Spread,
    mean_s: f64,
    stonewall: Option<(f64, f64)>,
}

fn summarize(p: &IorParams, rows: &[&IorRow]) -> Summary {
    let bw: Vec<f64> = rows.iter().map(|r| r.bandwidth()).collect();
    let ops: Vec<f64> = rows.iter().map(|r| r.iops(p.transfer)).collect();
    let times: Vec<f64> = rows.iter().map(|r| r.seconds()).collect();
    let walls: Vec<(u64, u64)> = rows.iter().filter_map(|r| r.stonewall).collect();
    let stonewall = (p.wear_out && !walls.is_empty()).then(|| {
        let s: f64 = walls.iter().map(|w| w.0 as f64 / 1e9).sum();
        let b: f64 = walls.iter().map(|w| w.1 as f64).sum();
        (
            s / rows.len() as f64,
            if s > 0.0 { b / s / MIB } else { 0.0 },
        )
    });
    Summary {
        bw: spread(&bw),
        ops: spread(&ops),
        mean_s: spread(&times).mean,
        stonewall,
    }
}

fn summary(out: &mut String, r: &IorResult) {
    let p = &r.params;
    out.push_str("\nSummary of all tests:\n");
    let _ = write!(
        out,
        "{:<9} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>13}",
        "Operation",
        "Max(MiB)",
        "Min(MiB)",
        "Mean(MiB)",
        "StdDev",
        "Max(OPs)",
        "Min(OPs)",
        "Mean(OPs)",
        "StdDev",
        "Mean(s)",
        "Stonewall(s)",
        "Stonewall(MiB)"
    );
    out.push_str(" Test# #Tasks tPN reps fPP reord reordoff reordrand seed segcnt ");
    let _ = writeln!(
        out,
        "{:>8} {:>8} {:>9} {:>5} RefNum",
        " blksiz", "xsize", "aggs(MiB)", "API"
    );
    for access in ["write", "read"] {
        let rows = r.of(access);
        if rows.is_empty() {
            continue;
        }
        let s = summarize(p, &rows);
        let _ = write!(out, "{access:<9} ");
        for v in [s.bw.max, s.bw.min, s.bw.mean, s.bw.sd] {
            let _ = write!(out, "{:10.2} ", v / MIB);
        }
        for v in [s.ops.max, s.ops.min, s.ops.mean, s.ops.sd] {
            let _ = write!(out, "{v:10.2} ");
        }
        let _ = write!(out, "{:10.5} ", s.mean_s);
        match s.stonewall {
            Some((secs, mib)) => drop(write!(out, "{secs:10.2} {mib:13.2} ")),
            None => drop(write!(out, "{:>10} {:>13} ", "NA", "NA")),
        }
        let _ = writeln!(
            out,
            "{:5} {:6} {:3} {:4} {:3} {:5} {:8} {:9} {:4} {:6} {:8} {:8} {:9.1} {:>3} {:6}",
            0,
            p.tasks,
            p.tasks_per_node,
            p.repetitions,
            u8::from(p.file_per_proc),
            u8::from(p.reorder),
            p.task_offset,
            0,
            0,
            p.segments,
            p.block,
            p.transfer,
            rows[0].bytes as f64 / MIB,
            p.api,
            0
        );
    }
}

/// IOR's `-O summaryFormat=JSON` document.
pub fn json(r: &IorResult) -> String {
    let p = &r.params;
    let results: Vec<Value> = (0..p.repetitions)
        .map(|i| {
            let rows: Vec<Value> = r
                .rows
                .iter()
                .filter(|row| row.iteration == i)
                .map(|row| json_row(p, row))
                .collect();
            Value::Array(rows)
        })
        .collect();
    let mut max = serde_json::Map::new();
    if let Some(bw) = best(r, "write") {
        max.insert("writeMiB".into(), json!(bw / MIB));
        max.insert("writeMB".into(), json!(bw / MB));
    }
    if let Some(bw) = best(r, "read") {
        max.insert("readMiB".into(), json!(bw / MIB));
        max.insert("readMB".into(), json!(bw / MB));
    }
    let options: serde_json::Map<String, Value> = options(p)
        .into_iter()
        .map(|(k, v)| (k.to_string(), json!(v)))
        .collect();
    let summary: Vec<Value> = ["write", "read"]
        .iter()
        .filter_map(|a| json_summary(r, a))
        .collect();
    let doc = json!({
        "Version": format!("iogauge {}", env!("CARGO_PKG_VERSION")),
        "Began": date(r.began_unix_s),
        "Command line": r.command_line.join(" "),
        "Machine": r.host,
        "tests": [{
            "TestID": 0,
            "Options": options,
            "Results": results,
            "max": max,
        }],
        "summary": summary,
        "notes": r.notes,
        "Finished": date(r.finished_unix_s),
    });
    serde_json::to_string_pretty(&doc).unwrap_or_default() + "\n"
}

fn json_row(p: &IorParams, row: &IorRow) -> Value {
    json!({
        "access": row.access,
        "bwMiB": row.bandwidth() / MIB,
        "blockKiB": p.block as f64 / 1024.0,
        "xferKiB": p.transfer as f64 / 1024.0,
        "iops": row.iops(p.transfer),
        "latency": row.latency_ns / 1e9,
        "openTime": Value::Null,
        "wrRdTime": row.seconds(),
        "closeTime": Value::Null,
        "totalTime": row.seconds(),
        "bytes": row.bytes,
    })
}

fn json_summary(r: &IorResult, access: &str) -> Option<Value> {
    let p = &r.params;
    let rows = r.of(access);
    let first = rows.first()?;
    let s = summarize(p, &rows);
    let mut v = json!({
        "operation": access,
        "API": p.api,
        "TestID": 0,
        "ReferenceNumber": 0,
        "segmentCount": p.segments,
        "blockSize": p.block,
        "transferSize": p.transfer,
        "numTasks": p.tasks,
        "tasksPerNode": p.tasks_per_node,
        "repetitions": p.repetitions,
        "filePerProc": u8::from(p.file_per_proc),
        "reorderTasks": u8::from(p.reorder),
        "taskPerNodeOffset": p.task_offset,
        "reorderTasksRandom": 0,
        "reorderTasksRandomSeed": 0,
        "bwMaxMIB": s.bw.max / MIB,
        "bwMinMIB": s.bw.min / MIB,
        "bwMeanMIB": s.bw.mean / MIB,
        "bwStdMIB": s.bw.sd / MIB,
        "OPsMax": s.ops.max,
        "OPsMin": s.ops.min,
        "OPsMean": s.ops.mean,
        "OPsSD": s.ops.sd,
        "MeanTime": s.mean_s,
        "xsizeMiB": first.bytes as f64 / MIB,
    });
    if let (Some((secs, mib)), Some(o)) = (s.stonewall, v.as_object_mut()) {
        o.insert("StoneWallTime".into(), json!(secs));
        o.insert("StoneWallbwMeanMIB".into(), json!(mib));
    }
    Some(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_printed_as_iors_ppdouble_prints_them() {
        let mut s = String::new();
        pp(&mut s, 0.5, " ");
        pp(&mut s, 1234.5678, " ");
        pp(&mut s, -1.0, " ");
        assert_eq!(s, "0.500000   1234.57       -       ");
        assert_eq!(human(1 << 20), "1 MiB");
        assert_eq!(human(47008), "45.91 KiB");
        assert_eq!(human(100), "100 bytes");
    }
}
