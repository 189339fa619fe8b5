//! The DiskSpd front end read as DiskSpd users write it: defaults, glued values, refusals in
//! DiskSpd's words.

use super::*;
use crate::spec::{Affinity, CacheMode, Distribution, FileService, FileSets, Pattern, Think};
use std::path::PathBuf;

fn parse_line(line: &str) -> Result<Diskspd> {
    let args: Vec<String> = line.split_whitespace().map(String::from).collect();
    parse(
        &args,
        &Targets {
            disks: &|| vec![PathBuf::from("/dev/vda"), PathBuf::from("/dev/vdb")],
        },
    )
}

fn err(line: &str) -> String {
    parse_line(line).unwrap_err().to_string()
}

#[test]
fn diskspd_defaults() {
    let d = parse_line("t.dat").unwrap();
    let j = &d.job;
    assert_eq!(j.shape.block_size, 64 << 10);
    assert_eq!(j.queue_depth, 2);
    assert_eq!(j.threads_per_target, 1);
    assert_eq!(j.timing.stop, Stop::Duration { ns: 10_000_000_000 });
    assert_eq!(j.timing.warmup_ns, 5_000_000_000);
    assert_eq!(j.cache, CacheMode::Buffered);
    assert_eq!(j.affinity, Some(Affinity::Auto));
    assert_eq!(
        j.shape.pattern,
        Pattern::Sequential {
            stride_bytes: 64 << 10,
            interlocked: false,
            backwards: false,
        }
    );
    assert!(!j.latency && !d.xml);
}

#[test]
fn glued_values_and_their_meaning() {
    let d = parse_line(
        "-b8K -d60 -o32 -t4 -r -w30 -Sh -L -c50G -W0 -C2 -D500 -z7 -g100i -a0,1 -Rxml t.dat",
    )
    .unwrap();
    let j = &d.job;
    assert_eq!(
        (
            j.shape.block_size,
            j.queue_depth,
            j.threads_per_target,
            j.shape.write_pct
        ),
        (8192, 32, 4, 30)
    );
    assert_eq!(
        j.shape.pattern,
        Pattern::Random {
            align_bytes: 8192,
            distribution: Distribution::Uniform
        }
    );
    assert_eq!(j.cache, CacheMode::DirectWriteThrough);
    assert_eq!(j.targets[0].create_size, Some(50 << 30));
    assert_eq!(
        (j.timing.warmup_ns, j.timing.cooldown_ns),
        (0, 2_000_000_000)
    );
    assert_eq!(
        (j.timing.interval_ns, j.seed, j.limits.rate_iops),
        (500_000_000, 7, Some(100))
    );
    assert_eq!(j.affinity, Some(Affinity::Cpus { cpus: vec![0, 1] }));
    assert!(j.latency && d.xml && d.iops_stats);
    let d = parse_line("-b4K -si8K -t2 -B1M:1M -g4 -n #1").unwrap();
    assert_eq!(
        d.job.shape.pattern,
        Pattern::Sequential {
            stride_bytes: 8192,
            interlocked: true,
            backwards: false,
        }
    );
    assert_eq!(
        (d.job.shape.base_offset, d.job.shape.max_offset),
        (1 << 20, Some(2 << 20))
    );
    assert_eq!(d.job.limits.rate_bytes_per_sec, Some(4000));
    assert_eq!(d.job.affinity, None);
    assert_eq!(d.job.targets[0].path, PathBuf::from("/dev/vdb"));
    // Sizes in blocks (b) follow -b wherever it is.
    let d = parse_line("-c100b -r2b -b4K t.dat").unwrap();
    assert_eq!(d.job.targets[0].create_size, Some(400 << 10));
    assert_eq!(
        d.job.shape.pattern,
        Pattern::Random {
            align_bytes: 8 << 10,
            distribution: Distribution::Uniform
        }
    );
    for (flags, cache) in [
        ("-S", CacheMode::Direct),
        ("-Su", CacheMode::Direct),
        ("-Sw", CacheMode::WriteThrough),
        ("-Suw", CacheMode::DirectWriteThrough),
        ("-h", CacheMode::DirectWriteThrough),
        ("-Sb", CacheMode::Buffered),
    ] {
        assert_eq!(
            parse_line(&format!("{flags} t")).unwrap().job.cache,
            cache,
            "{flags}"
        );
    }
}

#[test]
fn mixed_random_think_time_and_write_buffers() {
    // -rs: the share of random I/O; -r (before or after) sets only the alignment.
    for line in ["-rs30 -b8K t", "-rs30 -r4K -b8K t", "-r4K -rs30 -b8K t"] {
        let j = parse_line(line).unwrap().job;
        assert_eq!(j.shape.random_pct, Some(30), "{line}");
        assert!(matches!(j.shape.pattern, Pattern::Random { .. }), "{line}");
    }
    let j = parse_line("-rs30 -r4K -b8K t").unwrap().job;
    assert_eq!(
        j.shape.pattern,
        Pattern::Random {
            align_bytes: 4096,
            distribution: Distribution::Uniform
        }
    );
    // -rs100 is plain -r.
    let j = parse_line("-rs100 t").unwrap().job;
    assert_eq!(j.shape.random_pct, None);
    // -j: milliseconds of think time after every -i I/Os (each I/O without -i).
    let j = parse_line("-j5 -i8 t").unwrap().job;
    assert_eq!(
        j.per_io.think,
        Some(Think {
            ns: 5_000_000,
            spin_ns: 0,
            every: 8
        })
    );
    assert_eq!(
        parse_line("-j5 t")
            .unwrap()
            .job
            .per_io
            .think
            .map(|t| t.every),
        Some(1)
    );
    let d = parse_line("-i8 t").unwrap();
    assert_eq!(d.job.per_io.think, None);
    assert_eq!(
        d.warnings,
        ["-i (burst size) has no effect without -j (think time)"]
    );
    // -Sm: memory-mapped I/O through the page cache.
    let j = parse_line("-Sm -w50 t").unwrap().job;
    assert_eq!(
        (j.engine.kind.map(|e| e.name()), j.cache),
        (Some("mmap"), CacheMode::Buffered)
    );
    assert!(err("-Su -Sm t").contains(
        "-Sm: -Sm conflicts with earlier specification of memory mapped IO/unbuffered IO"
    ));
    assert!(err("-Sm -Su t")
        .contains("-Su: -Su conflicts with earlier specification of cache mode/memory mapped IO"));
    assert!(err("-Sm -h t").contains("-Sm with writethrough"));
    assert!(err("-Smw t").contains("-Sm with writethrough"));
    // -T: where each sequential thread begins (DiskSpd's sample: -F8 -T1b -s8b).
    let j = parse_line("-b4K -F8 -T1b -s8b t").unwrap().job;
    assert_eq!((j.shape.thread_start, j.threads_per_target), (4096, 8));
    let d = parse_line("-b4K -t2 -T1b -r t").unwrap();
    assert_eq!(d.job.shape.thread_start, 0);
    assert!(d
        .notes
        .iter()
        .any(|n| n == "-T has no effect on random I/O"));
    // -Z: zeros; -Zr: new random data per write.
    assert_eq!(
        parse_line("-Z -w100 t")
            .unwrap()
            .job
            .per_io
            .buffers
            .compress_pct,
        100
    );
    assert!(parse_line("-Zr -w100 t").unwrap().job.per_io.buffers.refill);
}

/// -rdpct and -rdabs: DiskSpd's zones, its remainder zone, its refusals; and the line
/// `explain` writes reads back as the same zones.
#[test]
fn random_distributions_in_zones() {
    use crate::spec::Zone;
    let z = |io_pct, span| Zone { io_pct, span };
    let zones = |line: &str| match parse_line(line).unwrap().job.shape.pattern {
        Pattern::Random {
            distribution: Distribution::Zoned { absolute, zones },
            ..
        } => (absolute, zones),
        other => panic!("{line}: {other:?}"),
    };
    // DiskSpd's own example: the remaining 5% of IO in the last 60%.
    assert_eq!(
        zones("-r -rdpct90/10:0/10:5/20 t"),
        (false, vec![z(90, 10), z(0, 10), z(5, 20), z(5, 60)])
    );
    assert_eq!(
        zones("-r -rdabs90/10G:0/10G:5/20G t"),
        (
            true,
            vec![z(90, 10 << 30), z(0, 10 << 30), z(5, 20 << 30), z(5, 0)]
        )
    );
    for line in [
        "-r -rdpct90/10:0/10:5/20 t",
        "-r -b4K -rdabs60/1G:40/3G t",
        "-r -rdabs70/1G t",
    ] {
        let job = parse_line(line).unwrap().job;
        let (back, _) = crate::spec::export::to_diskspd(&job);
        let args: Vec<&str> = back.split_whitespace().skip(1).collect();
        let again = parse_line(&args.join(" ")).unwrap().job;
        assert_eq!(again.shape.pattern, job.shape.pattern, "{line} -> {back}");
    }
    for (line, want) in [
        (
            "-rdpct90/10 t",
            "random distribution ranges (-rd) do not apply to sequential-only IO patterns",
        ),
        ("-r -rdxyz50/50 t", "Unrecognized random distribution type"),
        (
            "-r -rdpct90/40:20/10 t",
            "invalid random distribution IO% 20: can be at most 10",
        ),
        (
            "-r -rdpct50/100 t",
            "the target is covered with 50% IO left to distribute",
        ),
        ("-r -rdpct50/0 t", "Invalid Target% 0"),
        ("-r -rdpct100/60 t", "Target% (60%) must total 100%"),
        (
            "-r -b4K -rdabs50/1K t",
            "must be a minimum of the specified block size (4096 bytes)",
        ),
        ("-r -rdpct50-50 t", "Expected / separator"),
    ] {
        let e = parse_line(line).unwrap_err().to_string();
        assert!(e.contains(want), "{line}: {e}");
    }
}

/// -F over several targets: every thread on every target, -o I/Os on each, or -O in all
/// with a target drawn per I/O.
#[test]
fn fixed_threads_over_several_targets() {
    let j = parse_line("-F3 -o2 -r a b").unwrap().job;
    assert_eq!((j.threads_per_target, j.queue_depth), (3, 4));
    assert_eq!(
        j.file_sets,
        Some(FileSets {
            files: 2,
            service: FileService::Slots,
            open_files: None,
        })
    );
    assert_eq!(j.total_threads(), 3);
    let j = parse_line("-F2 -O5 -r a b c").unwrap().job;
    assert_eq!((j.threads_per_target, j.queue_depth), (2, 5));
    assert_eq!(
        j.file_sets.map(|f| (f.files, f.service)),
        Some((3, FileService::Random { every: 1 }))
    );
    // One target: -F is -t; -O without -F does nothing, as in DiskSpd, with a note.
    let j = parse_line("-F4 -O8 t").unwrap().job;
    assert_eq!(
        (j.threads_per_target, j.queue_depth, j.file_sets),
        (4, 8, None)
    );
    let d = parse_line("-t2 -O8 t").unwrap();
    assert_eq!(d.job.queue_depth, 2);
    assert!(d
        .notes
        .iter()
        .any(|n| n.contains("-O applies to threads set with -F")));
}

#[test]
fn diskspd_refusals_with_diskspd_reasons() {
    let cases = [
        (
            "-r -s t",
            "-s: sequential IO (-s) conflicts with random IO (-r/-rs)",
        ),
        (
            "-s -r t",
            "-r: sequential IO (-s) conflicts with random IO (-r/-rs)",
        ),
        ("-F4 -t2 t", "-F and -t parameters cannot be used together"),
        (
            "-F2 -O4 -g100 a b",
            "-g throughput control cannot be used with -O outstanding requests per thread",
        ),
        (
            "-F2 -O4 -j5 a b",
            "-j think time cannot be used with -O outstanding requests per thread",
        ),
        ("-F2 -O0 a b", "-O0: incorrectly provided option"),
        ("-n -a0 t", "-n and -a parameters cannot be used together"),
        (
            "-Sh -Su t",
            "-Su: -Su conflicts with earlier specification of cache mode",
        ),
        (
            "-h -Sw t",
            "-Sw: -Sw conflicts with earlier specification of write through",
        ),
        (
            "-B1M -f1M t",
            "maximum (-f) target offset must be greater than base (-B)",
        ),
        (
            "-w101 t",
            "-w101: write ratio passed to -w must be between 0 and 100 (percent)",
        ),
        ("-w t", "-w: no write ratio passed to -w"),
        ("-b4Q t", "-b4Q: invalid size 'Q'"),
        ("-d0 t", "invalid measured duration time (-d): '0'"),
        ("-Rjson t", "invalid results format (-R): 'json'"),
        ("t -b4K", "-b4K: parameters must come before targets"),
        ("-b4K", "need to provide at least one filename"),
        ("-q t", "-q: invalid option: 'q'"),
        ("-rs t", "-rs: no random percentage passed to -rs"),
        (
            "-rs0 t",
            "-rs0: random percentage passed to -rs should be between 1 and 100",
        ),
        (
            "-s -rs50 t",
            "-rs50: use -r to specify IO alignment when using mixed random/sequential IO (-rs)",
        ),
        ("-rs50 -s t", "-s: use -r to specify IO alignment for -rs"),
        (
            "-rs50 -rs20 t",
            "-rs20: mixed random/sequential IO (-rs) specified multiple times",
        ),
        ("-j0 t", "-j0: incorrectly provided option"),
        ("-T0 -t2 t", "-T0: invalid offset passed to -T"),
        (
            "-Z1K -b4K t",
            "custom write buffer (-Z) is smaller than the block size",
        ),
        ("#7", "target '#7': there is no disk 7 (this machine has 2)"),
    ];
    // On Windows, C: is the volume.
    #[cfg(not(windows))]
    let cases = [
        cases.as_slice(),
        &[("C:", "drive letters exist only on Windows")],
    ]
    .concat();
    for (line, want) in cases {
        let e = err(line);
        assert!(e.contains(want), "{line}: {e}");
        assert!(!e.contains('\n'), "{line}: one line");
    }
    // DiskSpd's warnings, as it prints them.
    let d = parse_line("-t2 t").unwrap();
    assert_eq!(
        d.warnings,
        ["target access pattern will not be sequential, consider -si"]
    );
    let d = parse_line("-si t").unwrap();
    assert_eq!(d.warnings, ["single-threaded test, -si ignored"]);
    assert!(parse_line("-t2 -T1M t").unwrap().warnings.is_empty());
    // The note on DiskSpd's repeating write pattern does not apply to -Z<size>.
    let notes = parse_line("-w100 -Z1M t").unwrap().notes;
    assert!(!notes.iter().any(|n| n.contains("repeating")), "{notes:?}");
}

/// -Rp, -Rptext, -Rpxml: the profile only; -Rp alone keeps the format given elsewhere.
#[test]
fn profile_only_forms() {
    for (line, xml) in [
        ("-Rp t", false),
        ("-Rptext t", false),
        ("-Rpxml t", true),
        ("-Rxml -Rp t", true),
    ] {
        let d = parse_line(line).unwrap();
        assert!(d.profile_only, "{line}");
        assert_eq!(d.xml, xml, "{line}");
    }
    assert!(!parse_line("-Rxml t").unwrap().profile_only);
    assert!(err("-Rpjson t").contains("-Rpjson: invalid results format (-R): 'json'"));
}

/// DiskSpd reads -W and -C with atoi: bare, they are 0 seconds.
#[test]
fn bare_warmup_and_cooldown_are_zero() {
    let j = parse_line("-W t").unwrap().job;
    assert_eq!(j.timing.warmup_ns, 0);
    let j = parse_line("-C t").unwrap().job;
    assert_eq!(j.timing.cooldown_ns, 0);
}

/// DiskSpd refuses -F0 (a thread count must be above 0) with its generic reason.
#[test]
fn no_threads_is_refused() {
    assert!(err("-F0 t").contains("-F0: incorrectly provided option"));
    assert!(err("-F0 a b").contains("-F0: incorrectly provided option"));
}

/// -Nv, -Nn, -Ni (either case) flush each write to a mapped target (-Sm); here that is
/// msync after every write, with notes saying so. Without -Sm DiskSpd refuses them.
#[test]
fn mapped_flush_modes() {
    for line in [
        "-Sm -Nv -w50 t",
        "-Sm -Nn -w50 t",
        "-Sm -Ni -w50 t",
        "-Sm -NV -w50 t",
    ] {
        let d = parse_line(line).unwrap();
        assert_eq!(
            d.job.per_io.flush,
            Some(crate::spec::FlushEvery {
                writes: 1,
                data_only: false
            }),
            "{line}"
        );
        assert!(d.notes.iter().any(|n| n.contains("msync")), "{line}");
    }
    assert!(err("-Nv t").contains(
        "memory mapped flush mode (-N) can only be specified with memory mapped IO (-Sm)"
    ));
    assert!(err("-Sm -Nx t").contains("-Nx: incorrectly provided option"));
    assert!(err("-Sm -N t").contains("-N: incorrectly provided option"));
}

/// -a as DiskSpd reads it: `-ag0,0,1,2` is group 0, CPUs 0 to 2 (as `-a0,1,2`); lists
/// add up over several -a; a bare -a is the default, so -n may go with it.
#[test]
fn affinity_as_diskspd_reads_it() {
    let cpus = |line: &str| parse_line(line).unwrap().job.affinity;
    let list = |cpus: &[usize]| {
        Some(Affinity::Cpus {
            cpus: cpus.to_vec(),
        })
    };
    assert_eq!(cpus("-ag0,0,1,2 t"), list(&[0, 1, 2]));
    assert_eq!(cpus("-a0,1,2 t"), list(&[0, 1, 2]));
    assert_eq!(cpus("-ag0,0,1 -ag0,2 t"), list(&[0, 1, 2]));
    assert_eq!(cpus("-a3 -a t"), list(&[3]));
    assert_eq!(cpus("-ag t"), Some(Affinity::Auto));
    assert_eq!(cpus("-n -a t"), None);
    for (line, want) in [
        (
            "-ag1,0 t",
            "-ag1,0: processor groups other than 0 do not exist on Linux",
        ),
        ("-ag0,0,g1,1 t", "processor groups other than 0"),
        ("-ag0 t", "-ag0: incomplete affinity specification"),
        ("-a0, t", "-a0,: incomplete affinity specification"),
        ("-a0,x t", "-a0,x: syntax error parsing affinity at 'x'"),
        ("-n -a0 t", "-n and -a parameters cannot be used together"),
    ] {
        assert!(err(line).contains(want), "{line}: {}", err(line));
    }
}

/// No input makes the parser panic, and each refusal names the option as typed: values
/// past DiskSpd's 32-bit integers, sums past 64 bits, a multi-byte option letter, a size
/// in the second half of -B or in a -rdabs range.
#[test]
fn refusals_name_the_option_as_typed() {
    for (line, want) in [
        (
            "-d99999999999999 t",
            "-d99999999999999: invalid measured duration time (-d)",
        ),
        ("-W99999999999 t", "-W99999999999: invalid warmup time (-W)"),
        (
            "-C18446744073709551615 t",
            "-C18446744073709551615: invalid cooldown time (-C)",
        ),
        (
            "-D99999999999999 t",
            "-D99999999999999: invalid interval (-D)",
        ),
        (
            "-g99999999999999999 t",
            "-g99999999999999999: invalid throughput (-g)",
        ),
        (
            "-j99999999999999 t",
            "-j99999999999999: invalid think time (-j)",
        ),
        ("-t3000000000 t", "-t3000000000: invalid thread count (-t)"),
        (
            "-B18446744073709551615:1 t",
            "-B18446744073709551615:1: invalid target length passed to -B",
        ),
        ("-B1M:10Q t", "-B1M:10Q: invalid size 'Q'"),
        ("-r -rdabs90/10Q t", "-rdabs90/10Q: invalid size 'Q'"),
        (
            "-z4294967296 t",
            "-z4294967296: invalid random seed value '4294967296'",
        ),
        ("-s0 t", "-s0: a stride of 0"),
        ("-\u{e9} t", "-\u{e9}: invalid option"),
        ("-b\u{e9} t", "-b\u{e9}: '\u{e9}' is not a size"),
    ] {
        let e = err(line);
        assert!(e.contains(want), "{line}: {e}");
        assert!(!e.contains('\n'), "{line}: one line");
    }
    assert_eq!(parse_line("-z4294967295 t").unwrap().job.seed, 4294967295);
}

/// A line that uses `opt`, as the DiskSpd help names it.
fn help_sample(opt: &str) -> Option<&'static str> {
    Some(match opt {
        "-a" => "-a0",
        "-ag" => "-ag",
        "-b" => "-b4K",
        "-B" => "-B4K",
        "-c" => "-c1M",
        "-C" => "-C1",
        "-d" => "-d1",
        "-D" => "-D100",
        "-f<size>" => "-f1M",
        "-F" => "-F2",
        "-g" => "-g100",
        "-h" => "-h",
        "-i" => "-i2 -j1",
        "-j" => "-j1",
        "-L" => "-L",
        "-n" => "-n",
        "-o" => "-o4",
        "-O" => "-F2 -O4",
        "-r" => "-r",
        "-rd" => "-r -rdpct90/10",
        "-rs" => "-rs50",
        "-R" => "-Rxml",
        "-Rp" => "-Rp",
        "-s" => "-s",
        "-si" => "-t2 -si",
        "-S" => "-S",
        "-Sb" => "-Sb",
        "-Sh" => "-Sh",
        "-Sm" => "-Sm",
        "-Su" => "-Su",
        "-Sw" => "-Sw",
        "-Sr" => "-Sr",
        "-t" => "-t2",
        "-T" => "-t2 -T1M",
        "-w" => "-w50",
        "-W" => "-W",
        "-x" => "-x",
        "-z" => "-z7",
        "-Z" => "-Z",
        "-Zr" => "-Zr",
        "-Z<size>" => "-Z1M",
        "-N<v|n|i>" => "-Sm -Nv",
        "-f<rst>" => "-frst",
        "-I" => "-I1",
        "-l" => "-l",
        "-P" => "-P10",
        "-v" => "-v",
        "-:<flags>" => "-:1",
        "-p" => "-o2 -p",
        "-Z<size>,<file>" => "-Z1M,src",
        "-Sm with -Sw/-Sh/-h" => "-Sm -Sw",
        "-X" => "-Xp.xml",
        "-e" => "-eDISK_IO",
        "-y" => "-ysgo",
        "drive letters (C:) on Linux" => "C:",
        "processor groups other than 0 (-ag1,...)" => "-ag1,0",
        _ => return None,
    })
}

/// `iogauge diskspd --help` says which options run, which run differently, which are
/// accepted without effect and which are refused: each named option does what it says.
#[test]
#[cfg_attr(
    not(target_os = "linux"),
    ignore = "the help's refusals are Linux's (drive letters)"
)]
fn help_tells_what_runs_and_what_is_refused() {
    let help = crate::cli::DISKSPD_HELP;
    let section = |title: &str| -> String {
        let start = help
            .find(title)
            .unwrap_or_else(|| panic!("no {title:?} in the help"));
        let rest = &help[start + title.len()..];
        // A section goes on over the indented lines after its first.
        let mut lines = rest.lines();
        let mut text = lines.next().unwrap_or("").to_string();
        for l in lines.take_while(|l| l.starts_with("  ")) {
            text.push(' ');
            text.push_str(l);
        }
        text
    };
    // Options as the help writes them: -x, or -x<...>; a reason in parentheses follows.
    let options = |text: &str| -> Vec<String> {
        let mut out = Vec::new();
        let mut depth = 0;
        for w in text.split_whitespace() {
            if depth == 0 && w.starts_with('-') {
                out.push(w.trim_end_matches([',', ':']).to_string());
            }
            depth += w.matches('(').count() as i32 - w.matches(')').count() as i32;
        }
        out
    };
    let mut named = 0;
    for (title, runs) in [
        ("Run as in DiskSpd:", true),
        ("Run differently (the report's notes say how):", true),
        ("Accepted, no effect on Linux:", true),
    ] {
        for opt in options(&section(title)) {
            let s = help_sample(&opt).unwrap_or_else(|| panic!("no sample for {opt}"));
            let line = format!("{s} t");
            assert_eq!(parse_line(&line).is_ok(), runs, "{title} {opt}: {line}");
            named += 1;
        }
    }
    let refused = [
        "-p",
        "-Z<size>,<file>",
        "-Sm with -Sw/-Sh/-h",
        "-X",
        "-e",
        "-y",
        "drive letters (C:) on Linux",
        "processor groups other than 0 (-ag1,...)",
    ];
    let text = section("Refused, saying why:");
    for what in refused {
        assert!(
            text.contains(what),
            "the help does not refuse {what}: {text}"
        );
        let line = match help_sample(what).unwrap() {
            "C:" => "C:".to_string(),
            s => format!("{s} t"),
        };
        assert!(
            parse_line(&line).is_err(),
            "{what} is said to be refused: {line}"
        );
    }
    assert!(named > 40, "{named} options named");
    assert!(!help.contains("Planned:"), "{help}");
}

/// Inputs the fuzz target (fuzz/fuzz_targets/diskspd.rs) found panicking, each now a
/// one-line error naming what was typed.
#[test]
fn fuzz_found_inputs_are_errors() {
    let e = err("-\u{4da}b t");
    assert_eq!(e, "-\u{4da}b: invalid option: '\u{4da}b'");
    for (line, want) in [
        (
            "-d2166666666666666667 t",
            "-d2166666666666666667: the value is out of range",
        ),
        (
            "-W18446744074 t",
            "-W18446744074: the value is out of range",
        ),
        (
            "-C6666666666666666662 t",
            "-C6666666666666666662: the value is out of range",
        ),
        (
            "-D18446744073710 t",
            "-D18446744073710: the value is out of range",
        ),
        (
            "-j18446744073710 t",
            "-j18446744073710: the value is out of range",
        ),
        (
            "-g18446744073709552 t",
            "-g18446744073709552: the value is out of range",
        ),
    ] {
        // Refused (DiskSpd's own int limit, or the scaling check), naming the option typed.
        let typed = &want[..want.find(':').unwrap()];
        let e = err(line);
        assert!(e.starts_with(typed), "{line}: {e}");
    }
    let e = err("-r -rdpct0/10:18446744073709551615/1 t");
    assert!(
        e.contains("IO% 18446744073709551615: can be at most 100"),
        "{e}"
    );
    // Two absolute spans whose sum passes u64: read without a panic.
    let _ = parse_line("-r -b4K -rdabs10/16777215T:10/16777215T t");
}

#[test]
fn a_pasted_en_dash_is_named_with_the_ascii_switch() {
    // Older AWS docs print DiskSpd's switches with en dashes: "diskspd –b8K –d30 ...".
    let e = err("\u{2013}b8K \u{2013}d30 -o4 -t4 -r -w50 -c1G test.dat");
    assert!(
        e.contains("'\u{2013}b8K' begins with an en dash (U+2013), not an ASCII '-'")
            && e.ends_with("write -b8K"),
        "{e}"
    );
}
