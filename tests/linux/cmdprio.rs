//! I/O priorities side by side with the real fio: the same job file, with log_prio, run for
//! 2 s by fio and by `iogauge fio` on io_uring in a folder of its own, and the priority
//! column of each one's per-I/O completion latency log counted. With cmdprio_percentage=20
//! (cmdprio_class=1 over prioclass=3) a fifth of the reads go real time (0x2000), the rest at
//! the job's idle class (0x6000); with the advanced cmdprio_bssplit each size's I/Os split as
//! its entries say, and others keep the job's prio/prioclass. Without log_prio the column is
//! 1 for a real-time I/O, else 0, as fio writes it.
//!
//! The tolerance: over the tens of thousands of I/Os of 2 s each I/O's draw is a coin of its
//! share, well under a point of standard deviation; 4 points either way of the share asked
//! leaves room for a slow machine doing few I/Os.

use crate::common;

use common::{bin, harness_skip_or, p, work_dir};
use std::collections::BTreeMap;
use std::process::Command;

const TOLERANCE: f64 = 4.0;

/// Lines of the clat log per (direction, block size, priority column), fio's then
/// iogauge's.
type Counts = BTreeMap<(String, String, String), u64>;

fn both(job: &str) -> [Counts; 2] {
    [true, false].map(|fio| {
        let dir = work_dir();
        let d = dir.path();
        std::fs::write(d.join("j.fio"), job).unwrap();
        let o = match fio {
            true => Command::new("fio").current_dir(d).arg("j.fio").output(),
            false => bin()
                .current_dir(d)
                .args(["fio", "j.fio", "--no-save"])
                .output(),
        }
        .expect("starts");
        let who = if fio { "fio" } else { "iogauge" };
        assert!(
            o.status.success(),
            "{who} failed on {}: {}",
            p(&d.join("j.fio")),
            String::from_utf8_lossy(&o.stderr)
        );
        let log = std::fs::read_to_string(d.join("p_clat.1.log")).unwrap();
        let mut c = Counts::new();
        for l in log.lines() {
            let f: Vec<&str> = l.split(", ").collect();
            assert_eq!(f.len(), 5, "{who}: {l}");
            *c.entry((f[2].into(), f[3].into(), f[4].into()))
                .or_default() += 1;
        }
        c
    })
}

/// Each tool's share (percent) of the I/Os of direction `dir` and size `bs` at priority
/// column `prio`, checked against `asked`; the message says both.
fn check(counts: &[Counts; 2], dir: &str, bs: &str, prio: &str, asked: f64) -> String {
    let share = |c: &Counts| {
        let of = |p: Option<&str>| -> u64 {
            c.iter()
                .filter(|((d, b, q), _)| d == dir && b == bs && p.is_none_or(|p| p == q))
                .map(|(_, n)| n)
                .sum()
        };
        let all = of(None);
        assert!(all > 100, "few I/Os of {dir}/{bs}: {c:?}");
        of(Some(prio)) as f64 * 100.0 / all as f64
    };
    let [fio, iogauge] = [share(&counts[0]), share(&counts[1])];
    for (who, s) in [("fio", fio), ("iogauge", iogauge)] {
        assert!(
            (s - asked).abs() <= TOLERANCE,
            "{who}: {s:.1}% of dir {dir} bs {bs} at {prio}, asked {asked}%: fio {:?} iogauge {:?}",
            counts[0],
            counts[1]
        );
    }
    format!("{dir}/{bs} at {prio}: fio {fio:.1}%, iogauge {iogauge:.1}%")
}

const BASE: &str = "[global]\nfilename=d.dat\nsize=64m\ndirect=1\nioengine=io_uring\n\
                    iodepth=8\nruntime=2\ntime_based\nwrite_lat_log=p\n";

fn percentage_matches_fio() -> Result<String, String> {
    common::have_fio()?;
    let job = format!(
        "{BASE}log_prio=1\n[j]\nrw=randread\nbs=4k\nprioclass=3\ncmdprio_percentage=20\ncmdprio_class=1\n"
    );
    let c = both(&job);
    Ok([
        check(&c, "0", "4096", "0x2000", 20.0),
        check(&c, "0", "4096", "0x6000", 80.0),
    ]
    .join("; "))
}

fn without_log_prio_marks_real_time() -> Result<String, String> {
    common::have_fio()?;
    let job = format!("{BASE}[j]\nrw=randread\nbs=4k\ncmdprio_percentage=30\n");
    let c = both(&job);
    Ok(check(&c, "0", "4096", "1", 30.0))
}

fn bssplit_matches_fio() -> Result<String, String> {
    common::have_fio()?;
    let job = format!(
        "{BASE}log_prio=1\n[j]\nrw=randrw\nprioclass=2\nprio=7\nbssplit=4k/40:64k/60,64k/100\n\
         cmdprio_bssplit=4k/25/1/1:4k/75/3/2:64k/0,64k/0\n"
    );
    let c = both(&job);
    Ok([
        check(&c, "0", "4096", "0x2001", 25.0),
        check(&c, "0", "4096", "0x6002", 75.0),
        check(&c, "0", "65536", "0x4007", 100.0),
        check(&c, "1", "65536", "0x4007", 100.0),
    ]
    .join("; "))
}

pub fn main() {
    harness_skip_or(
        "cmdprio",
        [
            (
                "cmdprio_percentage_matches_fio",
                percentage_matches_fio as _,
            ),
            (
                "cmdprio_without_log_prio_marks_real_time",
                without_log_prio_marks_real_time as _,
            ),
            ("cmdprio_bssplit_matches_fio", bssplit_matches_fio as _),
        ],
    );
}
