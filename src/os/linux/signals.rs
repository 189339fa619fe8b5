//! Linux: SIGINT and SIGTERM set the flag.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

pub fn on_interrupt(flag: Arc<AtomicBool>) -> std::io::Result<()> {
    for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register(sig, flag.clone())?;
    }
    Ok(())
}
