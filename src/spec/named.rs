//! How each tool names a setting: the one place that asks the dialects (spec/fio/options.rs,
//! spec/diskspd/words.rs) for their words. The dialects use [`Flag`]; this file uses them, so
//! that spec/flag.rs depends on none of them.

use super::flag::{Dialect, Flag, Named};
use super::CacheMode;

impl Dialect {
    /// How a user of this tool names `flag`. A setting the tool has no word for is named as
    /// iogauge's own, so that the user knows where it came from.
    pub fn name(self, flag: Flag) -> Named {
        let foreign = match self {
            Dialect::Iogauge => None,
            Dialect::Fio => super::fio::options::flag_name(flag),
            Dialect::Diskspd => super::diskspd::flag_name(flag),
            Dialect::Ior => super::ior::flag_name(flag),
        };
        match (self, foreign) {
            (_, Some(word)) => Named(word, false),
            (Dialect::Iogauge, None) => Named(flag.native(), false),
            (_, None) => Named(flag.native(), true),
        }
    }

    /// The setting that asks for cache mode `mode`: `--cache buffered`, `direct=0`, `-Sb`.
    pub fn cache(self, mode: CacheMode) -> String {
        match self {
            Dialect::Iogauge => format!("--cache {}", mode.name()),
            Dialect::Fio => super::fio::options::cache_words(mode).into(),
            Dialect::Diskspd => super::diskspd::cache_words(mode).into(),
            // IOR has no cache setting of its own: its POSIX API is buffered.
            Dialect::Ior => format!("iogauge's --cache {}", mode.name()),
        }
    }

    /// `flag` given `value`, written as this tool writes it: `-c SIZE`, `size=SIZE`, `-cSIZE`.
    pub fn assign(self, flag: Flag, value: &str) -> String {
        let name = self.name(flag);
        match (self, name.1) {
            (Dialect::Fio, false) => format!("{}={value}", name.0),
            (Dialect::Diskspd, false) => format!("{}{value}", name.0),
            (Dialect::Ior, false) => format!("{} {value}", name.0),
            _ => format!("{name} {value}"),
        }
    }
}
