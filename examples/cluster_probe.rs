//! Each rank's place, and the collectives iogauge's runner uses, under a launcher:
//! `mpirun -np 4 target/debug/examples/cluster_probe` (build with `--features mpi`).

use iogauge::cluster::{detect, expand};
use std::sync::atomic::AtomicBool;

fn main() {
    let c = detect().expect("cluster");
    let p = c.place().clone();
    let t = std::time::Instant::now();
    c.fence(&AtomicBool::new(false));
    let waited = t.elapsed();
    let path = expand("/shared/{host}/rank{rank}-of-{nranks}.{local_rank}", &p).unwrap();
    let agreed = c.max_u64(100 + p.rank as u64);
    let line = format!(
        "rank {} of {} on {}: {path}, barrier {:?}, max {agreed}",
        p.rank, p.size, p.host, waited
    );
    if let Some(all) = c.gather(line.as_bytes()) {
        for l in all {
            println!("{}", String::from_utf8_lossy(&l));
        }
    }
}
