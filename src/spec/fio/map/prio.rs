//! I/O priorities: the job's own (`prio`, `prioclass`) and per-I/O ones (`cmdprio_percentage`,
//! `cmdprio_class`, `cmdprio`, `cmdprio_bssplit`), as fio 3.33 reads them (options.c and
//! engines/cmdprio.c), onto [`Priority`].

use super::super::options::{dir_part, Set};
use super::super::parse_size;
use crate::error::Result;
use crate::spec::prio::{IoPrio, Priority, Share, CLASS_RT};
use crate::spec::EngineKind;

/// The per-I/O options: fio has them only with ioengine=libaio and io_uring.
const CMDPRIO: [&str; 4] = [
    "cmdprio_percentage",
    "cmdprio_class",
    "cmdprio",
    "cmdprio_bssplit",
];

pub(super) fn read_prio(set: &Set, engine: EngineKind, name: &str) -> Result<Priority> {
    let level = bounded(set, "prio", 7)?;
    let class = bounded(set, "prioclass", 3)?;
    // fio calls ioprio_set where either is set; the other is 0 (class 0: best effort).
    let ioprio = (level.is_some() || class.is_some()).then(|| IoPrio {
        class: class.unwrap_or(0) as u8,
        level: level.unwrap_or(0) as u8,
    });
    let mut p = Priority {
        ioprio,
        cmdprio: Default::default(),
    };
    if let Some(key) = CMDPRIO.iter().find(|k| set.get(k).is_some()) {
        if !engine.caps().per_io_prio {
            // fio 3.33 knows these options only as those of the libaio and io_uring engines.
            let typed = set.text("ioengine").unwrap_or("psync");
            let v = set.text(key).unwrap_or_default();
            return Err(set.err(
                key,
                format!("Bad option <{key}={v}>: an option of ioengine=libaio and io_uring, not of {typed}"),
            ));
        }
    }
    let pct = per_dir(set, "cmdprio_percentage", 100)?;
    // Class 0 (not set): real time, as fio's fio_cmdprio_parse_and_gen.
    let classes = per_dir(set, "cmdprio_class", 3)?;
    let levels = per_dir(set, "cmdprio", 7)?;
    let implicit = |d: usize| IoPrio {
        class: match classes[d] {
            None | Some(0) => CLASS_RT,
            Some(c) => c as u8,
        },
        level: levels[d].unwrap_or(0) as u8,
    };
    let bssplit = set.text("cmdprio_bssplit").filter(|t| !t.trim().is_empty());
    if bssplit.is_some() && pct.iter().any(|p| p.is_some_and(|p| p > 0)) {
        return Err(set.err(
            "cmdprio_bssplit",
            format!(
                "{name}: cmdprio_percentage and cmdprio_bssplit options are mutually exclusive"
            ),
        ));
    }
    for (d, pc) in pct.iter().enumerate() {
        if let Some(pc) = pc.filter(|&p| p > 0) {
            p.cmdprio[d] = vec![Share {
                bs: None,
                pct: pc as u8,
                prio: implicit(d),
            }];
        }
    }
    if let Some(text) = bssplit {
        let parts: Vec<&str> = text.trim().split(',').map(str::trim).collect();
        for d in 0..2 {
            p.cmdprio[d] = bssplit_dir(set, dir_part(&parts, d), implicit(d))?;
        }
    }
    if let Some(bs) = p.over_100() {
        return Err(set.err(
            "cmdprio_bssplit",
            format!(
                "fio: cmdprio_bssplit total percentage for bs: {} exceeds 100",
                bs.unwrap_or(0)
            ),
        ));
    }
    Ok(p)
}

/// One direction's `BS/PCT[/CLASS/LEVEL]:...`; entries of 0 % are dropped, as fio does.
fn bssplit_dir(set: &Set, part: &str, implicit: IoPrio) -> Result<Vec<Share>> {
    let key = "cmdprio_bssplit";
    let mut out = Vec::new();
    for e in part.split(':').map(str::trim).filter(|e| !e.is_empty()) {
        let f: Vec<&str> = e.split('/').map(str::trim).collect();
        let num = |t: &str, max: u64, what: &str| -> Result<u64> {
            match t.parse::<u64>() {
                Ok(v) if v <= max => Ok(v),
                _ => Err(set.err(key, format!("'{e}': {what} '{t}' is not 0 to {max}"))),
            }
        };
        if f.len() != 2 && f.len() != 4 {
            return Err(set.err(key, format!("'{e}' is not BS/PCT or BS/PCT/CLASS/LEVEL")));
        }
        let bs = parse_size(f[0], set.kb_base).map_err(|m| set.err(key, m))?;
        let pct = num(f[1], 100, "percentage")?;
        let prio = if f.len() == 4 {
            IoPrio {
                class: num(f[2], 3, "class")? as u8,
                level: num(f[3], 7, "level")? as u8,
            }
        } else {
            implicit
        };
        if pct > 0 {
            out.push(Share {
                bs: Some(bs),
                pct: pct as u8,
                prio,
            });
        }
    }
    Ok(out)
}

/// A whole number 0..=max, refused above as fio words it.
fn bounded(set: &Set, key: &str, max: u64) -> Result<Option<u64>> {
    let Some(v) = set.int(key)? else {
        return Ok(None);
    };
    if v > max {
        return Err(set.err(key, format!("max value out of range: {v} ({max} max)")));
    }
    Ok(Some(v))
}

/// fio's `R,W` integer: one value for both, or each.
fn per_dir(set: &Set, key: &str, max: u64) -> Result<[Option<u64>; 2]> {
    let Some(v) = set.text(key) else {
        return Ok([None, None]);
    };
    let parts: Vec<&str> = v.split(',').map(str::trim).collect();
    let one = |t: &str| -> Result<Option<u64>> {
        if t.is_empty() {
            return Ok(None);
        }
        match t.parse::<u64>() {
            Ok(n) if n <= max => Ok(Some(n)),
            Ok(n) => Err(set.err(key, format!("max value out of range: {n} ({max} max)"))),
            Err(_) => Err(set.err(key, format!("'{t}' is not a whole number"))),
        }
    };
    Ok([one(dir_part(&parts, 0))?, one(dir_part(&parts, 1))?])
}

#[cfg(test)]
mod tests {
    use crate::spec::fio::map::tests::{err, one};
    use crate::spec::prio::{parse_cmdprio, IoPrio, Priority};

    fn prio(options: &str) -> Priority {
        one(&format!(
            "[j]\nfilename=/x\nsize=8m\nrw=randrw\nioengine=io_uring\n{options}"
        ))
        .job
        .prio
    }

    #[test]
    #[cfg_attr(
        not(target_os = "linux"),
        ignore = "io_uring (Linux's) carries per-I/O priorities"
    )]
    fn prio_and_prioclass_are_the_jobs_own() {
        assert_eq!(prio("").ioprio, None);
        assert_eq!(prio("prio=7\n").ioprio.unwrap().value(), 0x4007);
        assert_eq!(prio("prioclass=3\n").ioprio.unwrap().value(), 0x6000);
        assert_eq!(
            prio("prioclass=1\nprio=2\n").ioprio,
            Some(IoPrio { class: 1, level: 2 })
        );
        assert!(err("[j]\nfilename=/x\nsize=1m\nprio=8\n")
            .contains("prio: max value out of range: 8 (7 max)"));
        assert!(err("[j]\nfilename=/x\nsize=1m\nprioclass=4\n")
            .contains("prioclass: max value out of range: 4 (3 max)"));
    }

    #[test]
    #[cfg_attr(
        not(target_os = "linux"),
        ignore = "io_uring (Linux's) carries per-I/O priorities"
    )]
    fn cmdprio_options_map_onto_the_shares_of_cmdprio() {
        // The class defaults to real time, as in fio.
        let p = prio("cmdprio_percentage=20\n");
        assert_eq!(p.cmdprio, parse_cmdprio("20/1/0").unwrap());
        let p = prio("cmdprio_percentage=20,30\ncmdprio_class=3\ncmdprio=1,5\n");
        assert_eq!(p.cmdprio, parse_cmdprio("20/3/1,30/3/5").unwrap());
        // Simple cmdprio_bssplit: each entry at cmdprio_class/cmdprio.
        let p = prio("cmdprio_bssplit=64k/100:1024k/0,1024k/0\ncmdprio_class=1\ncmdprio=0\n");
        assert_eq!(p.cmdprio, parse_cmdprio("64k/100/1/0,").unwrap());
        // Per-entry class and level; one part for both directions.
        let p = prio("cmdprio_bssplit=64k/25/1/1:64k/75/3/2:1024k/0\nprioclass=2\nprio=7\n");
        assert_eq!(
            p.cmdprio,
            parse_cmdprio("64k/25/1/1:64k/75/3/2,64k/25/1/1:64k/75/3/2").unwrap()
        );
        assert_eq!(p.ioprio.unwrap().value(), 0x4007);
        // The native flags say the same.
        let native = crate::spec::native::job_from_argv(
            &"iogauge run --engine io_uring --ioprio 2:7 --cmdprio 64k/25/1/1:64k/75/3/2 -c 8m /x"
                .split(' ')
                .map(String::from)
                .collect::<Vec<_>>(),
        )
        .unwrap();
        assert_eq!(native.prio, p);
    }

    #[test]
    fn cmdprio_refusals_say_what_fio_says() {
        let e = err("[j]\nfilename=/x\nsize=1m\ncmdprio_percentage=20\n");
        assert!(
            e.contains("Bad option <cmdprio_percentage=20>") && e.contains("not of psync"),
            "{e}"
        );
    }

    #[test]
    #[cfg_attr(
        not(target_os = "linux"),
        ignore = "libaio (Linux's) carries per-I/O priorities; elsewhere the engine is refused first"
    )]
    fn cmdprio_range_refusals_say_what_fio_says() {
        let base = "[j]\nfilename=/x\nsize=1m\nioengine=libaio\n";
        assert!(err(&format!("{base}cmdprio_percentage=101\n"))
            .contains("max value out of range: 101 (100 max)"));
        assert!(err(&format!("{base}cmdprio_class=4\n")).contains("(3 max)"));
        assert!(err(&format!(
            "{base}cmdprio_percentage=10\ncmdprio_bssplit=4k/10\n"
        ))
        .contains("mutually exclusive"));
        assert!(err(&format!("{base}cmdprio_bssplit=4k/60:4k/50/3/0\n"))
            .contains("total percentage for bs: 4096 exceeds 100"));
        assert!(err(&format!("{base}cmdprio_bssplit=4k/10/9/0\n")).contains("class '9'"));
    }

    #[test]
    #[cfg_attr(
        not(target_os = "linux"),
        ignore = "io_uring (Linux's) carries per-I/O priorities"
    )]
    fn exported_to_fio_and_read_back_the_same() {
        for flags in [
            "--ioprio 3:0 --cmdprio 20/1/0",
            "--cmdprio 20/1/0,35/3/4",
            "--ioprio 2:7 --cmdprio 64k/25/1/1:64k/75/3/2,1m/10/1/0",
        ] {
            let job = crate::spec::native::job_from_argv(
                &format!("iogauge run --engine io_uring {flags} -c 8m /x")
                    .split(' ')
                    .map(String::from)
                    .collect::<Vec<_>>(),
            )
            .unwrap();
            let text = crate::spec::export::to_fio(&job, "j", false);
            assert_eq!(one(&text).job.prio, job.prio, "{flags}: {text}");
        }
    }

    #[test]
    #[cfg_attr(
        not(target_os = "linux"),
        ignore = "io_uring (Linux's) carries per-I/O priorities"
    )]
    fn native_flags_are_checked() {
        let run = |flags: &str| {
            crate::spec::native::job_from_argv(
                &format!("iogauge run {flags} -c 8m /x")
                    .split(' ')
                    .map(String::from)
                    .collect::<Vec<_>>(),
            )
            .map(|j| j.prio)
            .map_err(|e| e.to_string())
        };
        assert!(run("--engine sync --cmdprio 20/1/0")
            .unwrap_err()
            .contains("--cmdprio (a priority in each I/O) applies to the io_uring engine"));
        assert!(run("--engine sync --ioprio 3:0").is_ok());
        assert!(run("--ioprio 4:0")
            .unwrap_err()
            .contains("--ioprio: class 4 is not 0 to 3"));
        assert!(run("--engine io_uring --cmdprio 4k/60/1/0:4k/50/3/0")
            .unwrap_err()
            .contains("the shares of 4096-byte I/Os add up to more than 100 %"));
    }
}
