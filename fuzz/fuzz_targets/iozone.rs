//! iozone's argument reader: one argument per line of the input. It reads the file system only
//! to check that -f's folder exists and that -b's file does not; it writes nothing.
#![no_main]

use iogauge::spec::iozone::parse;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let args: Vec<String> = text.lines().map(String::from).collect();
    if let Ok(z) = parse(&args) {
        // What a parsed line promises the sweep: a grid with at least one cell.
        assert!(!z.params.grid().is_empty());
    }
});
