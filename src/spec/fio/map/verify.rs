//! fio's verification options onto iogauge's (`crate::verify`): `verify=` of any checksum,
//! `meta` or `pattern` is iogauge's header and XXH3 checksums (which check everything fio's
//! header does, and lost and stale writes too); the family's other options keep fio's meaning
//! where iogauge has one, and are noted where it differs.

use super::super::options::Set;
use crate::error::Result;
use crate::verify::VerifySpec;

/// fio's checksum kinds, every one accepted.
const KINDS: &[&str] = &[
    "md5",
    "crc64",
    "crc32c",
    "crc32c-intel",
    "crc32",
    "crc16",
    "crc7",
    "xxhash",
    "sha512",
    "sha256",
    "sha1",
    "sha3-224",
    "sha3-256",
    "sha3-384",
    "sha3-512",
    "meta",
    "pattern",
    "null",
];

/// The job's verification, or None (no `verify=`, or `verify=0|none`).
pub(in crate::spec::fio) fn read_verify(
    set: &Set,
    dir_of_target: Option<&str>,
    notes: &mut Vec<String>,
) -> Result<Option<VerifySpec>> {
    let Some(kind) = set.text("verify") else {
        return Ok(None);
    };
    let kind = kind.to_ascii_lowercase();
    if kind.is_empty() || kind == "0" || kind == "none" {
        return Ok(None);
    }
    if !KINDS.contains(&kind.as_str()) {
        return Err(set.err(
            "verify",
            format!("'{kind}' is not one of fio's (md5, crc32c, xxhash, sha256, meta, pattern...)"),
        ));
    }
    notes.push(format!(
        "verify={kind}: iogauge writes its own header (target, offset, generation, write \
         sequence, seed) and XXH3-64 checksums of header and content, and checks every read \
         against the generation the unit must hold, so lost and stale writes are caught too"
    ));
    if kind == "pattern" || set.get("verify_pattern").is_some() {
        notes.push(
            "verify_pattern: iogauge's content is random (made again from each header to find \
             the first byte that differs), not the pattern"
                .into(),
        );
    }
    let mut v = VerifySpec {
        unit: set.size("verify_interval")?.unwrap_or(0),
        pass: set.flag("do_verify")?.unwrap_or(true),
        backlog: set
            .int("verify_backlog")?
            .map(|n| n.min(u64::from(u32::MAX)) as u32),
        // fio goes on checking unless verify_fatal=1, and fails at the end.
        go_on: !set.flag("verify_fatal")?.unwrap_or(false),
        dump: None,
        state: None,
        load: set.flag("verify_state_load")?.unwrap_or(false),
        // fio replaces a saved state unless verify_state_load, and its headers carry the
        // job's seed (randseed), fixed unless randrepeat=0.
        fresh: true,
        seed: None,
        checkpoint_s: 1,
        save: set.flag("verify_state_save")?.unwrap_or(true),
    };
    if set.flag("verify_dump")?.unwrap_or(false) {
        v.dump = Some(dir_of_target.unwrap_or(".").to_string());
    }
    if set.flag("verify_only")?.unwrap_or(false) {
        v.load = true;
        v.pass = false;
        notes.push(
            "verify_only: the job reads where it would write, checking each unit against the \
             state the run that wrote it kept (TARGET.iogauge-verify)"
                .into(),
        );
    }
    for (key, why) in [
        (
            "verify_offset",
            "iogauge's header is always at the start of each unit",
        ),
        (
            "verify_async",
            "iogauge checks in the I/O threads, as they complete",
        ),
        (
            "verify_backlog_batch",
            "iogauge reads back all of the backlog each time",
        ),
        (
            "verify_header_seed",
            "iogauge's header always carries the run's seed",
        ),
        (
            "verify_write_sequence",
            "iogauge's header always carries the write's sequence number",
        ),
        (
            "experimental_verify",
            "iogauge checks every unit against its generation anyway",
        ),
    ] {
        if set.get(key).is_some() {
            notes.push(format!("{key}: {why}"));
        }
    }
    Ok(Some(v))
}
