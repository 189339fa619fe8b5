pub mod saved;
