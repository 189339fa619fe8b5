//! The operating system's plumbing that several layers share, each piece in one place.

pub mod limits;
pub mod owned;
pub mod threads;
