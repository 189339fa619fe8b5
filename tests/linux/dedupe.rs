//! Deduplicable write data side by side with the real fio: the same job file (8 MiB written
//! in 4 KiB blocks, dedupe_percentage=50) run by fio and by `iogauge fio`, each in a folder of
//! its own, and the share of 4 KiB blocks of what each wrote that repeat an earlier block
//! compared with the share asked for and with fio's. fio 3.33 gives 48.5% for one job, in
//! either mode (its draws are seeded, so the same every run), and 48.9% over the two files
//! of the dedupe_global job (34.0% and 33.4% within each file).
//!
//! The tolerance: the draw of each write is a coin of 50%, so over 2,048 writes the share
//! has a standard deviation of 1.1 points; 4 points either way of 50 is over three and a
//! half of them, and fio and iogauge, each within that, may differ by up to 6.

use crate::common;

use common::{bin, harness_skip_or, p, work_dir};
use std::collections::HashSet;
use std::path::Path;
use std::process::Command;

const BLOCK: usize = 4096;
/// How far from the asked share, and from fio's, the measured share may be (points).
const FROM_ASKED: f64 = 4.0;
const FROM_FIO: f64 = 6.0;

/// The share of the files' 4 KiB blocks, in percent, whose content came before (in the
/// files in turn).
fn duplicate_pct(files: &[Vec<u8>]) -> f64 {
    let mut seen = HashSet::new();
    let (mut blocks, mut dups) = (0, 0);
    for f in files {
        for b in f.chunks(BLOCK) {
            blocks += 1;
            if !seen.insert(b) {
                dups += 1;
            }
        }
    }
    assert!(blocks > 0, "nothing written");
    dups as f64 * 100.0 / blocks as f64
}

/// Run `job` with fio and with `iogauge fio`, each in a folder of its own; the shares of
/// duplicate blocks, fio's then iogauge's, over `files` together and over each alone.
fn both(job: &str, files: &[&str]) -> ([f64; 2], Vec<[f64; 2]>) {
    let mut shares = Vec::new();
    for fio in [true, false] {
        let dir = work_dir();
        let d = dir.path();
        std::fs::write(d.join("j.fio"), job).unwrap();
        let o = match fio {
            true => Command::new("fio")
                .current_dir(d)
                .arg("j.fio")
                .output()
                .expect("fio starts"),
            false => bin()
                .current_dir(d)
                .args(["fio", "j.fio", "--keep", "--no-save"])
                .output()
                .expect("iogauge starts"),
        };
        let who = if fio { "fio" } else { "iogauge" };
        assert!(
            o.status.success(),
            "{who} failed on {}: {}",
            p(&d.join("j.fio")),
            String::from_utf8_lossy(&o.stderr)
        );
        let data: Vec<Vec<u8>> = files
            .iter()
            .map(|f| std::fs::read(Path::new(d).join(f)).unwrap())
            .collect();
        for f in &data {
            assert_eq!(f.len(), 8 << 20, "{who} wrote {} bytes", f.len());
        }
        let alone: Vec<f64> = data
            .iter()
            .map(|f| duplicate_pct(std::slice::from_ref(f)))
            .collect();
        shares.push((duplicate_pct(&data), alone));
    }
    let together = [shares[0].0, shares[1].0];
    let alone = (0..files.len())
        .map(|i| [shares[0].1[i], shares[1].1[i]])
        .collect();
    (together, alone)
}

/// The share asked for, within [`FROM_ASKED`], and fio's, within [`FROM_FIO`].
fn check(what: &str, [fio, iogauge]: [f64; 2], asked: f64) -> String {
    assert!(
        (iogauge - asked).abs() <= FROM_ASKED,
        "{what}: iogauge wrote {iogauge:.1}% duplicate blocks, asked {asked}%"
    );
    assert!(
        (iogauge - fio).abs() <= FROM_FIO,
        "{what}: iogauge wrote {iogauge:.1}% duplicate blocks, fio {fio:.1}%"
    );
    format!("{what}: fio {fio:.1}%, iogauge {iogauge:.1}%")
}

const ONE_JOB: &str = "[w]\nfilename=w.dat\nsize=8m\nbs=4k\nrw=write\ndedupe_percentage=50\n";

fn repeat_matches_fio() -> Result<String, String> {
    common::have_fio()?;
    let (shares, _) = both(ONE_JOB, &["w.dat"]);
    Ok(check("repeat", shares, 50.0))
}

fn working_set_matches_fio() -> Result<String, String> {
    common::have_fio()?;
    let job = format!(
        "{ONE_JOB}dedupe_mode=working_set\ndedupe_working_set_percentage=30\nbuffer_compress_percentage=50\n"
    );
    let (shares, _) = both(&job, &["w.dat"]);
    Ok(check("working_set", shares, 50.0))
}

/// Two jobs sharing one working set: half of each one's duplicates repeat the other's
/// writes, so within one file fewer blocks repeat than over both.
fn global_working_set_matches_fio() -> Result<String, String> {
    common::have_fio()?;
    let job = "[global]\nsize=8m\nbs=4k\nrw=write\ndedupe_percentage=50\n\
               dedupe_mode=working_set\ndedupe_working_set_percentage=50\ndedupe_global=1\n\
               buffer_compress_percentage=50\n[a]\nfilename=a.dat\n[b]\nfilename=b.dat\n";
    let (shares, alone) = both(job, &["a.dat", "b.dat"]);
    let mut said = vec![check("both files", shares, 50.0)];
    for (f, [fio, iogauge]) in ["a", "b"].iter().zip(alone) {
        assert!(
            iogauge < shares[1] - 5.0 && (iogauge - fio).abs() <= 2.0 * FROM_FIO,
            "{f} alone: iogauge {iogauge:.1}%, fio {fio:.1}%, both files {:.1}%",
            shares[1]
        );
        said.push(format!("{f} alone: fio {fio:.1}%, iogauge {iogauge:.1}%"));
    }
    Ok(said.join("; "))
}

pub fn main() {
    harness_skip_or(
        "dedupe",
        [
            ("dedupe_repeat_matches_fio", repeat_matches_fio as _),
            (
                "dedupe_working_set_matches_fio",
                working_set_matches_fio as _,
            ),
            (
                "dedupe_global_working_set_matches_fio",
                global_working_set_matches_fio as _,
            ),
        ],
    );
}
