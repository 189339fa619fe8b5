//! fio's filecreate, filestat and filedelete engines: each I/O is one operation on the name of
//! one file of the thread's set, done exactly as the fs suite's file_create, file_stat and
//! file_delete do it ([`MetaOp::apply`]), and timed by the worker like any I/O, so each gets a
//! latency. No data moves: an operation completes with 0 bytes.
//!
//! Unlike fio, a create is open(O_CREAT|O_EXCL) *and* close, timed together (the suite's
//! definition): fio times the open alone and closes the file later. O_EXCL makes a file that
//! is already there an error, not a cheaper open passed off as a create. No descriptor is held
//! on a file between operations: an open one would move the cost of a delete to its close.

use super::sync::{Inline, RunOne};
use super::{Op, Sqe};
use crate::os::file::Name;
use crate::os::meta::MetaOp;
use std::sync::atomic::{AtomicBool, Ordering};

pub struct FileOps<'a> {
    op: MetaOp,
    /// The thread's files, full paths, in the order of its set.
    paths: Vec<Name>,
    /// Set for each file an operation succeeded on, in the same order: the runner removes
    /// afterwards only the files a create really made.
    done: &'a [AtomicBool],
}

impl<'a> FileOps<'a> {
    pub fn new(op: MetaOp, paths: Vec<Name>, done: &'a [AtomicBool]) -> Self {
        assert_eq!(paths.len(), done.len(), "a flag per file");
        FileOps { op, paths, done }
    }
}

impl RunOne for FileOps<'_> {
    const MOVES_DATA: bool = false;

    #[inline]
    fn run(&mut self, sqe: &Sqe) -> i32 {
        let f = sqe.file as usize;
        if self.op.on_path(&self.paths[f]) {
            self.done[f].store(true, Ordering::Relaxed);
            0
        } else {
            -crate::os::error::last()
        }
    }

    fn verb(&self, _op: Op) -> &'static str {
        self.op.verb()
    }
}

/// One operation at a time per thread, as the sync engine.
pub type FileOpEngine<'a> = Inline<FileOps<'a>>;
