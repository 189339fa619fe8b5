pub mod diskspd;
pub mod fio;
pub mod fs;
pub mod saved;
