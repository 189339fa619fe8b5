//! fio's deduplicable write data: `dedupe_percentage`, `dedupe_mode`,
//! `dedupe_working_set_percentage` and `dedupe_global`, onto [`Dedupe`] (iogauge's --dedupe
//! flags). The sharing of one working set between jobs is the plan's ([`share_working_sets`]):
//! it needs every job of the file.

use crate::error::Result;
use crate::spec::fio::options::Set;
use crate::spec::{Dedupe, DedupeMode, DedupeShare, JobSpec};

/// The job's dedupe options; `None` without dedupe_percentage (or with 0), as in fio.
pub(super) fn read_dedupe(set: &Set) -> Result<Option<Dedupe>> {
    let pct = |key: &str| -> Result<Option<u8>> {
        match set.int(key)? {
            Some(p) if p > 100 => Err(set.err(key, format!("{p} is not a percentage 0..100"))),
            p => Ok(p.map(|p| p as u8)),
        }
    };
    let dedupe = pct("dedupe_percentage")?;
    let mode = match set.text("dedupe_mode") {
        None | Some("repeat") => DedupeMode::Repeat,
        Some("working_set") => DedupeMode::WorkingSet {
            pct: pct("dedupe_working_set_percentage")?.unwrap_or(DedupeMode::WORKING_SET_PCT),
        },
        Some(v) => {
            return Err(set.err("dedupe_mode", format!("'{v}' is not repeat or working_set")))
        }
    };
    // fio reads these whatever the mode; a bad one is an error either way.
    pct("dedupe_working_set_percentage")?;
    let global = set.flag("dedupe_global")?.unwrap_or(false);
    Ok(match dedupe {
        None | Some(0) => None,
        Some(pct) => Some(Dedupe {
            pct,
            // fio shares working sets only: a repeat repeats the job's own latest write.
            global: global && mode != DedupeMode::Repeat,
            mode,
            job: 0,
            shared: None,
        }),
    })
}

/// Number the dedupe jobs of a file (their new content differs, as each fio job's seeds
/// do), and spread the working set of those with dedupe_global over all their threads, in
/// the file's order, as fio spreads it over its jobs.
pub(in crate::spec::fio) fn share_working_sets<'a>(jobs: impl Iterator<Item = &'a mut JobSpec>) {
    let jobs: Vec<&mut JobSpec> = jobs.collect();
    let global = |j: &JobSpec| j.per_io.buffers.dedupe.is_some_and(|d| d.global);
    let of: u64 = jobs
        .iter()
        .filter(|j| global(j))
        .map(|j| j.total_threads())
        .sum();
    let seed = jobs.iter().find(|j| global(j)).map_or(0, |j| j.seed);
    let several = jobs.iter().filter(|j| global(j)).count() > 1;
    let mut first = 0;
    for (i, job) in jobs.into_iter().enumerate() {
        let threads = job.total_threads();
        let Some(d) = job.per_io.buffers.dedupe.as_mut() else {
            continue;
        };
        d.job = i as u32;
        if d.global && several {
            d.shared = Some(DedupeShare {
                first: first as u32,
                of: of as u32,
                seed,
            });
            first += threads;
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::spec::fio::map::tests::{err, one, plan_of};
    use crate::spec::{Dedupe, DedupeMode, DedupeShare};

    fn dedupe(options: &str) -> Option<Dedupe> {
        one(&format!("[j]\nfilename=/x\nsize=8m\nrw=write\n{options}"))
            .job
            .per_io
            .buffers
            .dedupe
    }

    #[test]
    fn fio_dedupe_options_map_onto_the_dedupe_flags() {
        let d = dedupe("dedupe_percentage=50\n").unwrap();
        assert_eq!((d.pct, d.mode, d.global), (50, DedupeMode::Repeat, false));
        let d = dedupe("dedupe_percentage=30\ndedupe_mode=working_set\n").unwrap();
        assert_eq!(d.mode, DedupeMode::WorkingSet { pct: 5 });
        let d = dedupe(
            "dedupe_percentage=30\ndedupe_mode=working_set\ndedupe_working_set_percentage=40\ndedupe_global=1\n",
        )
        .unwrap();
        assert_eq!(
            (d.mode, d.global),
            (DedupeMode::WorkingSet { pct: 40 }, true)
        );
        // As fio: 0 is off, the mode alone is nothing, a repeat is never global.
        assert_eq!(dedupe("dedupe_percentage=0\n"), None);
        assert_eq!(dedupe("dedupe_mode=working_set\n"), None);
        assert!(
            !dedupe("dedupe_percentage=5\ndedupe_global=1\n")
                .unwrap()
                .global
        );
        // Dedupe refreshes every write's buffer.
        let j = one("[j]\nfilename=/x\nsize=8m\nrw=write\ndedupe_percentage=5\n").job;
        assert!(j.per_io.buffers.refill);
    }

    #[test]
    fn jobs_of_a_file_share_a_global_working_set_in_order() {
        let p = plan_of(
            "[global]\nsize=8m\nrw=write\nrandseed=3\ndedupe_percentage=50\n\
             dedupe_mode=working_set\ndedupe_global=1\n\
             [a]\nfilename=/a\nnumjobs=2\n[b]\nfilename=/b\n[c]\nfilename=/c\ndedupe_global=0\n",
        )
        .unwrap();
        let d: Vec<Dedupe> = p
            .runs
            .iter()
            .map(|r| r.job.per_io.buffers.dedupe.unwrap())
            .collect();
        let share = |first, of| Some(DedupeShare { first, of, seed: 3 });
        assert_eq!((d[0].job, d[0].shared), (0, share(0, 3)));
        assert_eq!((d[1].job, d[1].shared), (1, share(2, 3)));
        assert_eq!((d[2].job, d[2].shared, d[2].global), (2, None, false));
    }

    #[test]
    fn bad_dedupe_options_are_named_as_typed() {
        let base = "[j]\nfilename=/x\nsize=8m\nrw=write\n";
        let e = |o: &str| err(&format!("{base}{o}"));
        assert!(e("dedupe_percentage=101\n")
            .starts_with("t.fio:5: dedupe_percentage: 101 is not a percentage 0..100"));
        assert!(e("dedupe_percentage=5\ndedupe_mode=sometimes\n")
            .starts_with("t.fio:6: dedupe_mode: 'sometimes' is not repeat or working_set"));
        assert!(
            e("dedupe_percentage=5\ndedupe_working_set_percentage=200\n")
                .starts_with("t.fio:6: dedupe_working_set_percentage: 200 is not a percentage")
        );
        assert!(
            e("dedupe_percentage=60\ndedupe_mode=working_set\ndedupe_working_set_percentage=50\n")
                .contains(
                "dedupe_working_set_percentage=50 and dedupe_percentage=60 add up to more than 100"
            ),
            "{}",
            e("dedupe_percentage=60\ndedupe_mode=working_set\ndedupe_working_set_percentage=50\n")
        );
        assert!(e("dedupe_percentage=50\nverify=crc32c\n")
            .contains("dedupe_percentage cannot be combined with verify"));
    }
}
