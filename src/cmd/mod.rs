pub mod fs;
pub mod saved;
