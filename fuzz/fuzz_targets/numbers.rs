//! The size, number and time parsers, and fio's arithmetic in parentheses: any text gives a
//! value or a one-line error, never a panic (an overflow, a division, a stack overflow).
#![no_main]

use iogauge::spec::{fio, units, BlockSizes, FileService};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let _ = units::parse_size(text);
    let _ = units::parse_duration_ns(text);
    for kb_base in [1024, 1000] {
        let _ = fio::parse_size(text, kb_base);
        let _ = fio::parse_size_range(text, kb_base);
        let _ = BlockSizes::parse_with(text, &|t| fio::parse_size(t, kb_base));
    }
    for unit_ns in [1, 1_000, 1_000_000_000] {
        let _ = fio::parse_time_ns(text, unit_ns);
    }
    let _ = BlockSizes::parse(text);
    let _ = FileService::parse(text);
    let _ = iogauge::dates::parse_when(text, "--since", 1_800_000_000_000_000_000);
});
