//! DiskSpd's random zones (`-rdpct`, `-rdabs`): what share of the random I/O goes to which
//! part of the target, read with DiskSpd 2.2's checks and its remainder zone.

use super::values::{bad, size};
use crate::error::Result;
use crate::spec::{Distribution, Zone};

/// `-rdpct90/10:0/10:5/20` or `-rdabs90/10G:5/20G`, with DiskSpd 2.2's reading and its checks:
/// IO% and spans are cumulative, an IO% of 0 is a hole, and an IO% short of 100 goes to the
/// rest of the target (a last zone that DiskSpd adds itself).
pub(super) fn random_zones(a: &str, spec: &str, block: u64) -> Result<Distribution> {
    let (absolute, list) = if let Some(l) = spec.strip_prefix("pct") {
        (false, l)
    } else if let Some(l) = spec.strip_prefix("abs") {
        (true, l)
    } else {
        return Err(bad(format!("{a}: Unrecognized random distribution type")));
    };
    let mut zones = Vec::new();
    let (mut io_acc, mut span_acc) = (0u64, 0u64);
    for item in list.split(':') {
        let (io, span) = item
            .split_once('/')
            .ok_or_else(|| bad(format!("{a}: Expected / separator after {item}")))?;
        let io: u64 = io.parse().map_err(|_| {
            bad(format!(
                "{a}: Invalid integer IO%: must be > 0 and <= {}",
                100 - io_acc.min(100)
            ))
        })?;
        if io_acc.saturating_add(io) > 100 {
            return Err(bad(format!(
                "{a}: invalid random distribution IO% {io}: can be at most {} - total must be <= 100%",
                100 - io_acc
            )));
        }
        let span = if absolute {
            absolute_span(a, span, block)?
        } else {
            percent_span(a, span, span_acc, io_acc + io)?
        };
        io_acc += io;
        // Absolute spans are bytes: their sum is only compared, so saturating is exact enough.
        span_acc = span_acc.saturating_add(span);
        zones.push(Zone {
            io_pct: io as u8,
            span,
        });
    }
    // The IO% left goes to the rest of the target.
    if io_acc < 100 {
        zones.push(Zone {
            io_pct: (100 - io_acc) as u8,
            span: if absolute { 0 } else { 100 - span_acc },
        });
        span_acc = 100;
    }
    if !absolute && span_acc != 100 {
        return Err(bad(format!(
            "{a}: invalid random distribution span: Target% ({span_acc}%) must total 100%"
        )));
    }
    Ok(Distribution::Zoned { absolute, zones })
}

/// A `-rdabs` zone's length in bytes: at least a block.
fn absolute_span(a: &str, span: &str, block: u64) -> Result<u64> {
    let b = size(span, block, a)?;
    if b == 0 {
        return Err(bad(format!("{a}: Invalid zero length target range")));
    }
    if b < block {
        return Err(bad(format!("{a}: invalid random distribution target range {b} - must be a minimum of the specified block size ({block} bytes)")));
    }
    Ok(b)
}

/// A `-rdpct` zone's Target%, after `span_acc`% of the target with `io_acc`% of the I/O
/// (this zone's included): the target may not be covered while I/O is left to place.
fn percent_span(a: &str, span: &str, span_acc: u64, io_acc: u64) -> Result<u64> {
    let p: u64 = span
        .parse()
        .ok()
        .filter(|p| (1..=100).contains(p))
        .ok_or_else(|| {
            bad(format!(
                "{a}: Invalid Target% {span}: must be > 0 and <= {}",
                100 - span_acc.min(100)
            ))
        })?;
    if span_acc + p > 100 {
        return Err(bad(format!(
            "{a}: invalid random distribution Target% {p}: can be at most {} - total must be <= 100%",
            100 - span_acc
        )));
    }
    if span_acc + p == 100 && io_acc < 100 {
        return Err(bad(format!(
            "{a}: invalid random distribution: the target is covered with {}% IO left to distribute",
            100 - io_acc
        )));
    }
    Ok(p)
}
