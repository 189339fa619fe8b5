//! [`Cluster`] on MPI (rsmpi): the ranks of a job an MPI launcher started.

use super::{Cluster, Place};
use mpi::collective::SystemOperation;
use mpi::datatype::PartitionMut;
use mpi::topology::{Communicator, SimpleCommunicator};
use mpi::traits::*;
use mpi::Count;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

pub struct Mpi {
    // Finalizes MPI when dropped: kept for the life of the process's MPI use.
    _universe: mpi::environment::Universe,
    world: SimpleCommunicator,
    place: Place,
    hosts: Vec<String>,
}

/// Whether an MPI launcher started this process (PMIx under Slurm says only the rank), so
/// that a plain `iogauge run` never initialises MPI.
pub fn launched() -> bool {
    super::launched_ranks().is_some() || std::env::var_os("PMIX_RANK").is_some()
}

impl Mpi {
    /// MPI initialised, if a launcher started this process.
    pub fn start() -> Option<Mpi> {
        if !launched() {
            return None;
        }
        let universe = mpi::initialize()?;
        let world = universe.world();
        let host = mpi::environment::processor_name().unwrap_or_else(|_| super::hostname());
        let hosts: Vec<String> = gather_all(&world, host.as_bytes())
            .into_iter()
            .map(|n| String::from_utf8_lossy(&n).into_owned())
            .collect();
        let local_rank = super::local_rank(&hosts, world.rank() as usize);
        let place = Place {
            rank: world.rank() as u32,
            size: world.size() as u32,
            host,
            local_rank,
        };
        Some(Mpi {
            _universe: universe,
            world,
            place,
            hosts,
        })
    }
}

/// Every rank's bytes on every rank, in rank order.
fn gather_all(world: &SimpleCommunicator, bytes: &[u8]) -> Vec<Vec<u8>> {
    let n = bytes.len() as Count;
    let mut counts = vec![0 as Count; world.size() as usize];
    world.all_gather_into(&n, &mut counts[..]);
    let displs = offsets(&counts);
    let mut buf = receive_buffer(&counts);
    {
        let mut part = PartitionMut::new(&mut buf[..], &counts[..], &displs[..]);
        world.all_gather_varcount_into(sendable(bytes), &mut part);
    }
    split(&buf, &counts, &displs)
}

/// An empty slice points at address 1, which Open MPI reads as MPI_IN_PLACE ((void *) 1)
/// and refuses on a rank that is not the root (MPI_ERR_ARG, fatal): send nothing from a real
/// address instead.
fn sendable(bytes: &[u8]) -> &[u8] {
    static NOTHING: [u8; 1] = [0];
    if bytes.is_empty() {
        &NOTHING[..0]
    } else {
        bytes
    }
}

/// Room for every rank's bytes, at a real address even when they are all empty (see
/// [`sendable`]).
fn receive_buffer(counts: &[Count]) -> Vec<u8> {
    let total = counts.iter().sum::<Count>() as usize;
    let mut buf = Vec::with_capacity(total.max(1));
    buf.resize(total, 0);
    buf
}

fn offsets(counts: &[Count]) -> Vec<Count> {
    counts
        .iter()
        .scan(0, |at, &c| {
            let d = *at;
            *at += c;
            Some(d)
        })
        .collect()
}

fn split(buf: &[u8], counts: &[Count], displs: &[Count]) -> Vec<Vec<u8>> {
    counts
        .iter()
        .zip(displs)
        .map(|(&c, &d)| buf[d as usize..(d + c) as usize].to_vec())
        .collect()
}

impl Cluster for Mpi {
    fn place(&self) -> &Place {
        &self.place
    }

    fn hosts(&self) -> &[String] {
        &self.hosts
    }

    fn fence(&self, interrupted: &AtomicBool) -> bool {
        // A non-blocking barrier, tested until done: a blocking one could not notice Ctrl-C
        // (or the launcher's SIGTERM for a rank that failed) and would hang until killed,
        // leaving this rank's files behind. Yield at first, for a prompt release when the
        // ranks arrive together; then sleep, so that waiting for a rank still laying out its
        // files takes no CPU from it.
        let began = Instant::now();
        let mut req = self.world.immediate_barrier();
        loop {
            match req.test() {
                Ok(_) => return true,
                Err(r) => req = r,
            }
            if interrupted.load(Ordering::Relaxed) {
                // Never completed: rsmpi would panic on dropping it, and the process is
                // about to leave anyway.
                std::mem::forget(req);
                return false;
            }
            if began.elapsed() < Duration::from_millis(100) {
                std::thread::yield_now();
            } else {
                std::thread::sleep(Duration::from_micros(200));
            }
        }
    }

    fn gather(&self, bytes: &[u8]) -> Option<Vec<Vec<u8>>> {
        let root = self.world.process_at_rank(0);
        let n = bytes.len() as Count;
        if !self.place.is_root() {
            root.gather_into(&n);
            root.gather_varcount_into(sendable(bytes));
            return None;
        }
        let mut counts = vec![0 as Count; self.place.size as usize];
        root.gather_into_root(&n, &mut counts[..]);
        let displs = offsets(&counts);
        let mut buf = receive_buffer(&counts);
        {
            let mut part = PartitionMut::new(&mut buf[..], &counts[..], &displs[..]);
            root.gather_varcount_into_root(sendable(bytes), &mut part);
        }
        Some(split(&buf, &counts, &displs))
    }

    fn gather_all(&self, bytes: &[u8]) -> Vec<Vec<u8>> {
        gather_all(&self.world, bytes)
    }

    fn max_u64(&self, v: u64) -> u64 {
        let mut out = 0u64;
        self.world
            .all_reduce_into(&v, &mut out, SystemOperation::max());
        out
    }

    fn abort(&self, code: i32) -> ! {
        self.world.abort(code)
    }
}
