//! Windows: a console control handler (SetConsoleCtrlHandler) sets every flag registered, for
//! Ctrl-C, Ctrl-Break and the console window closing, and tells Windows it was handled, so
//! that the process ends on its own, with its results.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, Once};
use windows_sys::Win32::System::Console::{
    SetConsoleCtrlHandler, CTRL_BREAK_EVENT, CTRL_CLOSE_EVENT, CTRL_C_EVENT,
};

static FLAGS: Mutex<Vec<Arc<AtomicBool>>> = Mutex::new(Vec::new());

unsafe extern "system" fn handler(event: u32) -> i32 {
    if !matches!(event, CTRL_C_EVENT | CTRL_BREAK_EVENT | CTRL_CLOSE_EVENT) {
        return 0;
    }
    if let Ok(flags) = FLAGS.lock() {
        for f in flags.iter() {
            f.store(true, Ordering::Relaxed);
        }
    }
    1
}

pub fn on_interrupt(flag: Arc<AtomicBool>) -> std::io::Result<()> {
    static ONCE: Once = Once::new();
    let mut installed = Ok(());
    ONCE.call_once(|| {
        // SAFETY: the handler is a plain function that lives as long as the process.
        if unsafe { SetConsoleCtrlHandler(Some(handler), 1) } == 0 {
            installed = Err(std::io::Error::last_os_error());
        }
    });
    installed?;
    FLAGS.lock().unwrap_or_else(|p| p.into_inner()).push(flag);
    Ok(())
}
