//! iozone's own layouts of a sweep (`iogauge iozone`), for the scripts and spreadsheets made
//! for iozone's output: the result table it always prints, the `-R` ("Excel") report with
//! its `-+u` CPU sections, and `-t`'s throughput lines.
//!
//! Layouts follow iozone's source (`print_header`, `dump_excel`, `dump_cputimes`, the
//! throughput printf lines of iozone.c) and its published output (3.4xx to 3.506); rates are
//! kB/s (1024 bytes), or operations (records) per second with `-O`.

use crate::result::sweep::{Cell, Status, SweepResult, Test};
use std::fmt::Write;

/// What iozone's options change in its layouts.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Layout {
    /// -O: operations per second instead of kB/s.
    pub ops: bool,
    /// -+u: CPU utilization in the -R report and the throughput lines.
    pub cpu: bool,
}

impl Layout {
    /// A cell's rate as iozone prints it; 0 where nothing was measured, as iozone prints it.
    fn rate(self, c: Option<&Cell>) -> f64 {
        let per_sec = match self.ops {
            true => c.and_then(Cell::ops_per_sec),
            false => c.and_then(Cell::bytes_per_sec).map(|b| b / 1024.0),
        };
        per_sec.unwrap_or(0.0)
    }

    /// iozone's word for what a rate counts ("kB" or "ops"), before "/sec".
    fn unit(self) -> &'static str {
        if self.ops {
            "ops"
        } else {
            "kB"
        }
    }
}

/// The columns of iozone's table header (`print_header`): the width of each, its top line
/// and its name. iogauge never runs the last four (fwrite to freread, -i 6 and 7); iozone
/// names them whatever -i picked, and so does this header.
const HEADER: [(usize, &str, &str); 15] = [
    (16, "", "kB"),
    (8, "", "reclen"),
    (9, "", "write"),
    (9, "", "rewrite"),
    (8, "", "read"),
    (10, "", "reread"),
    (8, "random", "read"),
    (10, "random", "write"),
    (9, "bkwd", "read"),
    (10, "record", "rewrite"),
    (10, "stride", "read"),
    (9, "", "fwrite"),
    (9, "", "frewrite"),
    (9, "", "fread"),
    (9, "", "freread"),
];

/// iozone's two header lines.
fn header() -> String {
    let mut o = String::new();
    for top in [true, false] {
        let text: String = HEADER
            .iter()
            .map(|&(w, over, name)| format!("{:>w$}", if top { over } else { name }))
            .collect();
        let _ = writeln!(o, "{}", text.trim_end());
    }
    o
}

/// The width of a test's figure in a row: iozone prints record rewrite and stride read with
/// a space before their nine places.
fn width(t: Test) -> usize {
    match t {
        Test::RecordRewrite | Test::StrideRead => 10,
        _ => 9,
    }
}

/// Every test of each iozone test -i picked, in iozone's order: a test of a picked pair that
/// did not run (rewrite and reread under -+n) still has its column, with 0, as in iozone.
pub fn columns(tests: &[Test]) -> Vec<Test> {
    let picked = |t: &Test| tests.iter().any(|x| x.iozone_number() == t.iozone_number());
    Test::ALL.into_iter().filter(picked).collect()
}

/// The table iozone prints whatever the options (its auto-mode and single-run output): the
/// unit line, the two header lines, then a row per file size and record size with kB and
/// reclen in kB and each test's rate as a whole number. A test -i did not pick is blank, as
/// in iozone; lines end at their last figure (iozone pads them with spaces).
pub fn table(r: &SweepResult, l: Layout) -> String {
    let mut o = String::from(match l.ops {
        true => "\tOPS Mode. Output is in operations per second.\n",
        false => "\tOutput is in kBytes/sec\n",
    });
    o.push_str(&header());
    let shown = columns(&r.params.tests);
    for &(f, rec) in &r.params.grid() {
        let mut row = format!("{:16}{:8}", f / 1024, rec / 1024);
        for t in Test::ALL {
            let w = width(t);
            if shown.contains(&t) {
                let _ = write!(row, "{:>w$.0}", l.rate(r.cell(t, f, rec)));
            } else {
                row.push_str(&" ".repeat(w));
            }
        }
        let _ = writeln!(o, "{}", row.trim_end());
    }
    o
}

/// iozone's `-R` report (`dump_excel`): after "Excel output is below:", for each test a blank
/// line, its quoted title, a row of every record size in kB, then a row per file size in kB
/// with each rate as a whole number, one space each side; rows stop at the last record that
/// fits the file. Cells iozone's crossover skips, or iogauge could not measure, are 0, as
/// iozone prints them. With -+u, the CPU sections follow, as iozone's `dump_cputimes`.
pub fn excel(r: &SweepResult, l: Layout) -> String {
    let mut o = String::from("Excel output is below:\n");
    for test in columns(&r.params.tests) {
        matrix(&mut o, r, test.iozone_title(), test, |c| {
            format!(" {:.0} ", l.rate(c))
        });
    }
    if l.cpu {
        o.push_str(&cpu(r));
    }
    o
}

/// iozone -+u's CPU sections of the -R report (`dump_times`): per test, the CPU time over the
/// wall time of each cell in percent, two decimals; 0 where nothing was measured, which
/// iozone's own title tells the reader to ignore.
pub fn cpu(r: &SweepResult) -> String {
    let mut o = String::new();
    for test in columns(&r.params.tests) {
        let title = format!(
            "{} CPU utilization report (Zero values should be ignored)",
            test.iozone_title().trim_end_matches(" report")
        );
        matrix(&mut o, r, &title, test, |c| {
            format!(" {:6.2}", c.and_then(Cell::cpu_pct).unwrap_or(0.0))
        });
    }
    o
}

/// One section of the -R report: the title in quotes, the record sizes, a row per file size
/// with `shown` of each of `test`'s cells.
fn matrix(
    o: &mut String,
    r: &SweepResult,
    title: &str,
    test: Test,
    shown: impl Fn(Option<&Cell>) -> String,
) {
    let _ = write!(o, "\n\"{title}\"\n      ");
    for &rec in &r.params.record_sizes {
        let _ = write!(o, "  \"{}\"", rec / 1024);
    }
    o.push('\n');
    for &f in &r.params.file_sizes {
        let _ = write!(o, "\"{}\"  ", f / 1024);
        for &rec in r.params.record_sizes.iter().filter(|&&rec| rec <= f) {
            o.push_str(&shown(r.cell(test, f, rec)));
        }
        o.push('\n');
    }
}

/// iozone -t's text (iozone's wording and tabs): the threads and sizes, then for each test of
/// each cell what the threads saw each on its own (summed, smallest, largest, mean) and what
/// the whole took ("parent sees": all of it over the time from the first start to the last
/// end), in kB/s or ops/s; with -+u, the CPU line iozone prints after each test.
pub fn throughput(r: &SweepResult, l: Layout) -> String {
    let n = r.params.threads;
    let who = if n == 1 { "thread" } else { "threads" };
    let mut o = format!("\tThroughput test with {n} {who}\n");
    for &(f, rec) in &r.params.grid() {
        let _ = writeln!(
            o,
            "\tEach thread writes a {} kByte file in {} kByte records\n",
            f / 1024,
            rec / 1024
        );
        for test in THROUGHPUT_ORDER {
            if let Some(c) = r.cell(test, f, rec).filter(|c| c.status == Status::Ok) {
                throughput_lines(&mut o, c, test, n, l);
            }
        }
    }
    o
}

/// One test's lines of iozone -t.
fn throughput_lines(o: &mut String, c: &Cell, test: Test, n: u32, l: Layout) {
    let unit = l.unit();
    // What one unit is: a kB, or a record under -O.
    let per = if l.ops { c.record_size as f64 } else { 1024.0 };
    let amount = c.file_size as f64 / per;
    let per_sec = |amount: f64, ns: u64| {
        if ns > 0 {
            amount * 1e9 / ns as f64
        } else {
            0.0
        }
    };
    let own: Vec<f64> = if c.thread_ns.is_empty() {
        vec![per_sec(amount, c.elapsed_ns)]
    } else {
        c.thread_ns.iter().map(|&ns| per_sec(amount, ns)).collect()
    };
    let sum: f64 = own.iter().sum();
    let min = own.iter().copied().fold(f64::INFINITY, f64::min);
    let max = own.iter().copied().fold(0.0, f64::max);
    let label = label(test, n);
    let parent = per_sec(c.bytes as f64 / per, c.elapsed_ns);
    let avg = sum / own.len() as f64;
    let _ = writeln!(
        o,
        "\tChildren see throughput for {label}= {sum:10.2} {unit}/sec"
    );
    let _ = writeln!(
        o,
        "\tParent sees throughput for {label}= {parent:10.2} {unit}/sec"
    );
    let _ = writeln!(
        o,
        "\tMin throughput per process \t\t\t= {min:10.2} {unit}/sec "
    );
    let _ = writeln!(
        o,
        "\tMax throughput per process \t\t\t= {max:10.2} {unit}/sec"
    );
    let _ = writeln!(
        o,
        "\tAvg throughput per process \t\t\t= {avg:10.2} {unit}/sec"
    );
    let _ = writeln!(o, "\tMin xfer \t\t\t\t\t= {amount:10.2} {unit}");
    if l.cpu {
        let (wall, cpu) = (c.elapsed_ns as f64 / 1e9, c.cpu_ns as f64 / 1e9);
        let pct = c.cpu_pct().unwrap_or(0.0);
        let _ = writeln!(
            o,
            "\tCPU Utilization: Wall time {wall:8.3}    CPU time {cpu:8.3}    CPU utilization \
             {pct:6.2} %"
        );
    }
    o.push('\n');
}

/// The order iozone -t runs its tests in.
const THROUGHPUT_ORDER: [Test; 8] = [
    Test::Write,
    Test::Rewrite,
    Test::Read,
    Test::Reread,
    Test::BackwardRead,
    Test::StrideRead,
    Test::RandomRead,
    Test::RandomWrite,
];

/// iozone -t's name for a test's threads, with its count and the spacing before "=".
fn label(t: Test, n: u32) -> String {
    match t {
        Test::Write => format!("{n:2} initial writers \t"),
        Test::Rewrite => format!("{n:2} rewriters \t"),
        Test::Read => format!("{n:2} readers \t\t"),
        Test::Reread => format!("{n} re-readers \t"),
        Test::BackwardRead => format!("{n} reverse readers \t"),
        Test::StrideRead => format!("{n} stride readers \t"),
        Test::RandomRead => format!("{n} random readers \t"),
        Test::RandomWrite => format!("{n} random writers \t"),
        Test::RecordRewrite => format!("{n} record rewriters \t"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// iozone's header as its 3.4xx to 3.506 runs print it, copied with its spacing from a
    /// published microSD benchmark run (`iozone -e -I -a -s 100M -r 4k -i 0 -i 1 -i 2`).
    #[test]
    fn the_header_is_iozones_to_the_space() {
        let published = concat!(
            "                                                              random    random     \
             bkwd    record    stride\n",
            "              kB  reclen    write  rewrite    read    reread    read     write     \
             read   rewrite      read   fwrite frewrite    fread  freread\n"
        );
        assert_eq!(header(), published);
    }

    #[test]
    fn a_pair_picked_keeps_both_columns() {
        use Test::*;
        assert_eq!(columns(&[Write, Read]), vec![Write, Rewrite, Read, Reread]);
        assert_eq!(columns(&[RandomRead]), vec![RandomRead, RandomWrite]);
        assert_eq!(columns(&[StrideRead]), vec![StrideRead]);
    }
}
