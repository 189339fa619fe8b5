//! Windows has no descriptor limit of the kind RLIMIT_NOFILE is: a process may hold about 16
//! million handles.

/// Nothing to raise.
pub fn raise_nofile() {}

/// (soft, hard): the handle table's size, the same for both.
pub fn nofile() -> (u64, u64) {
    (1 << 24, 1 << 24)
}
