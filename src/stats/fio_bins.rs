//! fio's latency bins (stat.h's FIO_IO_U_PLAT_*, fio 3.33): the layout of the histograms fio
//! logs with write_hist_log, which fio's tools (fiologparser_hist.py) read by position. Only
//! for writing fio's formats: iogauge's own statistics use the HDR histograms of `stats`.

/// Bits of each value kept exact (FIO_IO_U_PLAT_BITS).
const BITS: u32 = 6;
/// Bins per group (FIO_IO_U_PLAT_VAL).
const PER_GROUP: usize = 1 << BITS;
/// Bins in all (FIO_IO_U_PLAT_NR: 29 groups of 64).
pub const BINS: usize = 29 * PER_GROUP;

/// The bin of a latency of `ns`, as fio's plat_val_to_idx: values below 128 each have their
/// own; above, each doubling is split into 64 bins; the last bin takes everything beyond.
pub fn bin(ns: u64) -> usize {
    let msb = 63u32.saturating_sub(ns.leading_zeros());
    if msb <= BITS {
        return ns as usize;
    }
    let error_bits = msb - BITS;
    let base = ((error_bits + 1) as usize) << BITS;
    let offset = (PER_GROUP - 1) & (ns >> error_bits) as usize;
    (base + offset).min(BINS - 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bins_are_fios() {
        // Worked through fio's plat_val_to_idx by hand.
        assert_eq!(bin(0), 0);
        assert_eq!(bin(127), 127);
        assert_eq!(bin(128), 128);
        assert_eq!(bin(1000), 317);
        assert_eq!(bin(u64::MAX), BINS - 1);
        assert_eq!(BINS, 1856);
        // Monotonic, and every bin below the last reached.
        let mut last = 0;
        for ns in 0..1_000_000u64 {
            let b = bin(ns);
            assert!(b == last || b == last + 1, "{ns}: {last} -> {b}");
            last = b;
        }
    }
}
