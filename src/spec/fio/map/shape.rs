//! The shape of a job's I/O: reads and writes (`rw` and its mix), random or sequential and how
//! random, block sizes and their alignment, the distribution of random offsets, and what its
//! writes carry.

use crate::error::Result;
use crate::spec::fio::options::{dir_part, Set};
use crate::spec::fio::{parse_size, FioOption, Location};
use crate::spec::{
    BlockMix, BlockSizes, BufferFill, Distribution, EngineKind, Pattern, StridedZones, Trims,
    WritePointerZones,
};

/// What each I/O of a job is, and where it goes.
pub(super) struct Shape {
    pub(super) random: bool,
    pub(super) write_pct: u8,
    pub(super) reads: bool,
    pub(super) writes: bool,
    pub(super) random_pct: Option<u8>,
    pub(super) random_every: Option<u32>,
    /// The largest block size.
    pub(super) block_size: u64,
    pub(super) block_mix: Option<BlockMix>,
    /// The smallest block size.
    pub(super) smallest: u64,
    /// Where random offsets (and offsets in percent) are aligned.
    pub(super) align: u64,
    pub(super) pattern: Pattern,
    pub(super) zones: Option<StridedZones>,
    pub(super) zbd: Option<WritePointerZones>,
    pub(super) trim: Trims,
}

/// `options`: the job's, in order (for which of rwmixread and rwmixwrite comes last).
pub(super) fn read_shape(
    set: &Set,
    options: &[FioOption],
    engine: EngineKind,
    notes: &mut Vec<String>,
) -> Result<Shape> {
    let file_op = engine.is_file_op();
    let (random, write_pct, skip, trim) = read_rw(set)?;
    // fio's file-operation engines time the operation on the file and nothing else: offsets
    // mean nothing, and each operation counts as a read where the job reads at all, else as
    // a write (fio's filecreate, filestat and filedelete).
    let random = random && !file_op;
    let mut write_pct = read_mix(set, write_pct, options)?;
    if file_op {
        write_pct = if write_pct < 100 { 0 } else { 100 };
    }
    // A job that trims is sized and paced in the writes' place (Set::trims).
    let reads = write_pct < 100 && trim.is_none();
    let writes = write_pct > 0 || !trim.is_none();
    let (random, random_pct) = read_random_pct(set, random, reads, writes, notes)?;
    let unaligned = set.flag("bs_unaligned")?.unwrap_or(false);
    let (block_size, block_mix) = read_block_sizes(set, reads, writes, unaligned)?;
    note_unaligned(unaligned, &block_mix, notes);
    let smallest = match &block_mix {
        Some(m) => m.read.smallest().min(m.write.smallest()),
        None => block_size,
    };
    let random_every = if random && skip > 1 {
        Some(skip.min(u32::MAX as i64) as u32)
    } else {
        None
    };
    let skip = if random { 0 } else { skip };
    if random_every.is_some() && random_pct.is_some() {
        return Err(set.err(
            "rw",
            "a new offset every N I/Os with percentage_random is not supported: give one",
        ));
    }
    if block_mix.is_some() && skip != 0 {
        return Err(set.err(
            "rw",
            "a skip (:N) with block sizes that vary is not supported: iogauge walks such jobs without gaps",
        ));
    }
    // fio aligns random offsets to the smallest block size unless blockalign says otherwise.
    let align = set
        .one_size("blockalign", reads, writes)?
        .unwrap_or(smallest);
    if align == 0 {
        return Err(set.err("blockalign", "must be more than 0"));
    }
    let pattern = if random {
        Pattern::Random {
            align_bytes: align,
            distribution: read_distribution(set, true, notes)?,
        }
    } else {
        read_distribution(set, false, notes)?;
        let (stride_bytes, backwards) = seq_stride(set, block_size, skip)?;
        Pattern::Sequential {
            stride_bytes,
            interlocked: false,
            backwards,
        }
    };
    let (zones, zbd) = read_zones(set, notes)?;
    Ok(Shape {
        random,
        write_pct,
        reads,
        writes,
        random_pct,
        random_every,
        block_size,
        block_mix,
        smallest,
        align,
        pattern,
        zones,
        zbd,
        trim,
    })
}

/// zonemode, zonesize, zonerange and zoneskip: strided zones for sequential I/O, as fio 3.33
/// sets them up (init.c: a zonesize alone means strided, zonerange defaults to zonesize); or
/// zones with write pointers (zonemode=zbd).
fn read_zones(
    set: &Set,
    notes: &mut Vec<String>,
) -> Result<(Option<StridedZones>, Option<WritePointerZones>)> {
    let mode = set.text("zonemode");
    let size = set.size("zonesize")?;
    match (mode, size) {
        (Some("none"), _) | (None, None) => return Ok((None, None)),
        (Some("zbd"), _) => return Ok((None, Some(read_zbd(set, size)?))),
        (Some("strided") | None, _) => {}
        (Some(m), _) => {
            return Err(set.err("zonemode", format!("'{m}' is not none, strided or zbd")))
        }
    }
    let Some(size) = size.filter(|&s| s > 0) else {
        return Err(set.err(
            "zonemode",
            "strided needs zonesize= (fio: --zonesize must be specified)",
        ));
    };
    // A zonesize alone asks for strided zones: name what the user wrote.
    let key = if mode.is_some() {
        "zonemode"
    } else {
        "zonesize"
    };
    if set.text("rw").is_some_and(|v| v.contains(':')) {
        return Err(set.err(key, "strided zones with rw=...:N are not supported"));
    }
    let range = set.size("zonerange")?.filter(|&r| r > 0).unwrap_or(size);
    let skip = set.size("zoneskip")?.unwrap_or(0);
    if set.get("zonecapacity").is_some() {
        notes.push("zonecapacity: no effect with zonemode=strided, as in fio".into());
    }
    Ok((Some(StridedZones { size, range, skip }), None))
}

/// zonemode=zbd with its zonesize (which fio needs on a file or a device it emulates zones
/// on), zonecapacity, max_open_zones, job_max_open_zones, read_beyond_wp and the zone reset
/// threshold and frequency. Checked against each other in validation.
fn read_zbd(set: &Set, size: Option<u64>) -> Result<WritePointerZones> {
    let Some(size) = size.filter(|&s| s > 0) else {
        return Err(set.err(
            "zonemode",
            "zbd needs zonesize= on a file or a device iogauge emulates zones on (fio: Specifying the zone size is mandatory)",
        ));
    };
    if set.get("zoneskip").is_some() || set.get("zonerange").is_some() {
        let key = if set.get("zoneskip").is_some() {
            "zoneskip"
        } else {
            "zonerange"
        };
        return Err(set.err(key, "not supported with zonemode=zbd yet (planned)"));
    }
    let count = |key: &str| -> Result<u32> {
        let v = set.int(key)?.unwrap_or(0);
        if v > crate::spec::MAX_OPEN_ZONES as u64 {
            return Err(set.err(
                key,
                format!("{v} is larger than {}", crate::spec::MAX_OPEN_ZONES),
            ));
        }
        Ok(v as u32)
    };
    let fraction = |key: &str| -> Result<f64> {
        let Some(v) = set.text(key) else {
            return Ok(0.0);
        };
        match v.trim().parse::<f64>() {
            Ok(f) if (0.0..=1.0).contains(&f) => Ok(f),
            _ => Err(set.err(key, format!("'{v}' is not a fraction 0..1"))),
        }
    };
    Ok(WritePointerZones {
        size,
        capacity: set.size("zonecapacity")?.filter(|&c| c > 0).unwrap_or(size),
        max_open: count("max_open_zones")?,
        thread_max_open: count("job_max_open_zones")?,
        read_beyond_wp: set.flag("read_beyond_wp")?.unwrap_or(false),
        reset_threshold: fraction("zone_reset_threshold")?,
        reset_frequency: fraction("zone_reset_frequency")?,
    })
}

/// The write share of a mixed job (`rw`'s default, `write_pct`), as rwmixread or rwmixwrite
/// set it: they set the same thing, and the later one wins, as in fio.
fn read_mix(set: &Set, write_pct: u8, options: &[FioOption]) -> Result<u8> {
    if write_pct == 0 || write_pct == 100 {
        return Ok(write_pct);
    }
    let read_at = set.get("rwmixread").map(|o| &o.at);
    let write_at = set.get("rwmixwrite").map(|o| &o.at);
    let pct = |key: &str| -> Result<u8> {
        let v = set.int(key)?.unwrap_or(0);
        if v > 100 {
            return Err(set.err(key, format!("{v} is not a percentage 0..100")));
        }
        Ok(v as u8)
    };
    Ok(match (read_at, write_at) {
        (Some(r), Some(w)) if later(w, r, options) => pct("rwmixwrite")?,
        (Some(_), _) => 100 - pct("rwmixread")?,
        (None, Some(_)) => pct("rwmixwrite")?,
        (None, None) => write_pct,
    })
}

/// percentage_random applies to random jobs: 0 makes them sequential (as in fio). Whether the
/// job is random, and its random share where it is partly.
fn read_random_pct(
    set: &Set,
    random: bool,
    reads: bool,
    writes: bool,
    notes: &mut Vec<String>,
) -> Result<(bool, Option<u8>)> {
    Ok(match set.one_size("percentage_random", reads, writes)? {
        Some(p) if p > 100 => {
            return Err(set.err(
                "percentage_random",
                format!("{p} is not a percentage 0..100"),
            ))
        }
        Some(p) if random && p < 100 => (p > 0, (p > 0).then_some(p as u8)),
        Some(p) if !random && p != 0 => {
            notes.push("percentage_random has no effect on a sequential job (as in fio)".into());
            (random, None)
        }
        _ => (random, None),
    })
}

/// fio's `rw`: random or not, the default write share, the `:N` of the job (a random one's
/// I/Os per offset, a sequential one's skip, negative: back), and its trims.
fn read_rw(set: &Set) -> Result<(bool, u8, i64, Trims)> {
    let v = set.text("rw").unwrap_or("read");
    let (base, skip) = match v.split_once(':') {
        Some((b, s)) => (b, Some(s)),
        None => (v, None),
    };
    let (random, write_pct, trim) = match base {
        "read" => (false, 0, Trims::None),
        "write" => (false, 100, Trims::None),
        "randread" => (true, 0, Trims::None),
        "randwrite" => (true, 100, Trims::None),
        "rw" | "readwrite" => (false, 50, Trims::None),
        "randrw" => (true, 50, Trims::None),
        "trim" => (false, 0, Trims::Only),
        "randtrim" => (true, 0, Trims::Only),
        "trimwrite" => (false, 0, Trims::ThenWrite),
        "randtrimwrite" => (true, 0, Trims::ThenWrite),
        _ => {
            return Err(set.err(
                "rw",
                format!(
                "'{base}' is not one of read, write, randread, randwrite, rw, readwrite, randrw, trim, randtrim, trimwrite, randtrimwrite"
            ),
            ))
        }
    };
    // `:N` on a random job: a new offset every N I/Os; on a sequential one: N bytes skipped,
    // or with `-N` gone back (fio's ddir_seq_add, which may be negative).
    let signed = |n: u64| i64::try_from(n).map_err(|_| set.fits("rw", None).unwrap_err());
    let skip = match skip.map(str::trim) {
        None => 0,
        Some(s) if !random && s.starts_with('-') => {
            -signed(parse_size(&s[1..], set.kb_base).map_err(|e| set.err("rw", e))?)?
        }
        Some(s) => signed(
            parse_size(s, if random { 1000 } else { set.kb_base }).map_err(|e| set.err("rw", e))?,
        )?,
    };
    Ok((random, write_pct, skip, trim))
}

/// A sequential job's stride and direction from its block size and fio's skip: each I/O
/// starts where the one before ended plus the skip, so a skip below minus the block size
/// walks backwards.
fn seq_stride(set: &Set, block_size: u64, skip: i64) -> Result<(u64, bool)> {
    let step = block_size as i128 + skip as i128;
    match step {
        0 => Err(set.err(
            "rw",
            format!(
                "a skip of {skip} with {block_size}-byte blocks goes back to the same block every time: give a skip that moves"
            ),
        )),
        s if s > 0 => Ok((set.fits("rw", u64::try_from(s).ok())?, false)),
        s => Ok((set.fits("rw", u64::try_from(-s).ok())?, true)),
    }
}

/// fio's `bs`, `bsrange` and `bssplit` (the last one given wins over the others, as in fio),
/// each `READ[,WRITE]`: the largest size, and the mix when sizes vary.
fn read_block_sizes(
    set: &Set,
    reads: bool,
    writes: bool,
    unaligned: bool,
) -> Result<(u64, Option<BlockMix>)> {
    let kb = set.kb_base;
    let size = |t: &str| parse_size(t, kb);
    let key = ["bssplit", "bsrange", "bs"]
        .into_iter()
        .find(|k| set.get(k).is_some());
    let mut dirs = [
        BlockSizes::Fixed { bytes: 4096 },
        BlockSizes::Fixed { bytes: 4096 },
    ];
    if let Some(key) = key {
        let v = set.text(key).unwrap_or("");
        let parts: Vec<&str> = v.split(',').map(str::trim).collect();
        for (d, slot) in dirs.iter_mut().enumerate() {
            // "4k" alone is for all; "4k,8k" reads then writes (and trims); an empty part
            // keeps 4k. A job that trims sizes its trims in the writes' place.
            let d = if d == 1 && set.trims { 2 } else { d };
            let text = dir_part(&parts, d);
            if text.is_empty() {
                continue;
            }
            let parsed = match key {
                "bs" => size(text).map(|bytes| BlockSizes::Fixed { bytes }),
                "bsrange" if unaligned => any_byte_range(text, &size),
                _ => BlockSizes::parse_with(text, &size),
            };
            *slot = parsed.map_err(|e| set.err(key, e))?;
            if slot.smallest() == 0 {
                return Err(set.err(key, format!("'{text}': a block size must be more than 0")));
            }
        }
    }
    let [mut read, mut write] = dirs;
    // A direction the job does not use takes the other's sizes: nothing is drawn from it.
    if !writes {
        write = read.clone();
    } else if !reads {
        read = write.clone();
    }
    let largest = read.largest().max(write.largest());
    Ok(match (&read, &write) {
        (BlockSizes::Fixed { bytes: a }, BlockSizes::Fixed { bytes: b }) if a == b => (*a, None),
        _ => (largest, Some(BlockMix { read, write })),
    })
}

/// fio's `bs_unaligned` with a bsrange: any length from MIN to MAX (MAX need not be a
/// multiple of MIN), drawn as fio draws it.
fn any_byte_range(
    text: &str,
    size: &dyn Fn(&str) -> std::result::Result<u64, String>,
) -> std::result::Result<BlockSizes, String> {
    let Some((a, b)) = text.split_once('-') else {
        return BlockSizes::parse_with(text, size);
    };
    let (min, max) = (size(a.trim())?, size(b.trim())?);
    match (min, max) {
        (0, _) => Err(format!("range '{text}' needs 0 < MIN <= MAX")),
        (min, max) if max < min => Err(format!("range '{text}' needs 0 < MIN <= MAX")),
        (min, max) if min == max => Ok(BlockSizes::Fixed { bytes: min }),
        (min, max) => Ok(BlockSizes::Range {
            min,
            max,
            any_byte: true,
        }),
    }
}

/// fio's `bs_unaligned` without a bsrange has nothing to unalign: said.
fn note_unaligned(unaligned: bool, mix: &Option<BlockMix>, notes: &mut Vec<String>) {
    let ranged = mix.as_ref().is_some_and(|m| {
        [&m.read, &m.write]
            .iter()
            .any(|b| matches!(b, BlockSizes::Range { any_byte: true, .. }))
    });
    if unaligned && !ranged {
        notes.push(
            "bs_unaligned: no effect: every I/O is one of the sizes given (no bsrange), as in fio"
                .into(),
        );
    }
}

/// The mean size of a mix, for stops given in I/Os.
pub(super) fn mean_size(b: &BlockSizes) -> u64 {
    match b {
        BlockSizes::Fixed { bytes } => *bytes,
        BlockSizes::Range {
            min,
            max,
            any_byte: false,
        } => (min + max) / 2,
        // fio's draw: min + a uniform [0, max), the lengths past max taken as max.
        BlockSizes::Range { min, max, .. } => {
            let below_max = (max - min) as u128 * (*min as u128 + (*max - *min) as u128 / 2);
            ((below_max + *min as u128 * *max as u128) / *max as u128) as u64
        }
        BlockSizes::Split { parts } => {
            parts.iter().map(|p| p.bytes * p.pct as u64).sum::<u64>() / 100
        }
    }
}

fn read_distribution(set: &Set, random: bool, notes: &mut Vec<String>) -> Result<Distribution> {
    let Some(v) = set.text("random_distribution") else {
        return Ok(Distribution::Uniform);
    };
    let (kind, param) = match v.split_once(':') {
        Some((k, p)) => (k, Some(p)),
        None => (v, None),
    };
    let number = |p: Option<&str>| -> Result<f64> {
        p.and_then(|p| p.split(':').next())
            .and_then(|p| p.trim().parse::<f64>().ok())
            .ok_or_else(|| {
                set.err(
                    "random_distribution",
                    format!("'{v}' needs a number: {kind}:VALUE"),
                )
            })
    };
    let d = match kind {
        "random" => Distribution::Uniform,
        "zipf" => Distribution::Zipf {
            theta: number(param)?,
        },
        "pareto" => {
            notes.push("random_distribution=pareto: iogauge's pareto:H sends 1-H of the I/O to a share H of the blocks; check that this is fio's meaning for your H".into());
            Distribution::Pareto { h: number(param)? }
        }
        "zoned" | "zoned_abs" => {
            let list = param.unwrap_or("");
            if list.contains(',') {
                return Err(set.err(
                    "random_distribution",
                    format!("'{v}': separate zones for reads and writes are not supported yet (planned)"),
                ));
            }
            let kb = set.kb_base;
            let absolute = kind == "zoned_abs";
            let list = if absolute {
                list.to_string()
            } else {
                fill_spans(list)
            };
            Distribution::zoned(&list, absolute, &|t| parse_size(t, kb))
                .map_err(|e| set.err("random_distribution", format!("'{v}': {e}")))?
        }
        "normal" | "gauss" => {
            return Err(set.err(
                "random_distribution",
                format!("'{kind}' is not supported yet (planned)"),
            ))
        }
        _ => {
            return Err(set.err(
                "random_distribution",
                format!("'{kind}' is not one of random, zipf, pareto, normal, zoned"),
            ))
        }
    };
    if !random && d != Distribution::Uniform {
        notes.push("random_distribution has no effect on a sequential job (as in fio)".into());
        return Ok(Distribution::Uniform);
    }
    Ok(d)
}

/// fio's zone list with every span given: a zone with none (`20/`, `20/0` or `20`) gets an
/// equal part of what the others leave of 100%, as fio 3.33 reads it (options.c,
/// zone_split_ddir: `zoned:50/5:30/15:20/` ends with a zone of 80%). An item fio stops at
/// (an empty one) ends the list here too.
fn fill_spans(list: &str) -> String {
    let items: Vec<&str> = list
        .split(':')
        .take_while(|i| !i.trim().is_empty())
        .collect();
    let span = |item: &str| -> Option<u64> {
        let s = item.split_once('/')?.1.trim();
        s.parse::<u64>()
            .ok()
            .filter(|&p| p > 0)
            .or(s.is_empty().then_some(0))
    };
    let missing = items
        .iter()
        .filter(|i| matches!(span(i), Some(0) | None))
        .count() as u64;
    if missing == 0 {
        return list.to_string();
    }
    // A span that is not a number is left for the zone parser to name.
    if items.iter().any(|i| {
        i.split_once('/')
            .is_some_and(|(_, s)| !s.trim().is_empty() && s.trim().parse::<u64>().is_err())
    }) {
        return list.to_string();
    }
    let given: u64 = items.iter().filter_map(|i| span(i)).sum();
    let share = 100u64.saturating_sub(given) / missing;
    let filled: Vec<String> = items
        .iter()
        .map(|i| match span(i) {
            Some(s) if s > 0 => i.to_string(),
            _ => format!("{}/{share}", i.split('/').next().unwrap_or("").trim()),
        })
        .collect();
    filled.join(":")
}

/// fio's `refill_buffers`, `buffer_compress_percentage`, `zero_buffers` and dedupe options.
pub(super) fn read_buffers(set: &Set, reads: bool) -> Result<BufferFill> {
    let mut b = BufferFill {
        compress_pct: 0,
        refill: set.flag("refill_buffers")?.unwrap_or(false),
        dedupe: super::dedupe::read_dedupe(set)?,
        pattern: None,
    };
    if set.flag("zero_buffers")?.unwrap_or(false) {
        b.compress_pct = 100;
    }
    if let Some(p) = set.int("buffer_compress_percentage")? {
        if p > 100 {
            return Err(set.err(
                "buffer_compress_percentage",
                format!("{p} is not a percentage 0..100"),
            ));
        }
        b.compress_pct = p as u8;
        // As fio: a partly compressible fill is refreshed per write.
        if p > 0 && p < 100 {
            b.refill = true;
        }
    }
    // As fio: dedupe refreshes every write's buffer, repeating an earlier one's content.
    b.refill |= b.dedupe.is_some();
    if let Some(text) = set.text("buffer_pattern") {
        if b.dedupe.is_some() {
            return Err(set.err(
                "buffer_pattern",
                "with dedupe_percentage is not supported yet (planned): give one",
            ));
        }
        b.pattern = Some(
            crate::spec::fio::pattern::parse_pattern(text)
                .map_err(|e| set.err("buffer_pattern", e))?,
        );
        // As fio (str_buf_pattern_cb): a job that reads, or compresses, refills each write's
        // buffer, since a read into it or the random part would spoil the pattern.
        b.refill = reads || b.compress_pct > 0;
    }
    Ok(b)
}

/// Whether option `a` comes after option `b` in the job's list.
fn later(a: &Location, b: &Location, options: &[FioOption]) -> bool {
    let pos = |l: &Location| options.iter().rposition(|o| &o.at == l);
    pos(a) > pos(b)
}
