//! mdtest's summary as mdtest prints it (summarize_results_rank0): "SUMMARY rate (in
//! ops/sec): (of N iterations)" and a row per operation with the iterations' maximum,
//! minimum, mean and (sample) standard deviation; the tree's rows last.

use crate::result::mdtest::{MdtestResult, Op};
use std::fmt::Write;

/// What mdtest says before its summary, then the summary.
pub fn text(r: &MdtestResult, command_line: &[String], files: bool, dirs: bool) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "iogauge {} mdtest was launched with {} total task(s) (mdtest's output format)",
        env!("CARGO_PKG_VERSION"),
        r.ranks
    );
    let _ = writeln!(out, "Command line used: {}", command_line.join(" "));
    // mdtest's words: "files" with -F, "directories" with -D.
    let what = match (files, dirs) {
        (true, false) => "files",
        (false, true) => "directories",
        _ => "files/directories",
    };
    let _ = writeln!(
        out,
        "\n{} tasks, {} {what}",
        r.ranks,
        r.items_per_rank * u64::from(r.ranks)
    );
    let _ = writeln!(
        out,
        "\nSUMMARY rate (in ops/sec): (of {} iterations)",
        r.rates.len()
    );
    out.push_str(
        "   Operation                     Max            Min           Mean        Std Dev\n",
    );
    out.push_str(
        "   ---------                     ---            ---           ----        -------\n",
    );
    for i in rows(files, dirs) {
        let _ = write!(out, "   {:<18}     ", Op::name(i));
        numbers(&mut out, r, i);
    }
    for i in [Op::TreeCreate as usize, Op::TreeRemove as usize] {
        let _ = write!(out, "   {:<22} ", Op::name(i));
        numbers(&mut out, r, i);
    }
    out
}

/// The item operations mdtest prints: the folders' unless -F, the files' unless -D; never
/// "Directory read".
fn rows(files: bool, dirs: bool) -> Vec<usize> {
    let start = if dirs { 0 } else { Op::FileCreate as usize };
    let stop = if files {
        Op::TreeCreate as usize
    } else {
        Op::FileCreate as usize
    };
    (start..stop)
        .filter(|&i| i != Op::DirRead as usize)
        .collect()
}

fn numbers(out: &mut String, r: &MdtestResult, i: usize) {
    let v: Vec<f64> = r.rates.iter().map(|it| it[i]).collect();
    let n = v.len().max(1) as f64;
    let mean = v.iter().sum::<f64>() / n;
    let sd = match v.len() {
        0 | 1 => 0.0,
        k => (v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (k - 1) as f64).sqrt(),
    };
    let max = v.iter().copied().fold(0.0, f64::max);
    let min = v.iter().copied().reduce(f64::min).unwrap_or(0.0);
    let _ = writeln!(out, "{max:14.3} {min:14.3} {mean:14.3} {sd:14.3}");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_as_mdtest_prints_them() {
        let mut rates = [0.0; Op::COUNT];
        rates[Op::FileCreate as usize] = 1000.0;
        let r = MdtestResult {
            ranks: 2,
            items_per_rank: 10,
            tree_dirs: 1,
            rates: vec![rates, [0.0; Op::COUNT]],
        };
        let t = text(&r, &["mdtest".into()], true, false);
        assert!(
            t.contains("SUMMARY rate (in ops/sec): (of 2 iterations)"),
            "{t}"
        );
        let row = t.lines().find(|l| l.contains("File creation")).unwrap();
        assert_eq!(
            row,
            "   File creation                1000.000          0.000        500.000        707.107"
        );
        assert!(!t.contains("Directory creation") && t.contains("Tree removal"));
    }
}
