//! iozone command lines (`iogauge iozone -a -g 2G -i 0 -i 1 -f /mnt/x/iozone.tmp`), read with
//! iozone's defaults and meaning into a sweep's [`Params`]. Options iogauge cannot honour are
//! refused by name; none is ignored quietly.
//!
//! iozone's rules kept here: sizes are kB unless suffixed k, m or g; without -a one file size
//! (-s, 512 kB) and one record size (-r, 4 kB); -a sweeps 64 kB to 512 MB (-n, -g) in records
//! of 4 kB to 16 MB (-y, -q), records under 64 kB skipped for files of 32 MB and more unless
//! -z (or -A); with -a, -s or -r fix that axis; -i picks tests (all without it); -t N runs N
//! threads, each on its own file of -s bytes.
//!
//! Files: iozone writes the file named by -f (or -F). iogauge never writes to a file it did
//! not make, so it sweeps in its own folder beside that name (in the same folder, so on the
//! same file system) and leaves the named file alone.

use crate::error::{Error, Result};
use crate::report::iozone::Layout;
use crate::sweep::{self, CacheMode, Params, Test};
use crate::units::format_size;
use std::path::{Path, PathBuf};

/// An iozone command line, read.
#[derive(Debug, Clone, PartialEq)]
pub struct Iozone {
    pub params: Params,
    /// The folder the sweep runs in: -f's (or -F's) folder, else the current one.
    pub dir: PathBuf,
    /// -R: print iozone's report layout.
    pub excel: bool,
    /// -b FILE: write iozone's report layout to FILE too.
    pub excel_file: Option<PathBuf>,
    /// -t: throughput mode, iozone's per-test throughput lines.
    pub throughput: bool,
    /// -O and -+u: ops/s for kB/s, CPU utilization shown.
    pub layout: Layout,
    /// -w: the last cell's files stay.
    pub keep_files: bool,
    /// What iogauge does differently from iozone, said once before the run.
    pub notes: Vec<String>,
}

/// What the options set, before iozone's defaults fill the rest.
#[derive(Default)]
struct Seen {
    auto: bool,
    all_records: bool,
    tests: Vec<u32>,
    file_sizes: Vec<u64>,
    record_sizes: Vec<u64>,
    min_file: Option<u64>,
    max_file: Option<u64>,
    min_record: Option<u64>,
    max_record: Option<u64>,
    file: Option<String>,
    files: Vec<String>,
    direct: bool,
    flush: bool,
    close: bool,
    sync: bool,
    excel: bool,
    excel_file: Option<String>,
    threads: Option<u32>,
    stride: Option<u64>,
    /// -O: rates in operations per second.
    ops: bool,
    /// -+u: CPU utilization shown.
    cpu: bool,
    /// -+n: no rewrite, no reread.
    no_retests: bool,
    /// -w: the files are kept.
    keep: bool,
    /// Options and tests iogauge does not do, as typed ("-K", "-i 8 (random mix)").
    refused: Vec<String>,
    notes: Vec<String>,
}

/// iozone's options that take a value (its getopt string's `x:`), those iogauge reads or not.
const IOZONE_WITH_VALUE: &str = "JjkVrtsfFdluUSLHPibXYgnyq";
/// iozone's `-+x` options that take the next word as their value (iozone.c's `-+` cases that
/// read `argv[optind++]`).
const IOZONE_PLUS_WITH_VALUE: &str = "achmxipAqKwyCSWHPO";
/// The options iogauge reads that take a value.
const WITH_VALUE: &str = "isrngyqfbtjF";
/// The options iogauge reads that stand alone and may be bundled (`-Ra`, `-aRz`).
const FLAGS: &str = "aAzIecoRwTOp";
/// What iogauge reads, for the refusal of what it does not.
const READS: &str = "it reads -a -A -z -i -s -r -n -g -y -q -f -F -I -e -c -o -R -b -t -j -w -T \
                     -O -p -+n -+u";
const TESTS: &str = "it runs -i 0 (write, rewrite), 1 (read, reread), 2 (random read, write), 3 \
                     (backward read), 4 (record rewrite) and 5 (stride read)";

/// Read `args` (everything after `iogauge iozone`). Every option and test iogauge does not
/// do is named in one error, so that a script's line is mended in one go.
pub fn parse(args: &[String]) -> Result<Iozone> {
    let mut seen = Seen::default();
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        let Some(body) = a.strip_prefix('-').filter(|b| !b.is_empty()) else {
            return Err(Error::usage(format!(
                "'{a}': iozone takes options only (-a, -s SIZE, -f FILE...); a file is named \
                 with -f"
            )));
        };
        i = word(&mut seen, body, args, i + 1)?;
    }
    refuse(&seen.refused)?;
    build(seen)
}

/// One word of options (`-a`, `-Raz`, `-s4m`, `-+n`) without its dash; `i` is where the next
/// word is, returned past the values this one took.
fn word(seen: &mut Seen, body: &str, args: &[String], mut i: usize) -> Result<usize> {
    for (at, c) in body.char_indices() {
        let rest = &body[at + c.len_utf8()..];
        if c == '+' {
            return plus(seen, rest, args, i);
        }
        if !IOZONE_WITH_VALUE.contains(c) {
            if FLAGS.contains(c) {
                flag(seen, c);
            } else {
                seen.refuse(format!("-{c}"));
            }
            continue;
        }
        let value = if !rest.is_empty() {
            rest.to_string()
        } else if i < args.len() {
            i += 1;
            args[i - 1].clone()
        } else {
            return Err(Error::usage(format!("iozone -{c} needs a value")));
        };
        if !WITH_VALUE.contains(c) {
            seen.refuse(format!("-{c}"));
        } else if c == 'F' {
            i = files(seen, value, args, i);
        } else {
            option(seen, c, &value)?;
        }
        return Ok(i);
    }
    Ok(i)
}

/// `-+x`, iozone's second set of options: the letter is the rest of the word, or the next
/// word (getopt reads `-+ n` so too).
fn plus(seen: &mut Seen, rest: &str, args: &[String], mut i: usize) -> Result<usize> {
    let letter = match rest.chars().next() {
        Some(l) => l,
        None => {
            let next = args.get(i).and_then(|w| w.chars().next());
            i += 1;
            next.ok_or_else(|| Error::usage("iozone -+ needs a letter (-+n, -+u)".to_string()))?
        }
    };
    match letter {
        'n' => seen.no_retests = true,
        'u' => seen.cpu = true,
        other => {
            seen.refuse(format!("-+{other}"));
            if IOZONE_PLUS_WITH_VALUE.contains(other) && i < args.len() {
                i += 1;
            }
        }
    }
    Ok(i)
}

/// Every option and test of the line that iogauge does not do, in one error.
fn refuse(refused: &[String]) -> Result<()> {
    let message = match refused {
        [] => return Ok(()),
        [one] if one.starts_with("-i ") => {
            format!("iozone {one} is not a test iogauge runs; {TESTS}")
        }
        [one] => format!("iozone {one} is not an option iogauge reads ({READS})"),
        many => format!(
            "iozone {}: not options iogauge reads or tests it runs ({READS}; {TESTS})",
            many.join(", ")
        ),
    };
    Err(Error::usage(message))
}

impl Seen {
    /// Remember an option or test iogauge does not do, once, in the order typed.
    fn refuse(&mut self, what: String) {
        if !self.refused.contains(&what) {
            self.refused.push(what);
        }
    }
}

fn flag(seen: &mut Seen, c: char) {
    match c {
        'a' => seen.auto = true,
        // iozone's obsolete "Auto2": -az -i 0 -i 1, as its own splash line says.
        'A' => {
            seen.auto = true;
            seen.all_records = true;
            seen.tests.extend([0, 1]);
        }
        'z' => seen.all_records = true,
        'I' => seen.direct = true,
        'e' => seen.flush = true,
        'c' => seen.close = true,
        'o' => seen.sync = true,
        'R' => seen.excel = true,
        // iozone(1): "Give results in operations per second."
        'O' => seen.ops = true,
        // iozone(1): "Do not unlink temporary files when finished using them."
        'w' => seen.keep = true,
        // iozone(1): "Use POSIX pthreads for throughput tests" (processes without it).
        'T' => seen
            .notes
            .push("-T: iogauge's -t workers are threads of one process, with or without -T".into()),
        // iozone(1): -p "purges the processor cache before each file operation" by zero-filling
        // a buffer the size of that cache.
        _ => seen.notes.push(
            "-p: no processor cache purge; it matters only for files that fit in the CPU cache \
             (a few MiB), whose reads from the page cache may be faster than under iozone -p"
                .into(),
        ),
    }
}

/// -F FILE...: the names run up to the next option.
fn files(seen: &mut Seen, first: String, args: &[String], mut i: usize) -> usize {
    seen.files.push(first);
    while i < args.len() && !args[i].starts_with('-') {
        seen.files.push(args[i].clone());
        i += 1;
    }
    i
}

fn option(seen: &mut Seen, c: char, value: &str) -> Result<()> {
    match c {
        'i' => test(seen, value)?,
        's' => seen.file_sizes.push(kb(c, value)?),
        'r' => seen.record_sizes.push(kb(c, value)?),
        'n' => seen.min_file = Some(kb(c, value)?),
        'g' => seen.max_file = Some(kb(c, value)?),
        'y' => seen.min_record = Some(kb(c, value)?),
        'q' => seen.max_record = Some(kb(c, value)?),
        'f' => seen.file = Some(value.to_string()),
        // -b turns -R on too, in iozone.
        'b' => {
            seen.excel_file = Some(value.to_string());
            seen.excel = true;
        }
        't' => seen.threads = Some(number(c, value)?),
        _ => seen.stride = Some(number(c, value)?),
    }
    Ok(())
}

fn number<T: std::str::FromStr>(c: char, value: &str) -> Result<T> {
    value
        .parse()
        .map_err(|_| Error::usage(format!("iozone -{c} {value}: expected a whole number")))
}

/// iozone's sizes: kB without a suffix; k, m, g (either case) for kB, MB and GB.
fn kb(c: char, value: &str) -> Result<u64> {
    let bad = || {
        Error::usage(format!(
            "iozone -{c} {value}: expected a size such as 512 (kB), 64k, 100m or 2g"
        ))
    };
    let v = value.trim();
    let (num, shift) = match v.char_indices().last() {
        Some((at, 'k' | 'K')) => (&v[..at], 10),
        Some((at, 'm' | 'M')) => (&v[..at], 20),
        Some((at, 'g' | 'G')) => (&v[..at], 30),
        _ => (v, 10),
    };
    let n: u64 = num.parse().map_err(|_| bad())?;
    let bytes = n
        .checked_shl(shift)
        .filter(|b| b >> shift == n)
        .ok_or_else(bad)?;
    if bytes == 0 {
        return Err(bad());
    }
    Ok(bytes)
}

/// -i N: 0 to 5 are the tests iogauge sweeps; iozone's others are named in the refusal.
fn test(seen: &mut Seen, value: &str) -> Result<()> {
    let n: u32 = number('i', value)?;
    let other = match n {
        0..=5 => {
            seen.tests.push(n);
            return Ok(());
        }
        6 => "fwrite/re-fwrite",
        7 => "fread/re-fread",
        8 => "random mix",
        9 => "pwrite/re-pwrite",
        10 => "pread/re-pread",
        11 => "pwritev/re-pwritev",
        12 => "preadv/re-preadv",
        _ => {
            return Err(Error::usage(format!(
                "iozone -i {n}: iozone's tests are 0 to 12"
            )))
        }
    };
    seen.refuse(format!("-i {n} ({other})"));
    Ok(())
}

fn build(mut seen: Seen) -> Result<Iozone> {
    let throughput = seen.threads.is_some();
    let auto_flags = seen.min_file.is_some()
        || seen.max_file.is_some()
        || seen.min_record.is_some()
        || seen.max_record.is_some();
    if throughput && (seen.auto || auto_flags) {
        return Err(Error::usage(
            "iozone -t: can not mix throughput mode and auto-mode flags (-a, -A, -n, -g, -y, -q)"
                .to_string(),
        ));
    }
    if throughput && seen.file.is_some() {
        return Err(Error::usage(
            "iozone -f: you must use -F when using multiple threads or processes (-t)".to_string(),
        ));
    }
    let (file_sizes, record_sizes) = grid(&seen)?;
    let mut notes = std::mem::take(&mut seen.notes);
    let tests = tests(&seen, throughput, &mut notes)?;
    if seen.cpu && !seen.excel && !throughput {
        notes.push(
            "-+u: CPU utilization is printed after iozone's table (iozone shows it only with -R \
             or -t): each cell's CPU time, all threads, over its time"
                .into(),
        );
    }
    let dir = folder(&seen.file, &seen.files, seen.keep, &mut notes)?;
    let threads = seen.threads.unwrap_or(1);
    if !seen.files.is_empty() && seen.files.len() != threads as usize {
        return Err(Error::usage(format!(
            "iozone -F names {} file(s) for -t {threads}: one per thread",
            seen.files.len()
        )));
    }
    let excel_file = seen.excel_file.map(PathBuf::from);
    if let Some(f) = &excel_file {
        if f.exists() {
            return Err(Error::usage(format!(
                "iozone -b {}: the file exists; iogauge writes only new files",
                f.display()
            )));
        }
        notes.push(format!(
            "-b {}: written as iozone's -R text layout (not a binary spreadsheet)",
            f.display()
        ));
    }
    let params = Params {
        file_sizes,
        record_sizes,
        tests,
        cache: if seen.direct {
            CacheMode::Direct
        } else {
            CacheMode::Buffered
        },
        include_flush: seen.flush,
        include_close: seen.close,
        sync_writes: seen.sync,
        // iozone's crossover: only where no size or size limit was given.
        skip_small_records: seen.auto
            && !seen.all_records
            && seen.file_sizes.is_empty()
            && seen.record_sizes.is_empty()
            && seen.min_record.is_none()
            && seen.max_record.is_none(),
        threads,
        stride: seen.stride.unwrap_or(17),
        knee_drop_pct: 30.0,
        memory_limit: None,
    };
    params.validate(&sweep::Flags::IOZONE)?;
    Ok(Iozone {
        params,
        dir,
        excel: seen.excel,
        excel_file,
        throughput,
        layout: Layout {
            ops: seen.ops,
            cpu: seen.cpu,
        },
        keep_files: seen.keep,
        notes,
    })
}

/// The tests -i picks (all of iogauge's without it), less the retests under -+n and the record
/// rewrite throughput mode lacks.
fn tests(seen: &Seen, throughput: bool, notes: &mut Vec<String>) -> Result<Vec<Test>> {
    let mut tests: Vec<Test> = if seen.tests.is_empty() {
        notes.push(
            "without -i iozone also runs fwrite/fread (-i 6, 7); iogauge runs -i 0 to 5".into(),
        );
        Test::ALL.to_vec()
    } else {
        Test::ALL
            .into_iter()
            .filter(|t| seen.tests.contains(&t.iozone_number()))
            .collect()
    };
    // iozone(1), -+n: "No retests selected. Used to prevent retests from running."
    if seen.no_retests {
        tests.retain(|&t| t != Test::Rewrite && t != Test::Reread);
    }
    // iozone's throughput mode has no record rewrite.
    if throughput {
        tests.retain(|&t| t != Test::RecordRewrite);
    }
    if tests.is_empty() {
        return Err(Error::usage(
            "iozone -i 4: throughput mode (-t) has no record rewrite test".to_string(),
        ));
    }
    if !seen.tests.is_empty() && !seen.tests.contains(&0) {
        notes.push(
            "without -i 0 iogauge writes each file first, untimed, for the tests to read".into(),
        );
    }
    Ok(tests)
}

/// The file sizes and record sizes: fixed by -s and -r, or iozone -a's doubling ranges.
fn grid(seen: &Seen) -> Result<(Vec<u64>, Vec<u64>)> {
    let axis = |fixed: &[u64], lo: Option<u64>, hi: Option<u64>, dlo: u64, dhi: u64, what| {
        if !fixed.is_empty() {
            let mut v = fixed.to_vec();
            v.sort_unstable();
            v.dedup();
            return Ok(v);
        }
        if !seen.auto {
            return Ok(vec![if what == 's' { 512 << 10 } else { 4 << 10 }]);
        }
        let (lo, hi) = (lo.unwrap_or(dlo), hi.unwrap_or(dhi));
        if lo > hi {
            return Err(Error::usage(format!(
                "iozone: the smallest {} ({}) is larger than the largest ({})",
                if what == 's' {
                    "file size, -n"
                } else {
                    "record size, -y"
                },
                format_size(lo),
                format_size(hi)
            )));
        }
        Ok(sweep::doubling(lo, hi))
    };
    let files = axis(
        &seen.file_sizes,
        seen.min_file,
        seen.max_file,
        64 << 10,
        512 << 20,
        's',
    )?;
    let records = axis(
        &seen.record_sizes,
        seen.min_record,
        seen.max_record,
        4 << 10,
        16 << 20,
        'r',
    )?;
    Ok((files, records))
}

/// The folder of -f (or the first -F), which must exist; the current folder without one.
fn folder(
    file: &Option<String>,
    files: &[String],
    keep: bool,
    notes: &mut Vec<String>,
) -> Result<PathBuf> {
    let named = file.as_deref().or(files.first().map(String::as_str));
    let Some(name) = named else {
        return Ok(PathBuf::from("."));
    };
    let flag = if file.is_some() { "-f" } else { "-F" };
    let parent = Path::new(name)
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    if !parent.is_dir() {
        return Err(Error::usage(format!(
            "iozone {flag} {name}: the folder '{}' does not exist",
            parent.display()
        )));
    }
    if let Some(other) = files
        .iter()
        .find(|f| Path::new(f).parent() != Path::new(name).parent())
    {
        return Err(Error::usage(format!(
            "iozone -F {other}: iogauge puts every thread's file in one folder; name files in \
             the same folder"
        )));
    }
    notes.push(format!(
        "{flag} {name}: iogauge writes its own files in a folder it makes in '{}' ({}), never \
         a file it did not make",
        parent.display(),
        if keep {
            "kept with -w"
        } else {
            "and removes it"
        }
    ));
    Ok(parent.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(line: &str) -> Result<Iozone> {
        let args: Vec<String> = line.split_whitespace().map(String::from).collect();
        parse(&args)
    }

    #[test]
    fn auto_mode_is_iozones_grid() {
        let z = read("-a").unwrap();
        let p = &z.params;
        assert_eq!(p.file_sizes.first(), Some(&(64 << 10)));
        assert_eq!(p.file_sizes.last(), Some(&(512 << 20)));
        assert_eq!(p.record_sizes.first(), Some(&(4 << 10)));
        assert_eq!(p.record_sizes.last(), Some(&(16 << 20)));
        assert!(p.skip_small_records);
        assert_eq!(p.tests.len(), 9);
        assert_eq!(z.dir, PathBuf::from("."));
        assert!(!read("-a -z").unwrap().params.skip_small_records);
        let a2 = read("-A").unwrap();
        assert!(!a2.params.skip_small_records);
        assert_eq!(
            a2.params.tests,
            vec![Test::Write, Test::Rewrite, Test::Read, Test::Reread]
        );
        // A size given turns the crossover off, as in iozone.
        assert!(!read("-a -g 1g -y 4k").unwrap().params.skip_small_records);
        assert!(read("-Rab out.xls").unwrap().excel);
    }

    #[test]
    fn bundled_flags_attached_values_and_units() {
        let z = read("-Ra -n 1m -g1g -i 0 -i 1").unwrap();
        assert!(z.excel);
        assert_eq!(z.params.file_sizes.first(), Some(&(1 << 20)));
        assert_eq!(z.params.file_sizes.last(), Some(&(1 << 30)));
        assert_eq!(
            z.params.tests,
            vec![Test::Write, Test::Rewrite, Test::Read, Test::Reread]
        );
        // A plain number is kB.
        let z = read("-s 1024 -r 64 -i 0").unwrap();
        assert_eq!(
            (z.params.file_sizes[0], z.params.record_sizes[0]),
            (1 << 20, 64 << 10)
        );
    }

    #[test]
    fn without_auto_one_size_of_each_with_iozones_defaults() {
        let z = read("-i 0").unwrap();
        assert_eq!(z.params.file_sizes, vec![512 << 10]);
        assert_eq!(z.params.record_sizes, vec![4 << 10]);
    }

    #[test]
    fn the_sd_card_line_reads_as_published() {
        let z = read("-e -I -a -s 100M -r 4k -r 16384k -i 0 -i 1 -i 2").unwrap();
        let p = &z.params;
        assert_eq!(p.file_sizes, vec![100 << 20]);
        assert_eq!(p.record_sizes, vec![4 << 10, 16 << 20]);
        assert_eq!(p.cache, CacheMode::Direct);
        assert!(p.include_flush);
        assert_eq!(p.tests.len(), 6);
        // Repeated -r: exactly those sizes, no crossover (iozone runs both rows).
        assert_eq!(p.grid(), vec![(100 << 20, 4 << 10), (100 << 20, 16 << 20)]);
    }

    #[test]
    fn throughput_mode_takes_threads_and_files() {
        let dir = std::env::temp_dir();
        let d = dir.display();
        let z = read(&format!("-t 2 -s 1g -r 1m -i 0 -i 1 -F {d}/a {d}/b")).unwrap();
        assert!(z.throughput);
        assert_eq!(z.params.threads, 2);
        assert_eq!(z.dir, dir);
        let e = read(&format!("-t 3 -s 1m -F {d}/a {d}/b"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("-F names 2 file(s) for -t 3"), "{e}");
        assert!(read("-t 2 -a").is_err());
        assert!(read("-t 2 -g 1g").is_err());
        let e = read("-t 2 -s 1m -f x").unwrap_err().to_string();
        assert!(e.contains("must use -F"), "{e}");
        assert!(!z.params.tests.contains(&Test::RecordRewrite));
    }

    #[test]
    fn refusals_name_the_option() {
        for (line, needle) in [
            ("-a -i 8", "-i 8 (random mix)"),
            ("-a -x", "iozone -x is not"),
            ("-a -+m clients", "iozone -+m is not"),
            ("-s 10q", "iozone -s 10q"),
            ("-s", "-s needs a value"),
            ("-a -f /no/such/folder/f", "does not exist"),
            ("file", "'file'"),
            ("-I -s 1000 -r 3", "-r 3KiB"),
        ] {
            let e = read(line).unwrap_err().to_string();
            assert!(e.contains(needle), "{line}: {e}");
        }
    }

    #[test]
    fn harmless_flags_are_read_with_their_meaning() {
        let z = read("-a -O -+u -w -T -p -+n -i 0 -i 1 -s 4m").unwrap();
        assert_eq!(
            z.layout,
            Layout {
                ops: true,
                cpu: true
            }
        );
        assert!(z.keep_files);
        assert_eq!(z.params.tests, vec![Test::Write, Test::Read]);
        for note in ["-T: ", "-p: ", "-+u: "] {
            assert!(z.notes.iter().any(|n| n.starts_with(note)), "{note}");
        }
        // Bundled, and -+ with its letter in the next word, as getopt reads them.
        let z = read("-aOw -+ n -s 4m").unwrap();
        assert!(z.layout.ops && z.keep_files);
        assert!(!z.params.tests.contains(&Test::Rewrite));
    }

    #[test]
    fn every_refusal_of_a_line_is_in_one_error() {
        // -P and -+m take a value in iozone: the value is not taken for a stray word.
        let e = read("-a -P 0 -i 8 -K -+m clients -Q -K -i 7")
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("iozone -P, -i 8 (random mix), -K, -+m, -Q, -i 7 (fread/re-fread): "),
            "{e}"
        );
        assert_eq!(e.lines().count(), 1, "{e}");
        assert!(
            e.contains("-i 0 (write, rewrite)") && e.contains("-+n -+u"),
            "{e}"
        );
    }

    /// Command lines as published (iozone's documentation, benchmark scripts and articles; the
    /// sources are in tests/iozone/README.md), -f and -F pointed at a folder that exists here.
    #[test]
    fn published_command_lines_are_read_or_refused_by_name() {
        let tmp = std::env::temp_dir();
        let t = tmp.display();
        let read_ok = [
            "-a".to_string(),
            "-Ra".into(),
            "-Rab output.wks".into(),
            "-Ra -g 2G".into(),
            "-Ra -g 2G -i 0 -i 1".into(),
            "-Rac".into(),
            "-az -i 0 -i 1".into(),
            "-e -I -a -s 100M -r 4k -i 0 -i 1 -i 2".into(),
            format!("-e -I -a -s 100M -r 1024k -i 0 -i 2 -f {t}/iozone"),
            "-e -I -a -s 100M -r 4k -r 512k -r 16M -i 0 -i 1 -i 2".into(),
            "-a -e -I -i 0 -i 1 -i 2 -s 80M -r 4k".into(),
            "-e -I -a -s 100M -r 4k -r 16k -r 512k -r 1024k -r 16384k -i 0 -i 1 -i 2".into(),
            "-e -I -a -s 1000M -r 1024k -r 16384k -i 0 -i 1".into(),
            "-e -I -a -s 2000M -r 16384k -i 0 -i 1 -i 2".into(),
            format!("-Raz -b {t}/lab-iogauge-test.wks -g 1G"),
            format!("-a -n 512m -g 4g -i 0 -i 1 -i 5 -f {t}/iozone -Rb ./iozone-iogauge-test.xls"),
            "-a -i 0 -i 1 -i 2 -s 8g -r 16m -Rb ./iozone-iogauge-test.xls".into(),
            format!("-c -e -s 1024M -r 16K -t 1 -F {t}/f1 -i 0 -i 1"),
            format!("-c -e -s 10240M -r 1M -t 1 -F {t}/f3 -i 0 -i 1"),
            "-Rab 1gigtest.xls -i 0 -i 1 -+u -y 64k -q 64k -n 64k -g 1G -z".into(),
            "-s 4g -r 2k -r 4k -r 8k -r 16k -r 32k -O".into(),
            "-t 1 -i 0 -s 10G -r 1M -w -e".into(),
            format!("-w -Rb {t}/out.wks -t 3 -F {t}/1 {t}/2 {t}/3 -O -i0 -i2 -+n -r 4K -s 10G"),
        ];
        for line in &read_ok {
            if let Err(e) = read(line) {
                panic!("{line}: {e}");
            }
        }
        let p = read("-e -I -a -s 100M -r 4k -r 512k -r 16M -i 0 -i 1 -i 2")
            .unwrap()
            .params;
        assert_eq!(p.grid().len(), 3);
        assert_eq!(p.tests.len(), 6);
        let refused = [
            ("-aR -g 2G -i 0 -i 1 -i 2 -i 5 -i 8", "-i 8"),
            ("-R -l 5 -u 30 -r 4k -s 20g", "-l"),
            ("-M -+u -i0 -i1 -s1g -r256k -t12 -I", "-M"),
            (
                "-i0 -i2 -i5 -i8 -r 64k -s 400m -ecp -K",
                "-i 8 (random mix), -K:",
            ),
            // agrandol/StorageTest, containers/simple-iozone/run-iozone.sh.
            ("-o -O -r4k -S4 -s10m -l1", "-S, -l:"),
            // linux-kernel mailing list, a usercopy patch's benchmark (2005). iozone's atoi
            // reads "8000MB" as 8000 kB; iogauge asks what was meant.
            ("-CMR -i 0 -+n -+u -s 8000MB -t 4", "-s 8000MB"),
            ("-CMR -i 0 -+n -+u -s 8000M -t 4", "-C, -M:"),
        ];
        for (line, opt) in refused {
            let e = read(line).unwrap_err().to_string();
            assert!(e.contains(&format!("iozone {opt}")), "{line}: {e}");
        }
    }
}
