//! Zones with write pointers (fio's zonemode=zbd, iogauge's --zbd), and random I/O in strided
//! zones (zonemode=strided), side by side with the real fio on files of their own: the same job files run by both tools, and what each wrote where
//! (the offsets of its latency log, with log_offset=1) and what each read back compared.
//!
//! fio emulates zones on a regular file: every zone starts empty, so that what a job reads
//! is what an earlier job of the same run wrote. A sequential job's offsets are fio's exactly;
//! a random one's are drawn, so each tool's log is replayed against write pointers instead:
//! every write must start at its zone's write pointer (or at the start of a zone it reset).

use crate::common;

use common::{bin, harness_skip_or, p, run_json, work_dir};
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};

const M: u64 = 1 << 20;

/// `job` run by fio (`fio`) or by `iogauge fio`, in `dir`, on a fresh 16 MiB `z.dat`.
fn run(dir: &Path, job: &str, fio: bool, json: bool) -> Output {
    let f = std::fs::File::create(dir.join("z.dat")).unwrap();
    f.set_len(16 * M).unwrap();
    std::fs::write(dir.join("j.fio"), job).unwrap();
    let mut cmd = match fio {
        true => Command::new("fio"),
        false => {
            let mut c = bin();
            c.args(["fio", "--no-save", "--allow-overwrite"]);
            c
        }
    };
    if json {
        cmd.arg("--output-format=json");
    }
    let o = cmd.current_dir(dir).arg("j.fio").output().expect("starts");
    assert!(
        o.status.success(),
        "{} failed on {}: {}",
        if fio { "fio" } else { "iogauge" },
        p(&dir.join("j.fio")),
        String::from_utf8_lossy(&o.stderr)
    );
    o
}

/// The (offset, length) of each I/O in a latency log with log_offset=1, in log order.
fn logged(path: &Path) -> Vec<(u64, u64)> {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", p(path)))
        .lines()
        .map(|l| {
            let v: Vec<u64> = l.split(',').map(|x| x.trim().parse().unwrap()).collect();
            (v[4], v[3])
        })
        .collect()
}

/// The zone resets on the text output's write lines, summed.
fn resets(o: &Output) -> u64 {
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .filter_map(|l| {
            l.split("; ")
                .nth(1)?
                .strip_suffix(" zone resets")?
                .parse::<u64>()
                .ok()
        })
        .sum()
}

const SEQUENTIAL: &str = "[c]\nfilename=z.dat\nzonemode=zbd\nzonesize=1m\nrw=write\nbs=128k\n\
                          zonecapacity=768k\nsize=4m\nio_size=8m\nwrite_lat_log=c\nlog_offset=1\n";

/// Writes go zone by zone to each zone's capacity, then round again, each zone reset first.
fn sequential_writes_land_where_fios_do() -> Result<String, String> {
    common::have_fio()?;
    let mut seen = Vec::new();
    for fio in [true, false] {
        let dir = work_dir();
        let o = run(dir.path(), SEQUENTIAL, fio, false);
        seen.push((logged(&dir.path().join("c_lat.1.log")), resets(&o)));
    }
    let (fio, ours) = (&seen[0], &seen[1]);
    assert_eq!(fio.0.len(), 64, "fio wrote {} blocks", fio.0.len());
    assert_eq!(ours.0, fio.0, "iogauge's offsets differ from fio's");
    assert_eq!(
        ours.1, fio.1,
        "zone resets: iogauge {}, fio {}",
        ours.1, fio.1
    );
    // 768 KiB of each 1 MiB zone: the first pass fills 4 zones in 24 writes.
    assert!(fio.0.iter().all(|&(o, l)| o % M + l <= 768 << 10));
    Ok(format!(
        "64 writes at fio's offsets; {} zone resets, as fio",
        ours.1
    ))
}

const LATER_READS: &str = "[global]\nfilename=z.dat\nzonemode=zbd\nzonesize=1m\nsize=4m\n\
                           [w]\nrw=write\nbs=128k\nio_size=2560k\n\
                           [r]\nstonewall\nrw=read\nbs=64k\n\
                           [rr]\nstonewall\nrw=randread\nbs=64k\nio_size=8m\n";

/// A read job sees what the write job before it wrote, and nothing past it.
fn later_jobs_read_what_earlier_ones_wrote() -> Result<String, String> {
    common::have_fio()?;
    let mut seen = Vec::new();
    for fio in [true, false] {
        let dir = work_dir();
        let o = run(dir.path(), LATER_READS, fio, true);
        let text = String::from_utf8_lossy(&o.stdout);
        let json: Value = serde_json::from_str(&text[text.find('{').unwrap()..]).unwrap();
        let jobs: Vec<(String, u64, u64, u64, u64)> = json["jobs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|j| {
                let n = |d: &str, k: &str| j[d][k].as_u64().unwrap();
                (
                    j["jobname"].as_str().unwrap().to_string(),
                    n("read", "io_bytes"),
                    n("read", "total_ios"),
                    n("write", "io_bytes"),
                    n("write", "total_ios"),
                )
            })
            .collect();
        seen.push(jobs);
    }
    assert_eq!(seen[1], seen[0], "iogauge (right) differs from fio (left)");
    // The sequential read stops at the write pointer: 2.5 MiB of the 4 MiB asked.
    assert_eq!(seen[0][1].1, 2560 << 10);
    Ok(format!("{:?}, as fio", seen[1]))
}

const RANDOM: &str = "[a]\nfilename=z.dat\nzonemode=zbd\nzonesize=1m\nrw=randwrite\nbs=256k\n\
                      size=8m\nio_size=32m\nmax_open_zones=3\nwrite_lat_log=a\nlog_offset=1\n";

/// Replays `writes` (in order) against write pointers of 1 MiB zones: the writes that did not
/// start at their zone's pointer (nor at its start, a reset), the resets, and the most zones
/// written but not yet full at once.
fn replay(writes: &[(u64, u64)]) -> (usize, u64, usize) {
    let mut wp: Vec<u64> = (0..16).map(|z| z * M).collect();
    let (mut wrong, mut resets, mut most_open) = (0, 0, 0);
    for &(o, l) in writes {
        let z = (o / M) as usize;
        if o == z as u64 * M && wp[z] != o {
            resets += 1;
        } else if o != wp[z] {
            wrong += 1;
        }
        wp[z] = o + l;
        let open = (0..16).filter(|&z| !wp[z].is_multiple_of(M)).count();
        most_open = most_open.max(open);
    }
    (wrong, resets, most_open)
}

/// Random writes go to write pointers of at most 3 open zones; fio's log is replayed the same
/// way, so that the replay is known to judge fio's own behaviour right.
fn random_writes_stay_at_write_pointers() -> Result<String, String> {
    common::have_fio()?;
    let mut said = Vec::new();
    for fio in [true, false] {
        let dir = work_dir();
        let o = run(dir.path(), RANDOM, fio, false);
        let writes = logged(&dir.path().join("a_lat.1.log"));
        let who = if fio { "fio" } else { "iogauge" };
        assert_eq!(writes.len(), 128, "{who} wrote {} blocks", writes.len());
        let (wrong, resets, open) = replay(&writes);
        assert_eq!(wrong, 0, "{who}: {wrong} writes not at a write pointer");
        assert!(open <= 3, "{who}: {open} zones open at once");
        assert_eq!(
            resets,
            self::resets(&o),
            "{who}: resets replayed vs reported"
        );
        // 32 MiB through 8 MiB of zones: most zones are written about 4 times.
        assert!((16..=32).contains(&resets), "{who}: {resets} zone resets");
        said.push(format!("{who}: {resets} resets, at most {open} zones open"));
    }
    Ok(said.join("; "))
}

const RANDOM_STRIDED: &str = "[s]\nfilename=z.dat\nrw=randread\nbs=4k\nsize=16m\nio_size=2m\n\
                              zonemode=strided\nzonesize=256k\nzonerange=1m\nzoneskip=1m\n\
                              write_lat_log=s\nlog_offset=1\n";

/// Random reads in strided zones (zonemode=strided, not zbd): 64 reads of 4 KiB anywhere in
/// a zone's 1 MiB, then the next zone 2 MiB on, as fio draws them.
fn random_strided_zones_as_fio_walks_them() -> Result<String, String> {
    common::have_fio()?;
    let mut zones = Vec::new();
    for fio in [true, false] {
        let dir = work_dir();
        run(dir.path(), RANDOM_STRIDED, fio, false);
        let reads = logged(&dir.path().join("s_lat.1.log"));
        let who = if fio { "fio" } else { "iogauge" };
        assert_eq!(reads.len(), 512, "{who} read {} blocks", reads.len());
        let mut seen: Vec<u64> = Vec::new();
        for (i, chunk) in reads.chunks(64).enumerate() {
            let zone = (i as u64 * 2 * M) % (16 * M);
            for &(o, _) in chunk {
                assert!(
                    (zone..zone + M).contains(&o),
                    "{who}: read at {o} in zone {zone}"
                );
            }
            seen.push(zone / M);
        }
        let distinct = reads
            .iter()
            .map(|r| r.0)
            .collect::<std::collections::HashSet<_>>();
        assert!(
            distinct.len() > 256,
            "{who}: {} distinct offsets",
            distinct.len()
        );
        zones.push(seen);
    }
    assert_eq!(zones[0], zones[1]);
    Ok(format!("zones (MiB) {:?} in both tools", zones[1]))
}

/// iogauge's own flags: a run by bytes through 4 zones twice, its resets in the result (one
/// I/O at a time: a deeper queue places the I/Os in flight when the bytes are done too).
fn native_run_counts_its_resets() -> Result<String, String> {
    let dir = work_dir();
    let f = dir.path().join("n.dat");
    let r = run_json(&[
        p(&f),
        "-c",
        "4m",
        "-w",
        "100",
        "-b",
        "256k",
        "--total",
        "8m",
        "-W",
        "0",
        "-s",
        "-o",
        "1",
        "--zbd",
        "1m",
    ]);
    assert_eq!(r["zones"]["zone_size"], M);
    assert_eq!(r["zones"]["resets"], 4, "{}", r["zones"]);
    // Reads on a file whose zones are all empty end at once, and say why.
    let r = run_json(&[
        p(&f),
        "-c",
        "4m",
        "-b",
        "64k",
        "-d",
        "1",
        "-W",
        "0",
        "--zbd",
        "1m",
    ]);
    assert_eq!(r["total"]["read"]["ios"], 0, "{}", r["total"]["read"]);
    let notes = r["notes"].to_string();
    assert!(
        notes.contains("no zone held written data left to read"),
        "{notes}"
    );
    Ok("4 resets over two passes; an empty file's read ends at once with a note".into())
}

pub fn main() {
    harness_skip_or(
        "zbd",
        [
            (
                "sequential_writes_land_where_fios_do",
                sequential_writes_land_where_fios_do as common::SkipOr,
            ),
            (
                "later_jobs_read_what_earlier_ones_wrote",
                later_jobs_read_what_earlier_ones_wrote,
            ),
            (
                "random_writes_stay_at_write_pointers",
                random_writes_stay_at_write_pointers,
            ),
            ("native_run_counts_its_resets", native_run_counts_its_resets),
            (
                "random_strided_zones_as_fio_walks_them",
                random_strided_zones_as_fio_walks_them,
            ),
        ],
    );
}
