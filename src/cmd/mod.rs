pub mod fio;
pub mod fs;
pub mod saved;
