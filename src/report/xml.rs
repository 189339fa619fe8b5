//! An indented XML writer, for DiskSpd's reports: its `-Rxml` (diskspd_xml.rs) and the
//! `<System>` part of it (diskspd_system.rs).

use std::fmt::Write;

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Whatever the value, a well-formed attribute (DiskSpd writes `<unknown>` bare).
fn attrs(pairs: &[(&str, &str)]) -> String {
    pairs
        .iter()
        .map(|(k, v)| format!(" {k}=\"{}\"", esc(v)))
        .collect()
}

pub(super) struct Xml {
    pub(super) o: String,
    depth: usize,
}

impl Xml {
    pub(super) fn new() -> Xml {
        Xml {
            o: String::new(),
            depth: 0,
        }
    }
    pub(super) fn open(&mut self, tag: &str) {
        self.open_with(tag, &[]);
    }
    pub(super) fn open_with(&mut self, tag: &str, pairs: &[(&str, &str)]) {
        let _ = writeln!(self.o, "{}<{tag}{}>", "  ".repeat(self.depth), attrs(pairs));
        self.depth += 1;
    }
    /// `<tag a="v" .../>`
    pub(super) fn empty(&mut self, tag: &str, pairs: &[(&str, &str)]) {
        let _ = writeln!(
            self.o,
            "{}<{tag}{}/>",
            "  ".repeat(self.depth),
            attrs(pairs)
        );
    }
    pub(super) fn close(&mut self, tag: &str) {
        self.depth -= 1;
        let _ = writeln!(self.o, "{}</{tag}>", "  ".repeat(self.depth));
    }
    pub(super) fn leaf(&mut self, tag: &str, value: impl std::fmt::Display) {
        let _ = writeln!(
            self.o,
            "{}<{tag}>{}</{tag}>",
            "  ".repeat(self.depth),
            esc(&value.to_string())
        );
    }
    pub(super) fn raw(&mut self, line: &str) {
        let _ = writeln!(self.o, "{}{line}", "  ".repeat(self.depth));
    }
}
