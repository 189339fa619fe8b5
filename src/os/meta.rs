//! The metadata operations (create, open, stat, rename, delete, mkdir, rmdir), each once on
//! one name: what the fs suite times per operation and what the file-operation engines do per
//! I/O, written once per system (its port's `meta.rs`: `MetaOp::apply`, `MetaOp::on_path`) so
//! that both measure the same call.

/// The metadata operations; the fs suite applies each to names `prefix<i>` for i in a range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MetaOp {
    /// open(O_CREAT | O_EXCL) + close
    Create,
    /// open(O_RDONLY) + close
    Open,
    /// open(O_CREAT | O_TRUNC) + close
    Overwrite,
    /// fstatat
    Stat,
    /// renameat to "r<i>"
    Rename,
    /// unlinkat
    Delete,
    /// mkdirat
    Mkdir,
    /// unlinkat(AT_REMOVEDIR)
    Rmdir,
}

impl MetaOp {
    /// The operation as a verb, for error messages.
    pub fn verb(self) -> &'static str {
        match self {
            MetaOp::Create => "create",
            MetaOp::Open => "open",
            MetaOp::Overwrite => "overwrite",
            MetaOp::Stat => "stat",
            MetaOp::Rename => "rename",
            MetaOp::Delete => "delete",
            MetaOp::Mkdir => "create folder",
            MetaOp::Rmdir => "remove folder",
        }
    }
}
