//! bench/iocp.rs on Windows: the minimal completion port loop, and iogauge.exe run beside it.

use std::os::windows::ffi::OsStrExt;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};
use windows_sys::Win32::Foundation::{CloseHandle, GetLastError, ERROR_IO_PENDING, HANDLE};
use windows_sys::Win32::Storage::FileSystem::{
    CreateFileW, ReadFile, FILE_FLAG_NO_BUFFERING, FILE_FLAG_OVERLAPPED, FILE_SHARE_READ,
    FILE_SHARE_WRITE, OPEN_EXISTING,
};
use windows_sys::Win32::System::Memory::{VirtualAlloc, MEM_COMMIT, MEM_RESERVE, PAGE_READWRITE};
use windows_sys::Win32::System::IO::{
    CreateIoCompletionPort, GetQueuedCompletionStatusEx, OVERLAPPED, OVERLAPPED_ENTRY,
};

const DEPTH: usize = 32;
const BLOCK: u32 = 4096;
const FILE_BYTES: u64 = 64 << 20;

fn env(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// A small random stream (xorshift), so the loop draws offsets as cheaply as it can.
struct Draw(u64);

impl Draw {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % (FILE_BYTES / BLOCK as u64)) * BLOCK as u64
    }
}

/// Issue the read of slot `i` at a fresh offset; false where it failed at once.
///
/// # Safety
/// `ov` and `buf` stay valid until the read completes.
unsafe fn issue(file: HANDLE, ov: &mut OVERLAPPED, buf: *mut u8, draw: &mut Draw) -> bool {
    let off = draw.next();
    *ov = std::mem::zeroed();
    ov.Anonymous.Anonymous.Offset = off as u32;
    ov.Anonymous.Anonymous.OffsetHigh = (off >> 32) as u32;
    ReadFile(file, buf, BLOCK, std::ptr::null_mut(), ov) != 0 || GetLastError() == ERROR_IO_PENDING
}

/// IOPS of the minimal loop over `secs` seconds.
fn minimal_loop(path: &Path, secs: u64) -> f64 {
    let w: Vec<u16> = path.as_os_str().encode_wide().chain([0]).collect();
    // SAFETY: plain Win32 calls on handles made here and closed at the end; the OVERLAPPEDs and
    // buffers live in boxes that outlive every read (all are reaped before they go).
    unsafe {
        let file = CreateFileW(
            w.as_ptr(),
            0x8000_0000,
            FILE_SHARE_READ | FILE_SHARE_WRITE,
            std::ptr::null(),
            OPEN_EXISTING,
            FILE_FLAG_OVERLAPPED | FILE_FLAG_NO_BUFFERING,
            std::ptr::null_mut(),
        );
        assert!(file as isize != -1, "cannot open {}", path.display());
        let port = CreateIoCompletionPort(file, std::ptr::null_mut(), 0, 1);
        assert!(!port.is_null());
        let bufs = VirtualAlloc(
            std::ptr::null(),
            DEPTH * BLOCK as usize,
            MEM_COMMIT | MEM_RESERVE,
            PAGE_READWRITE,
        ) as *mut u8;
        let mut ovs: Box<[OVERLAPPED]> = (0..DEPTH).map(|_| std::mem::zeroed()).collect();
        let mut entries: Box<[OVERLAPPED_ENTRY]> = (0..DEPTH).map(|_| std::mem::zeroed()).collect();
        let mut draw = Draw(0x9E37_79B9_7F4A_7C15);
        let base = ovs.as_mut_ptr();
        for i in 0..DEPTH {
            assert!(issue(
                file,
                &mut *base.add(i),
                bufs.add(i * BLOCK as usize),
                &mut draw
            ));
        }
        let (start, end) = (Instant::now(), Duration::from_secs(secs));
        let mut done = 0u64;
        let mut in_flight = DEPTH;
        while in_flight > 0 {
            let mut got = 0u32;
            let ok = GetQueuedCompletionStatusEx(
                port,
                entries.as_mut_ptr(),
                DEPTH as u32,
                &mut got,
                u32::MAX,
                0,
            );
            assert!(ok != 0);
            let going = start.elapsed() < end;
            for e in &entries[..got as usize] {
                done += 1;
                let i = e.lpOverlapped.offset_from(base) as usize;
                if !(going
                    && issue(
                        file,
                        &mut *base.add(i),
                        bufs.add(i * BLOCK as usize),
                        &mut draw,
                    ))
                {
                    in_flight -= 1;
                }
            }
        }
        let rate = done as f64 / start.elapsed().as_secs_f64();
        CloseHandle(port);
        CloseHandle(file);
        rate
    }
}

/// IOPS iogauge reports for the same reads through its completion port engine.
fn iogauge(path: &Path, secs: u64) -> f64 {
    let exe = std::env::var("IOG").unwrap_or_else(|_| {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("target/x86_64-pc-windows-gnu/release/iogauge.exe")
            .to_string_lossy()
            .into_owned()
    });
    let out = Command::new(&exe)
        .args(["run", &path.to_string_lossy(), "--engine", "iocp", "-o", "32", "-b", "4k"])
        .args(["-d", &secs.to_string(), "-W", "0", "--allow-overwrite", "--no-save"])
        .args(["--output", "json"])
        .output()
        .unwrap_or_else(|e| panic!("cannot run {exe}: {e} (build it: cargo build --release --target x86_64-pc-windows-gnu, or set IOG)"));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    v["total"]["read"]["iops"].as_f64().expect("iops")
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

pub fn main() {
    let (rounds, secs) = (env("ROUNDS", 5), env("SECS", 3));
    let path = std::env::temp_dir().join(format!("iogauge-iocp-bench-{}.dat", std::process::id()));
    std::fs::write(&path, vec![0x5Au8; FILE_BYTES as usize]).expect("the test file");
    let mut ratios = Vec::new();
    println!("round  loop IOPS  iogauge IOPS  ratio");
    for r in 0..rounds {
        let a = minimal_loop(&path, secs);
        let b = iogauge(&path, secs);
        println!("{r:>5}  {a:>9.0}  {b:>12.0}  {:.3}", b / a);
        ratios.push(b / a);
    }
    println!(
        "median ratio iogauge/loop: {:.3} (goal >= 0.9)",
        median(ratios)
    );
    let _ = std::fs::remove_file(&path);
}
