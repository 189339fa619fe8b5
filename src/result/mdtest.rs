//! An mdtest command line's result (`iogauge mdtest`): each iteration's rate of each of
//! mdtest's operations, every rank's items over the slowest rank's time.

use serde::{Deserialize, Serialize};

/// mdtest's operations, in its order and numbering (mdtest.h's MDTEST_*_NUM).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    DirCreate,
    DirStat,
    DirRead,
    DirRename,
    DirRemove,
    FileCreate,
    FileStat,
    FileRead,
    FileRemove,
    TreeCreate,
    TreeRemove,
}

impl Op {
    pub const COUNT: usize = 11;

    /// mdtest's name of operation number `i`.
    pub fn name(i: usize) -> &'static str {
        [
            "Directory creation",
            "Directory stat",
            "Directory read",
            "Directory rename",
            "Directory removal",
            "File creation",
            "File stat",
            "File read",
            "File removal",
            "Tree creation",
            "Tree removal",
        ][i]
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MdtestResult {
    pub ranks: u32,
    pub items_per_rank: u64,
    pub tree_dirs: u64,
    /// Per iteration, operations per second by [`Op`] number; 0 where not run.
    pub rates: Vec<[f64; Op::COUNT]>,
}
