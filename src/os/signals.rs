//! Ctrl-C (and a termination request) set a flag that the measuring commands watch: they
//! stop, report what they have and save it. Linux: SIGINT and SIGTERM (signal-hook); Windows:
//! SetConsoleCtrlHandler (Ctrl-C, Ctrl-Break, the console closing).

pub use super::sys::signals::on_interrupt;
