//! Windows: each processor's idle, kernel and user time (NtQuerySystemInformation's
//! SystemProcessorPerformanceInformation, in 100 ns units; kernel time includes idle time,
//! which is taken out here). Windows reports no steal time to a guest.

#[repr(C)]
#[derive(Clone, Copy, Default)]
struct ProcessorTimes {
    idle: i64,
    kernel: i64,
    user: i64,
    dpc: i64,
    interrupt: i64,
    interrupts: u32,
}

#[link(name = "ntdll")]
extern "system" {
    fn NtQuerySystemInformation(
        class: u32,
        info: *mut core::ffi::c_void,
        len: u32,
        ret: *mut u32,
    ) -> i32;
}

/// SystemProcessorPerformanceInformation.
const PROCESSOR_PERFORMANCE: u32 = 8;

pub fn times() -> Vec<(u64, u64, u64)> {
    let n = super::numa::allowed_cpus().len().max(1);
    let mut buf = vec![ProcessorTimes::default(); n];
    let mut got = 0u32;
    let len = (n * std::mem::size_of::<ProcessorTimes>()) as u32;
    // SAFETY: the buffer holds `n` records, its size in bytes given.
    let status = unsafe {
        NtQuerySystemInformation(
            PROCESSOR_PERFORMANCE,
            buf.as_mut_ptr().cast(),
            len,
            &mut got,
        )
    };
    if status < 0 {
        return Vec::new();
    }
    buf.truncate(got as usize / std::mem::size_of::<ProcessorTimes>());
    buf.iter()
        .map(|t| {
            let idle = t.idle.max(0) as u64;
            (
                t.user.max(0) as u64,
                (t.kernel.max(0) as u64).saturating_sub(idle),
                idle,
            )
        })
        .collect()
}

pub fn steal_ticks() -> u64 {
    0
}

/// 100 ns units.
pub fn ticks_per_sec() -> u64 {
    10_000_000
}
