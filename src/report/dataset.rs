//! `iogauge dataset`'s text reports: what was made (or checked), how much and how fast.

use super::Exporter;
use crate::result::dataset::{CreateReport, Problems, VerifyReport};
use crate::units::{format_count, format_ns, format_size_human};

pub struct Text;

impl Exporter<CreateReport> for Text {
    fn render(&self, r: &CreateReport) -> String {
        let mut s = format!("dataset in {}: {}\n", r.dir, r.spec.describe());
        s += &format!(
            "  made {} files ({}) in {} folders in {} with {} thread{}: {} files/s, {:.1} MiB/s\n",
            r.files,
            format_size_human(r.bytes),
            r.dirs,
            format_ns(r.elapsed_ns as f64),
            r.threads,
            if r.threads == 1 { "" } else { "s" },
            format_count(r.files_per_s),
            r.mib_per_s
        );
        s += &format!(
            "  then synced to the device in {} (not counted above)\n",
            format_ns(r.sync_ns as f64)
        );
        s += &format!(
            "  manifest {} (dataset checksum {})\n",
            r.manifest, r.manifest_xxh3
        );
        s
    }
}

impl Exporter<VerifyReport> for Text {
    fn render(&self, r: &VerifyReport) -> String {
        let verdict = if r.ok { "the same" } else { "DIFFERENT" };
        let mut s = format!(
            "{}: {verdict} as its manifest {} (dataset checksum {})\n",
            r.dir, r.manifest, r.manifest_xxh3
        );
        s += &format!(
            "  read {} files ({}) in {} with {} thread{}: {:.1} MiB/s (page cache not dropped)\n",
            r.files,
            format_size_human(r.bytes),
            format_ns(r.elapsed_ns as f64),
            r.threads,
            if r.threads == 1 { "" } else { "s" },
            r.mib_per_s
        );
        for (what, p) in [
            ("missing", &r.missing),
            ("of another size", &r.wrong_size),
            ("with other content", &r.wrong_content),
            ("not in the manifest (not counted against it)", &r.extra),
        ] {
            s += &problems(what, p);
        }
        s
    }
}

/// "  3 files missing: a, b, c" (the first ten named).
fn problems(what: &str, p: &Problems) -> String {
    if p.count == 0 {
        return String::new();
    }
    let shown: Vec<&str> = p.paths.iter().take(10).map(String::as_str).collect();
    let more = match p.count as usize - shown.len() {
        0 => String::new(),
        n => format!(" and {n} more"),
    };
    let noun = if p.count == 1 { "file" } else { "files" };
    format!("  {} {noun} {what}: {}{more}\n", p.count, shown.join(", "))
}
