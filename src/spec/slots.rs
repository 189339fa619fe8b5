//! Where a working set's random offsets lie, and where a zoned distribution's zones fall
//! over them: one layout, which the runner's sampler draws from (runner/offsets.rs) and
//! DiskSpd's XML report prints (report/diskspd_xml.rs).

use super::Zone;

/// The random offsets of a working set of `len` bytes for I/Os of at most `block` bytes:
/// `align` apart, the last one a block before the end.
pub fn random_slots(len: u64, block: u64, align: u64) -> u64 {
    (len - block) / align + 1
}

/// A zone with I/O, laid out over a working set's slots.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ZoneSlots {
    pub io_pct: u8,
    pub first: u64,
    pub slots: u64,
}

/// Where `zones` fall over `slots` slots `align` apart in `len` bytes: the zones with I/O, in
/// order. A zone past the end is cut off; one cut short keeps its share (DiskSpd).
pub fn zone_layout(
    absolute: bool,
    zones: &[Zone],
    slots: u64,
    align: u64,
    len: u64,
) -> Vec<ZoneSlots> {
    let mut out = Vec::new();
    let (mut at, mut pct_sum) = (0u64, 0u64);
    for z in zones {
        let bytes = match (absolute, z.span) {
            (true, 0) => len.saturating_sub(at),
            (true, b) => b,
            // Percentages summed before rounding, so that zones reaching 100% reach the end
            // (as DiskSpd guarantees), not a few bytes short of the last slot.
            (false, pct) => {
                pct_sum += pct;
                ((len as u128 * pct_sum as u128) / 100) as u64 - at
            }
        };
        let end = (at + bytes).min(len);
        if at >= len {
            break;
        }
        let first = (at / align).min(slots - 1);
        let n = ((end / align).min(slots)).saturating_sub(first).max(1);
        at += bytes;
        if z.io_pct > 0 {
            out.push(ZoneSlots {
                io_pct: z.io_pct,
                first,
                slots: n,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percent_zones_that_reach_100_reach_the_last_slot() {
        let z = |io_pct, span| Zone { io_pct, span };
        // 10%, 10% and 80% of 16 MiB rounded down one by one end 2 bytes short of the end.
        let len = 16 << 20;
        let slots = random_slots(len, 4096, 4096);
        let zones = [z(50, 10), z(0, 10), z(50, 80)];
        let layout = zone_layout(false, &zones, slots, 4096, len);
        assert_eq!(layout.len(), 2, "the zone without I/O is a hole");
        assert_eq!((layout[0].first, layout[0].slots), (0, 409));
        let last = layout[1];
        assert_eq!((last.first, last.first + last.slots), (819, slots));
    }
}
