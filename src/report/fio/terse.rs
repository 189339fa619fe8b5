//! fio's terse output (`--minimal`, `--output-format=terse`): one line of `;`-separated
//! fields per job, in fio 3.33's order and units (KiB, KiB/s, msec, usec), for the scripts
//! that cut those lines by position (OpenZFS's performance tests, blktests, fio's own
//! t/latency_percentiles.py).
//!
//! Versions 2 to 5, as fio accepts them (3 is fio's default): 2 has no fio version field,
//! no disk utilisation and puts the description on a line of its own; 4 and 5 add the trim
//! direction; 5 adds each direction's bandwidth sample count and IOPS statistics. Every
//! number is the JSON's ([`super::document`]), only written in the terse units: this file
//! computes nothing the JSON does not have.

use super::{document, empty_dir, percentile_key, Dir, Job, Jobs, Lat};
use crate::os::diskstats::DiskUtil;
use crate::report::Exporter;
use serde_json::{Map, Value};
use std::fmt::Write;

/// The percentile fields of each direction: fio writes 20 (FIO_IO_U_LIST_MAX_LEN), `0%=0`
/// for those the job does not ask for.
const PERCENTILE_FIELDS: usize = 20;

/// fio's terse lines, in terse version `version` (2 to 5; [`crate::report::FioFormat`]
/// checks it).
pub struct Terse {
    pub version: u8,
}

impl Exporter<Jobs<'_>> for Terse {
    fn render(&self, jobs: &Jobs) -> String {
        let doc = document(&jobs.outcomes, &[], false);
        doc.jobs
            .iter()
            .map(|j| line(j, &doc.version, self.version, jobs.disk_util))
            .collect()
    }
}

/// One job's line, newline included.
fn line(j: &Job, fio_version: &str, v: u8, disks: &[DiskUtil]) -> String {
    let mut o = String::new();
    if v == 2 {
        let _ = write!(o, "2;{};{};{}", j.jobname, j.groupid, j.error);
    } else {
        let _ = write!(
            o,
            "{v};{fio_version};{};{};{}",
            j.jobname, j.groupid, j.error
        );
    }
    let empty = empty_dir();
    match (&j.mixed, &j.read) {
        // unified_rw_reporting: the mixed figures in the read's place, and nothing after.
        (Some(mixed), None) => direction(&mut o, j, mixed, v),
        _ => {
            direction(&mut o, j, j.read.as_ref().unwrap_or(&empty), v);
            direction(&mut o, j, j.write.as_ref().unwrap_or(&empty), v);
            if v != 3 {
                direction(&mut o, j, j.trim.as_ref().unwrap_or(&empty), v);
            }
        }
    }
    let _ = write!(
        o,
        ";{:.6}%;{:.6}%;{};{};{}",
        j.usr_cpu, j.sys_cpu, j.ctx, j.majf, j.minf
    );
    for share in shares(&j.iodepth_level, &["1", "2", "4", "8", "16", "32", ">=64"]) {
        let _ = write!(o, ";{share:.1}%");
    }
    // fio's terse lines predate its nanosecond buckets: their shares go to the first
    // microsecond one (stat.c, stat_calc_lat_nu).
    let mut us = shares(&j.latency_us, &US_BUCKETS);
    us[0] += j.latency_ns.values().filter_map(Value::as_f64).sum::<f64>();
    for share in us.into_iter().chain(shares(&j.latency_ms, &MS_BUCKETS)) {
        let _ = write!(o, ";{share:.2}%");
    }
    if v >= 3 {
        for d in disks {
            disk(&mut o, d);
        }
    }
    if let Some(count) = j.continued_errors {
        let _ = write!(o, ";{count};{}", j.error);
    }
    if let Some(text) = j.description.as_deref().filter(|t| !t.is_empty()) {
        if v == 2 {
            o.push('\n');
        }
        let _ = write!(o, ";{text}");
    }
    o.push('\n');
    o
}

const US_BUCKETS: [&str; 10] = [
    "2", "4", "10", "20", "50", "100", "250", "500", "750", "1000",
];
const MS_BUCKETS: [&str; 12] = [
    "2", "4", "10", "20", "50", "100", "250", "500", "750", "1000", "2000", ">=2000",
];

/// The values of `keys` in a JSON distribution, in that order (0 for a missing one).
fn shares(map: &Map<String, Value>, keys: &[&str]) -> Vec<f64> {
    keys.iter()
        .map(|k| map.get(*k).and_then(Value::as_f64).unwrap_or(0.0))
        .collect()
}

/// One direction's fields: its totals, then slat, clat, percentiles, lat, and bandwidth.
fn direction(o: &mut String, j: &Job, d: &Dir, v: u8) {
    // The JSON's iops is fractional; fio's terse field is the whole part.
    let iops = d.iops as u64;
    let _ = write!(o, ";{};{};{iops};{}", d.io_kbytes, d.bw, d.runtime);
    latency(o, &d.slat_ns);
    latency(o, &d.clat_ns);
    // fio writes one kind of percentile here: total latency's where it has them.
    let measured = if j.lat_percentiles {
        &d.lat_ns
    } else {
        &d.clat_ns
    };
    for k in 0..PERCENTILE_FIELDS {
        match j.percentile_list.get(k) {
            Some(&p) => {
                let ns = measured
                    .percentile
                    .as_ref()
                    .and_then(|m| m.get(&percentile_key(p)))
                    .and_then(Value::as_u64)
                    .unwrap_or(0);
                let _ = write!(o, ";{p:.6}%={}", ns / 1_000);
            }
            None => o.push_str(";0%=0"),
        }
    }
    latency(o, &d.lat_ns);
    // Bandwidth statistics are of samples: none, all zero (fio's p_of_agg included).
    if d.bw_samples > 0 {
        let _ = write!(
            o,
            ";{};{};{:.6}%;{:.6};{:.6}",
            d.bw_min,
            d.bw_max,
            d.bw_agg.min(100.0),
            d.bw_mean,
            d.bw_dev
        );
    } else {
        o.push_str(";0;0;0.000000%;0.000000;0.000000");
    }
    if v == 5 {
        let _ = write!(o, ";{}", d.bw_samples);
        if d.iops_samples > 0 {
            let _ = write!(
                o,
                ";{};{};{:.6};{:.6};{}",
                d.iops_min, d.iops_max, d.iops_mean, d.iops_stddev, d.iops_samples
            );
        } else {
            o.push_str(";0;0;0.000000;0.000000;0");
        }
    }
}

/// min, max (whole usec, rounded down as fio divides), mean and stdev (usec) of a latency.
fn latency(o: &mut String, l: &Lat) {
    if l.n == 0 {
        o.push_str(";0;0;0.000000;0.000000");
        return;
    }
    let _ = write!(
        o,
        ";{};{};{:.6};{:.6}",
        l.min / 1_000,
        l.max / 1_000,
        l.mean / 1e3,
        l.stddev / 1e3
    );
}

/// A disk's fields, and its components' averages (fio's "slaves") where it is built on others.
fn disk(o: &mut String, d: &DiskUtil) {
    let _ = write!(
        o,
        ";{};{};{};{};{};{};{};{};{:.2}%",
        d.name,
        d.read_ios,
        d.write_ios,
        d.read_merges,
        d.write_merges,
        d.read_ticks,
        d.write_ticks,
        d.in_queue,
        d.util
    );
    if let Some(a) = &d.aggr {
        let _ = write!(
            o,
            ";slaves;{};{};{};{};{};{};{};{:.2}%",
            a.aggr_read_ios,
            a.aggr_write_ios,
            a.aggr_read_merges,
            a.aggr_write_merge,
            a.aggr_read_ticks,
            a.aggr_write_ticks,
            a.aggr_in_queue,
            a.aggr_util
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::os::diskstats::Aggr;
    use crate::report::fio::{run_of, FioJson, Outcome};
    use crate::result::{DirResult, RunResult};
    use crate::spec::fio::options::FioRun;

    /// The golden files' delay-engine run: 4 KiB random, 30% writes, latencies measured.
    fn fixed() -> RunResult {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden/report/run.json");
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    }

    fn render(r: &RunResult, run: &FioRun, version: u8, disks: &[DiskUtil]) -> String {
        let jobs = Jobs {
            outcomes: vec![Outcome {
                run,
                result: Some(r),
                usr_cpu: 12.5,
                sys_cpu: 0.25,
            }],
            global_options: &[],
            disk_util: disks,
        };
        Terse { version }.render(&jobs)
    }

    fn fields(line: &str) -> Vec<String> {
        let line = line.strip_suffix('\n').expect("a line ends with a newline");
        assert!(!line.contains('\n'), "one line: {line}");
        line.split(';').map(String::from).collect()
    }

    fn vda(aggr: bool) -> DiskUtil {
        DiskUtil {
            name: "vda".into(),
            read_ios: 4072,
            write_ios: 4177,
            read_merges: 1,
            write_merges: 2,
            read_ticks: 200,
            write_ticks: 214,
            in_queue: 414,
            util: 32.9404,
            aggr: aggr.then_some(Aggr {
                aggr_read_ios: 10,
                aggr_write_ios: 20,
                aggr_read_merges: 0,
                aggr_write_merge: 0,
                aggr_read_ticks: 3,
                aggr_write_ticks: 4,
                aggr_in_queue: 7,
                aggr_util: 5.0,
            }),
        }
    }

    /// The fixed run, and the same run with its writes or its reads taken out.
    fn shapes() -> Vec<(&'static str, RunResult)> {
        let randrw = fixed();
        let mut read = fixed();
        read.total.write = DirResult::default();
        let mut write = fixed();
        write.total.read = DirResult::default();
        vec![("randrw", randrw), ("read", read), ("write", write)]
    }

    #[test]
    fn each_version_has_fios_count_of_fields() {
        // fio 3.33's counts: 5 general fields (4 in v2), 41 a direction (47 in v5: bw samples
        // and IOPS statistics), read and write (and trim but in v3), 34 of CPU, depths and
        // latency buckets, then 9 a disk (v3 on) and 9 more for its components.
        for (shape, r) in shapes() {
            let run = run_of(&r);
            for (v, n) in [(2, 161), (3, 121), (4, 162), (5, 180)] {
                let count = |disks: &[DiskUtil]| fields(&render(&r, &run, v, disks)).len();
                assert_eq!(count(&[]), n, "{shape} v{v}");
                let disk = if v == 2 { 0 } else { 9 };
                assert_eq!(count(&[vda(false)]), n + disk, "{shape} v{v} one disk");
                assert_eq!(count(&[vda(true)]), n + 2 * disk, "{shape} v{v} components");
            }
        }
        // unified_rw_reporting: the mixed direction alone (fio 3.33: 80 fields in v4).
        let r = fixed();
        let mut run = run_of(&r);
        run.unified = true;
        for v in [3, 4] {
            assert_eq!(fields(&render(&r, &run, v, &[])).len(), 80, "mixed v{v}");
        }
    }

    #[test]
    fn fields_are_the_jsons_in_fios_units() {
        let r = fixed();
        let run = run_of(&r);
        let line = render(&r, &run, 3, &[vda(false)]);
        let f = fields(&line);
        let json: serde_json::Value = serde_json::from_str(&FioJson.render(&r)).unwrap();
        let job = &json["jobs"][0];
        assert_eq!(f[0], "3");
        assert_eq!(f[1], json["fio version"].as_str().unwrap());
        assert_eq!(&f[2..5], ["iogauge", "0", "0"]);
        // Each direction at its place (read from 5, write from 46): KiB, KiB/s, IOPS, msec;
        // latencies in usec, min and max rounded down as fio divides.
        for (at, dir) in [(5, "read"), (46, "write")] {
            let d = &job[dir];
            let n = |k: &str| d[k].as_u64().unwrap();
            assert_eq!(f[at], (n("io_bytes") / 1024).to_string(), "{dir} KiB");
            assert_eq!(f[at + 1], n("bw").to_string(), "{dir} KiB/s");
            assert_eq!(f[at + 2], (d["iops"].as_f64().unwrap() as u64).to_string());
            assert_eq!(f[at + 3], n("runtime").to_string(), "{dir} msec");
            assert!(n("runtime") > 0);
            let clat = &d["clat_ns"];
            assert_eq!(
                f[at + 8],
                (clat["min"].as_u64().unwrap() / 1000).to_string()
            );
            assert_eq!(
                f[at + 9],
                (clat["max"].as_u64().unwrap() / 1000).to_string()
            );
            let mean = clat["mean"].as_f64().unwrap() / 1000.0;
            assert_eq!(f[at + 10], format!("{mean:.6}"));
            // fio's 17 default percentiles, then 3 empty places.
            for (k, p) in f[at + 12..at + 32].iter().enumerate() {
                let (pct, us) = p.split_once("%=").unwrap_or_else(|| panic!("{p}"));
                if k >= 17 {
                    assert_eq!(p, "0%=0");
                    continue;
                }
                assert_eq!(pct.split_once('.').unwrap().1.len(), 6, "{p}");
                us.parse::<u64>().unwrap();
            }
            assert!(
                f[at + 38].ends_with('%'),
                "bw aggregate share: {}",
                f[at + 38]
            );
        }
        // CPU, depths (one decimal), latency buckets (two), then the disk.
        assert_eq!(&f[87..89], ["12.500000%", "0.250000%"]);
        for d in &f[92..99] {
            assert!(
                d.ends_with('%') && d.split_once('.').unwrap().1.len() == 2,
                "{d}"
            );
        }
        for b in &f[99..121] {
            assert!(
                b.ends_with('%') && b.split_once('.').unwrap().1.len() == 3,
                "{b}"
            );
        }
        let buckets: f64 = f[99..121]
            .iter()
            .map(|b| b.strip_suffix('%').unwrap().parse::<f64>().unwrap())
            .sum();
        assert!(
            (buckets - 100.0).abs() < 0.2,
            "latency buckets add to {buckets}"
        );
        assert_eq!(f[121..].join(";"), "vda;4072;4177;1;2;200;214;414;32.94%");
    }

    /// fio's own reader of these lines, t/latency_percentiles.py (check_terse), takes the
    /// read's percentiles from fields 17 to 33 and the write's from 58 to 74 of a v3 line and
    /// wants each the JSON's nanoseconds divided by 1000, rounded down: the same check here.
    #[test]
    fn fios_own_check_of_percentiles_passes() {
        let r = fixed();
        let run = run_of(&r);
        let f = fields(&render(&r, &run, 3, &[]));
        assert!(
            f[0] == "3",
            "the script looks for a line that starts with '3;'"
        );
        let json: serde_json::Value = serde_json::from_str(&FioJson.render(&r)).unwrap();
        let job = &json["jobs"][0];
        for (range, dir) in [(17..34, "read"), (58..75, "write")] {
            let pcts = &job[dir]["clat_ns"]["percentile"];
            for p in &f[range] {
                let (pct, us) = p.split_once('%').unwrap();
                let want = pcts[pct].as_u64().unwrap_or_else(|| panic!("{pct}")) / 1000;
                assert_eq!(us[1..].parse::<u64>().unwrap(), want, "{dir} {pct}");
            }
        }
    }

    #[test]
    fn errors_and_description_end_the_line() {
        let mut r = fixed();
        r.job.continue_on_error = true;
        let mut run = run_of(&r);
        run.description = Some("a b".into());
        let f = fields(&render(&r, &run, 3, &[]));
        assert_eq!(f.len(), 121 + 3);
        let errors: u64 = r.errors.iter().map(|e| e.count).sum();
        assert_eq!(f[121..], [errors.to_string(), "0".into(), "a b".into()]);
        // Version 2 writes the description on a line of its own.
        let v2 = render(&r, &run, 2, &[vda(false)]);
        assert!(v2.ends_with(&format!(";{errors};0\n;a b\n")), "{v2}");
    }

    /// Real fio 3.33's line beside iogauge's for the same small jobs, field by field where the
    /// fields are the job's shape rather than its timing (latencies, bandwidth and the CPU
    /// differ between any two runs, of fio or of iogauge).
    #[test]
    fn the_structure_is_real_fios() {
        let fio_version = std::process::Command::new("fio").arg("--version").output();
        let Some(out) = fio_version.ok().filter(|o| o.status.success()) else {
            println!("SKIPPED: the_structure_is_real_fios: no fio on PATH to compare with");
            return;
        };
        let version = String::from_utf8_lossy(&out.stdout).trim().to_string();
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("pfile");
        let file_arg = format!("--filename={}", file.display());
        let dir_arg = format!("--directory={}", dir.path().display());
        let null = ["--name=x", "--ioengine=null", "--size=64m", "--bs=4k"];
        type Case<'a> = (Vec<&'a str>, u8, &'a [(usize, &'a str)]);
        let cases: Vec<Case> = vec![
            // Read KiB at 5, write KiB at 46.
            (null.to_vec(), 3, &[(5, "65536"), (46, "0")]),
            (
                [&null[..], &["--rw=randrw", "--percentage_random=100"]].concat(),
                4,
                // Trim KiB at 87 in v4.
                &[(87, "0")],
            ),
            (
                [
                    &null[..],
                    &["--rw=write", "--numjobs=2", "--group_reporting"],
                ]
                .concat(),
                3,
                &[(5, "0"), (46, "131072")],
            ),
            (
                vec![
                    "--name=p",
                    "--ioengine=psync",
                    &file_arg,
                    "--size=8m",
                    "--bs=4k",
                    "--rw=write",
                ],
                3,
                &[(5, "0"), (46, "8192")],
            ),
        ];
        for (args, v, io) in cases {
            let mut with_dir = args.clone();
            with_dir.push(&dir_arg);
            let theirs = std::process::Command::new("fio")
                .arg("--minimal")
                .arg(format!("--terse-version={v}"))
                .args(&with_dir)
                .output()
                .unwrap();
            assert!(theirs.status.success(), "fio {args:?}: {theirs:?}");
            let theirs = String::from_utf8(theirs.stdout).unwrap();
            let _ = std::fs::remove_file(&file);
            let ours = crate::fio_plan::run_args_for_test(
                &with_dir,
                crate::report::FioFormat::Terse { version: v },
            )
            .unwrap_or_else(|e| panic!("{args:?}: {e}"));
            let _ = std::fs::remove_file(&file);
            assert_eq!(theirs.lines().count(), 1, "fio {args:?}: {theirs}");
            assert_eq!(ours.lines().count(), 1, "iogauge {args:?}: {ours}");
            let (t, o) = (fields(&theirs), fields(&ours));
            // Before the disks: every field in the same place, the same kind of field.
            let before_disks = match v {
                3 => 121,
                _ => 162,
            };
            assert!(
                t.len() >= before_disks && o.len() >= before_disks,
                "{args:?}"
            );
            assert_eq!(t[0], v.to_string());
            assert_eq!(t[1], version);
            assert_eq!(o[0], v.to_string());
            assert!(o[1].starts_with("iogauge-"), "{}", o[1]);
            assert_eq!(t[2..5], o[2..5], "{args:?}: name, groupid, error");
            for (at, kib) in io {
                assert_eq!(
                    (t[*at].as_str(), o[*at].as_str()),
                    (*kib, *kib),
                    "{args:?} at {at}"
                );
            }
            if v == 4 {
                // randrw: the split is random; the sum is the job's size.
                let sum =
                    |f: &[String]| f[5].parse::<u64>().unwrap() + f[46].parse::<u64>().unwrap();
                assert_eq!((sum(&t), sum(&o)), (65536, 65536), "{args:?}");
            }
            let shape = |f: &str| -> String {
                match f.split_once("%=") {
                    Some((p, _)) => format!("{p}%=N"),
                    None if f.ends_with('%') => "N%".into(),
                    None => "N".into(),
                }
            };
            for k in 5..before_disks {
                assert_eq!(
                    shape(&t[k]),
                    shape(&o[k]),
                    "{args:?}: field {k}: {} / {}",
                    t[k],
                    o[k]
                );
            }
            // A direction that moved data ran for some milliseconds in both.
            for at in [5, 46] {
                if t[at] != "0" {
                    assert!(
                        t[at + 3] != "0" && o[at + 3] != "0",
                        "{args:?}: runtime at {}",
                        at + 3
                    );
                }
            }
            // The disks under the file: the same count of fields where both found them.
            let (td, od) = (t.len() - before_disks, o.len() - before_disks);
            // fio lists none for ioengine=null, whose jobs touch no disk; nor does iogauge.
            if args.contains(&"--ioengine=null") {
                assert_eq!((td, od), (0, 0), "{args:?}: disks of a null job");
            } else if td > 0 && od > 0 {
                assert_eq!(
                    td,
                    od,
                    "{args:?}: disk fields {:?} / {:?}",
                    &t[before_disks..],
                    &o[before_disks..]
                );
            } else {
                println!("{args:?}: disk fields: fio {td}, iogauge {od}");
            }
        }
    }
}
