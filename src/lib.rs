//! iogauge: storage and file-system performance measurement.
//!
//! The flow is one-way: a front end ([`cli`] + [`spec::native`]) builds a validated
//! [`spec::JobSpec`]; [`runner`] runs it on an [`engine`] and returns a [`result::RunResult`];
//! a [`report`] renders that. No layer reaches back into the one before it.
//!
//! The file-system suite, sweeps, datasets and workloads are built on Linux only for now:
//! their Windows calls are the next port (the command names them when refused).

pub mod cli;
pub mod clock;
pub mod cluster;
pub mod context;
#[cfg(any(target_os = "linux", windows))]
pub mod dataset;
pub mod dates;
pub mod engine;
pub mod error;
pub mod facts;
pub mod fio_plan;
pub mod fs_suite;
pub mod os;
pub mod profile;
pub mod progress;
pub mod report;
pub mod result;
pub mod rng;
pub mod runner;
pub mod selftest;
pub mod spec;
pub mod stats;
pub mod store;
pub mod sweep;
pub mod units;
pub mod verify;
pub mod warnings;
#[cfg(any(target_os = "linux", windows))]
pub mod workload;
