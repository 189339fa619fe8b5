//! DiskSpd's argument reader, and IOR's and mdtest's: one argument per line of the input, in
//! memory only (`#N` targets name two made-up disks).
#![no_main]

use iogauge::spec::diskspd::{parse, Targets};
use libfuzzer_sys::fuzz_target;
use std::path::PathBuf;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let args: Vec<String> = text.lines().map(String::from).collect();
    let disks = || vec![PathBuf::from("/dev/fuzz0"), PathBuf::from("/dev/fuzz1")];
    let _ = parse(&args, &Targets { disks: &disks });
    let _ = iogauge::spec::ior::parse(&args);
    let _ = iogauge::spec::mdtest::parse(&args);
});
