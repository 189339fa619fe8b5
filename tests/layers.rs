//! The layers of ARCHITECTURE.md, checked: a file in src/ imports only from its own layer or
//! the layers below it, and no files import each other in a cycle.
//!
//! It reads the source as text, not through the compiler: comments, strings and characters
//! are blanked, then every `use` item and every path in code that starts at `crate::`,
//! `iogauge::`, `super::`, `self::`, a child module or a name a `use` brought in is followed to
//! the file that defines it (through `pub use` re-exports, so `crate::spec::Flag` is
//! spec/flag.rs). A re-export counts for the layers (no file offers a name from above it) but
//! not for cycles: it forwards a name, and the file that uses the name depends on the file that
//! defines it. Nor, for cycles, does a part's use of its own module's face (`super::Exporter`
//! in report/csv.rs): the module dispatches to its parts, and a module and its parts are one.
//!
//! Unit tests (`#[cfg(test)]` items and files) are left out: the order is the program's, and a
//! test may reach up for its input (a `JobSpec` read from a command line by spec/native.rs).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The layers, lowest first. A file may import from its own layer and every layer listed
/// before it; its layer is the longest prefix (a folder or a file under src/) that names it.
const LAYERS: &[(&str, &[&str])] = &[
    (
        "leaves",
        &[
            "os/", "units.rs", "clock.rs", "rng.rs", "facts.rs", "dates.rs", "error.rs",
        ],
    ),
    ("stats", &["stats/"]),
    ("engine", &["engine/"]),
    ("verify", &["verify/"]),
    ("spec", &["spec/"]),
    ("result", &["result/", "warnings.rs"]),
    ("runner", &["runner/"]),
    ("report/store", &["report/", "store/"]),
    // Runs a job on every rank; the suites (fs_suite/ranks.rs) and the commands call it.
    ("cluster", &["cluster/"]),
    // iogauge's flags (clap) and their reading into a JobSpec: above the reports (a flag
    // names an output format), below the suites that are written as command lines (profiles,
    // the self-test).
    (
        "flags",
        &["cli.rs", "cli/", "spec/native.rs", "spec/native/"],
    ),
    // Everything a command runs inside or runs: the terminal's progress (an `Observer` of the
    // runner), the self-test (a few runs), and the suites with runners of their own.
    (
        "context/suites",
        &[
            "context/",
            "fio_plan/",
            "progress.rs",
            "selftest.rs",
            "profile.rs",
            "fs_suite/",
            "sweep/",
            "dataset/",
            "workload/",
        ],
    ),
    // iozone's command line read into a sweep's Params: above the sweeps.
    (
        "front ends",
        &["cmd/", "main.rs", "lib.rs", "spec/iozone.rs"],
    ),
];

/// Imports against the rules that are known and about to go, as (importing file, imported
/// file) prefixes under src/. Nothing else belongs here.
const KNOWN: &[(&str, &str)] = &[];

/// The result, the reports and the store read what a run made, never the machinery that made
/// it: nothing from the runner, and of the engines only which exist and what each can do.
fn reads_machinery(from: &str, to: &str) -> bool {
    let reader = ["result/", "warnings.rs", "report/", "store/"]
        .iter()
        .any(|p| from.starts_with(p));
    reader && (to.starts_with("runner/") || (to.starts_with("engine/") && to != "engine/kind.rs"))
}

/// A file under src/, named by its path there ("spec/flag.rs").
type File = String;

/// One import: where it is, what it names, and the file that defines what it names.
#[derive(Clone, Debug)]
struct Edge {
    from: File,
    line: usize,
    path: String,
    to: File,
    /// A `pub use` (a re-export).
    reexport: bool,
}

#[test]
fn no_file_imports_from_a_layer_above_its_own() {
    let wrong = against_order(&Graph::read(&src_dir()));
    assert!(
        wrong.is_empty(),
        "{} import(s) against the layer order of ARCHITECTURE.md (leaves < ... < front ends; \
         tests/layers.rs LAYERS):\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

#[test]
fn every_file_has_a_layer() {
    let graph = Graph::read(&src_dir());
    let lost: Vec<&File> = graph
        .files
        .keys()
        .filter(|f| find_layer(f).is_none())
        .collect();
    assert!(
        lost.is_empty(),
        "files in no layer (add them to LAYERS): {lost:?}"
    );
}

#[test]
fn no_files_import_each_other_in_a_cycle() {
    let graph = Graph::read(&src_dir());
    let cycles = graph.cycles();
    let shown: Vec<String> = cycles
        .iter()
        .map(|(all, c)| format!("{}\n  files: {}", describe_cycle(&graph, c), all.join(", ")))
        .collect();
    assert!(
        cycles.is_empty(),
        "{} cycle(s) between files:\n{}",
        cycles.len(),
        shown.join("\n")
    );
}

/// The checker finds what it is meant to: an upward import, a cycle and a re-export.
#[test]
fn the_checker_sees_a_planted_upward_import_and_a_cycle() {
    let dir = std::env::temp_dir().join(format!("iogauge-layers-{}", std::process::id()));
    let write = |p: &str, text: &str| {
        let path = dir.join(p);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write("lib.rs", "pub mod os; pub mod spec;");
    write("os/mod.rs", "pub mod a;");
    write(
        "os/a.rs",
        "// crate::spec::X in a comment\nuse crate::spec::{self, X};",
    );
    write(
        "spec/mod.rs",
        "mod flag;\npub use flag::X;\nfn f() { super::os::a::g(); }",
    );
    write(
        "spec/flag.rs",
        "pub struct X; const S: &str = \"crate::os::a\";",
    );
    let graph = Graph::read(&dir);
    std::fs::remove_dir_all(&dir).unwrap();
    let edges: Vec<String> = graph
        .edges()
        .map(|e| format!("{}:{} {} -> {}", e.from, e.line, e.path, e.to))
        .collect();
    assert_eq!(
        edges,
        [
            "os/a.rs:2 crate::spec -> spec/mod.rs",
            "os/a.rs:2 crate::spec::X -> spec/flag.rs",
            "spec/mod.rs:2 flag::X -> spec/flag.rs",
            "spec/mod.rs:3 super::os::a::g -> os/a.rs",
        ]
    );
    let cycles: Vec<String> = graph
        .cycles()
        .iter()
        .map(|c| describe_cycle(&graph, &c.1))
        .collect();
    assert_eq!(
        against_order(&graph),
        [
            "src/os/a.rs:2 imports crate::spec (layer spec above leaves)",
            "src/os/a.rs:2 imports crate::spec::X (layer spec above leaves)",
        ]
    );
    assert_eq!(cycles.len(), 1, "{cycles:?}");
    assert!(cycles[0].contains("os/a.rs -> spec/mod.rs"), "{cycles:?}");
}

/// Every import from a layer above the importing file's, as "src/a.rs:LINE imports crate::b
/// (layer X above Y)", and every one `reads_machinery` forbids.
fn against_order(graph: &Graph) -> Vec<String> {
    let mut wrong = Vec::new();
    for e in graph.edges().filter(|e| !known(&e.from, &e.to)) {
        let (from, to) = (layer_of(&e.from), layer_of(&e.to));
        let at = format!("src/{}:{} imports {}", e.from, e.line, e.path);
        if to.0 > from.0 {
            wrong.push(format!("{at} (layer {} above {})", to.1, from.1));
        } else if reads_machinery(&e.from, &e.to) {
            wrong.push(format!(
                "{at} ({} is machinery of a run, not its result)",
                e.to
            ));
        }
    }
    wrong
}

fn src_dir() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn find_layer(file: &str) -> Option<(usize, &'static str)> {
    let mut best: Option<(usize, usize, &'static str)> = None;
    for (rank, (name, prefixes)) in LAYERS.iter().enumerate() {
        for p in prefixes.iter() {
            let fits = file == *p || (p.ends_with('/') && file.starts_with(p));
            if fits && best.is_none_or(|b| p.len() > b.0) {
                best = Some((p.len(), rank, name));
            }
        }
    }
    best.map(|b| (b.1, b.2))
}

fn layer_of(file: &str) -> (usize, &'static str) {
    find_layer(file).unwrap_or((LAYERS.len(), "none"))
}

fn known(from: &str, to: &str) -> bool {
    KNOWN
        .iter()
        .any(|(f, t)| from.starts_with(f) && to.starts_with(t))
}

/// Whether `to` is the mod.rs (or crate root) of a module `from` is a part of. A part uses
/// its module's face (`super::Exporter`) and the module dispatches to its parts: that is one
/// module, not two files in a cycle.
fn is_own_module(from: &str, to: &str) -> bool {
    from.starts_with(&parts_of(to))
}

/// Where the parts of the module that `file` is lie: report/mod.rs -> report/, and a module
/// in a file of its own with parts beside it, spec/native.rs -> spec/native/; the crate roots'
/// parts are everything.
fn parts_of(file: &str) -> String {
    match file.strip_suffix("mod.rs") {
        Some(dir) => dir.to_string(),
        None if file == "lib.rs" || file == "main.rs" => String::new(),
        None => format!("{}/", file.trim_end_matches(".rs")),
    }
}

/// Whether an import counts for cycles: not a re-export, not a part's use of its own
/// module's face, not a known import about to go (KNOWN).
fn counts_for_cycles(e: &Edge) -> bool {
    !e.reexport && !is_own_module(&e.from, &e.to) && !known(&e.from, &e.to)
}

/// One cycle, as files and the line that makes each step.
fn describe_cycle(graph: &Graph, cycle: &[File]) -> String {
    let mut steps = Vec::new();
    for (i, from) in cycle.iter().enumerate() {
        let to = &cycle[(i + 1) % cycle.len()];
        let e = graph
            .edges()
            .find(|e| &e.from == from && &e.to == to && counts_for_cycles(e))
            .expect("a cycle steps along edges");
        steps.push(format!("{} -> {} (line {}: {})", from, to, e.line, e.path));
    }
    format!("  {}\n    {}", cycle.join(" -> "), steps.join("\n    "))
}

/// A lexical token: an identifier, `::`, or one other character.
#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Ident(String),
    Sep,
    Punct(char),
}

/// The tokens of a source file with their line numbers; comments, string, byte and character
/// literals leave nothing.
fn tokens(src: &str) -> Vec<(Tok, usize)> {
    let c: Vec<char> = src.chars().collect();
    let at = |i: usize| c.get(i).copied().unwrap_or('\0');
    let (mut i, mut line, mut out) = (0, 1, Vec::new());
    // Moves past c[from..to], counting its newlines.
    let skip = |from: usize, to: usize, line: &mut usize| {
        *line += c[from..to.min(c.len())]
            .iter()
            .filter(|&&x| x == '\n')
            .count();
        to
    };
    while i < c.len() {
        let ch = c[i];
        if ch == '/' && at(i + 1) == '/' {
            while i < c.len() && c[i] != '\n' {
                i += 1;
            }
        } else if ch == '/' && at(i + 1) == '*' {
            let (mut j, mut depth) = (i + 2, 1);
            while j < c.len() && depth > 0 {
                if c[j] == '/' && at(j + 1) == '*' {
                    depth += 1;
                    j += 1;
                } else if c[j] == '*' && at(j + 1) == '/' {
                    depth -= 1;
                    j += 1;
                }
                j += 1;
            }
            i = skip(i, j, &mut line);
        } else if ch == '"' {
            i = skip(i, end_of_string(&c, i + 1), &mut line);
        } else if ch == '\'' {
            i = end_of_char(&c, i);
        } else if ch.is_alphabetic() || ch == '_' {
            let start = i;
            while i < c.len() && (c[i].is_alphanumeric() || c[i] == '_') {
                i += 1;
            }
            let word: String = c[start..i].iter().collect();
            if let Some(end) = raw_string_end(&c, &word, i) {
                i = skip(i, end, &mut line);
            } else if word == "b" && at(i) == '\'' {
                i = end_of_char(&c, i);
            } else if word == "b" && at(i) == '"' {
                i = skip(i, end_of_string(&c, i + 1), &mut line);
            } else {
                out.push((Tok::Ident(word), line));
            }
        } else if ch.is_ascii_digit() {
            while i < c.len() && (c[i].is_alphanumeric() || c[i] == '_') {
                i += 1;
            }
        } else if ch == ':' && at(i + 1) == ':' {
            out.push((Tok::Sep, line));
            i += 2;
        } else {
            if ch == '\n' {
                line += 1;
            } else if !ch.is_whitespace() {
                out.push((Tok::Punct(ch), line));
            }
            i += 1;
        }
    }
    out
}

/// The index just past a string whose body starts at `i` (after the opening quote).
fn end_of_string(c: &[char], mut i: usize) -> usize {
    while i < c.len() && c[i] != '"' {
        i += if c[i] == '\\' { 2 } else { 1 };
    }
    i + 1
}

/// Past a character literal at `i` ('x', '\n', '\u{1F600}'), or past the quote of a lifetime.
fn end_of_char(c: &[char], i: usize) -> usize {
    let at = |k: usize| c.get(k).copied().unwrap_or('\0');
    if at(i + 1) == '\\' {
        let mut j = i + 3;
        while j < c.len() && c[j] != '\'' {
            j += 1;
        }
        j + 1
    } else if at(i + 2) == '\'' {
        i + 3
    } else {
        i + 1
    }
}

/// Past a raw string (r"..", r#".."#, br"..") whose prefix `word` ends before `i`.
fn raw_string_end(c: &[char], word: &str, i: usize) -> Option<usize> {
    if word != "r" && word != "br" {
        return None;
    }
    let mut j = i;
    while c.get(j) == Some(&'#') {
        j += 1;
    }
    if c.get(j) != Some(&'"') {
        return None;
    }
    let hashes = j - i;
    let mut k = j + 1;
    while k < c.len() {
        if c[k] == '"' && (1..=hashes).all(|h| c.get(k + h) == Some(&'#')) {
            return Some(k + 1 + hashes);
        }
        k += 1;
    }
    Some(c.len())
}

/// A path as written in one file, before it is followed to a file.
#[derive(Clone, Debug)]
struct Written {
    line: usize,
    /// The module the path is written in (the file's module and any inline `mod`s).
    module: Vec<String>,
    segments: Vec<String>,
    /// From a `use` item (which may also name things for the rest of the file).
    is_use: bool,
    /// A `pub use`: a re-export, which names but does not depend.
    is_pub_use: bool,
    /// The name a `use` brings in (its last segment or its `as`).
    name: Option<String>,
}

/// Which crate a file belongs to: the library or the binary (main.rs and cmd/).
fn is_bin(file: &str) -> bool {
    file == "main.rs" || file.starts_with("cmd/")
}

/// A module path as a key: the crate ("lib" or "bin") and the segments.
fn key(bin: bool, segments: &[String]) -> String {
    let mut k = String::from(if bin { "bin" } else { "lib" });
    for s in segments {
        k.push_str("::");
        k.push_str(s);
    }
    k
}

/// The names a file's `use` items bring in: name -> (in the binary crate, absolute path).
type Aliases = BTreeMap<String, (bool, Vec<String>)>;

struct Graph {
    /// Every file, with the paths written in it.
    files: BTreeMap<File, Vec<Written>>,
    /// Module path key -> the file that holds it.
    modules: BTreeMap<String, File>,
    /// File -> the names it re-exports (`pub use`), each as an absolute path.
    exports: BTreeMap<File, BTreeMap<String, Vec<String>>>,
    /// Every import, resolved.
    resolved: Vec<Edge>,
}

impl Graph {
    fn read(src: &Path) -> Graph {
        let mut files = BTreeMap::new();
        let mut modules = BTreeMap::new();
        let mut tests = BTreeSet::new();
        for path in rust_files(src) {
            let rel = path
                .strip_prefix(src)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            let text = std::fs::read_to_string(&path).unwrap();
            let module = module_of(&rel);
            let bin = is_bin(&rel);
            modules.insert(key(bin, &module), rel.clone());
            let (paths, test_files) = written(&tokens(&text), &module);
            tests.extend(test_files.iter().map(|m| key(bin, m)));
            files.insert(rel, paths);
        }
        // A file that is all test (`#[cfg(test)] mod tests;`) imports nothing for the program.
        for test_file in tests.iter().filter_map(|k| modules.get(k)) {
            files.insert(test_file.clone(), Vec::new());
        }
        let mut g = Graph {
            files,
            modules,
            exports: BTreeMap::new(),
            resolved: Vec::new(),
        };
        g.exports = g.collect_exports();
        g.resolved = g.resolve_all();
        g
    }

    fn edges(&self) -> impl Iterator<Item = &Edge> {
        self.resolved.iter()
    }

    /// The absolute segments (below the crate root) a written path names, or None where it
    /// leaves the crate (std, clap, an enum's variant, ...).
    fn absolute(&self, file: &str, w: &Written, aliases: &Aliases) -> Option<(bool, Vec<String>)> {
        let bin = is_bin(file);
        let first = w.segments.first()?.as_str();
        let rest = &w.segments[1..];
        let mut base = match first {
            "crate" => return Some((bin, rest.to_vec())),
            "iogauge" if bin => return Some((false, rest.to_vec())),
            "self" => w.module.clone(),
            "super" => {
                let mut m = w.module.clone();
                m.pop()?;
                m
            }
            _ => {
                let mut child = w.module.clone();
                child.push(first.to_string());
                if self.modules.contains_key(&key(bin, &child)) {
                    child.extend(rest.iter().cloned());
                    return Some((bin, child));
                }
                let (in_bin, mut named) = aliases.get(first)?.clone();
                named.extend(rest.iter().cloned());
                return Some((in_bin, named));
            }
        };
        let mut rest = rest;
        while rest.first().map(String::as_str) == Some("super") {
            base.pop()?;
            rest = &rest[1..];
        }
        base.extend(rest.iter().cloned());
        Some((bin, base))
    }

    /// The names each file's `use` items bring in, as absolute paths.
    fn aliases(&self, file: &str) -> Aliases {
        let mut out = BTreeMap::new();
        for w in self.files[file].iter().filter(|w| w.is_use) {
            if let (Some(name), Some(abs)) = (&w.name, self.absolute(file, w, &BTreeMap::new())) {
                out.insert(name.clone(), abs);
            }
        }
        out
    }

    fn collect_exports(&self) -> BTreeMap<File, BTreeMap<String, Vec<String>>> {
        let mut out: BTreeMap<File, BTreeMap<String, Vec<String>>> = BTreeMap::new();
        for (file, paths) in &self.files {
            for w in paths.iter().filter(|w| w.is_pub_use) {
                if let (Some(name), Some((_, abs))) =
                    (&w.name, self.absolute(file, w, &BTreeMap::new()))
                {
                    out.entry(file.clone())
                        .or_default()
                        .insert(name.clone(), abs);
                }
            }
        }
        out
    }

    /// The file that defines what an absolute path names: the deepest module file on the way,
    /// then on through that file's re-exports.
    fn file_of(&self, bin: bool, abs: &[String], hops: usize) -> Option<File> {
        let (depth, file) = (0..=abs.len()).rev().find_map(|k| {
            self.modules
                .get(&key(bin, &abs[..k]))
                .map(|f| (k, f.clone()))
        })?;
        let next = abs.get(depth);
        match next.and_then(|n| self.exports.get(&file)?.get(n)) {
            Some(target) if hops < 8 => {
                let mut further = target.clone();
                further.extend(abs[depth + 1..].iter().cloned());
                self.file_of(bin, &further, hops + 1).or(Some(file))
            }
            _ => Some(file),
        }
    }

    /// One edge for each pair of files: the first import that is not a re-export, or else
    /// the first re-export.
    fn resolve_all(&self) -> Vec<Edge> {
        let mut out: Vec<Edge> = Vec::new();
        let mut seen: BTreeMap<(File, File), usize> = BTreeMap::new();
        for (file, paths) in &self.files {
            let aliases = self.aliases(file);
            for w in paths {
                let Some((bin, abs)) = self.absolute(file, w, &aliases) else {
                    continue;
                };
                let Some(to) = self.file_of(bin, &abs, 0) else {
                    continue;
                };
                if &to == file {
                    continue;
                }
                let edge = Edge {
                    from: file.clone(),
                    line: w.line,
                    path: w.segments.join("::"),
                    to: to.clone(),
                    reexport: w.is_pub_use,
                };
                match seen.get(&(file.clone(), to.clone())) {
                    Some(&k) if out[k].reexport && !edge.reexport => out[k] = edge,
                    Some(_) => {}
                    None => {
                        seen.insert((file.clone(), to), out.len());
                        out.push(edge);
                    }
                }
            }
        }
        out
    }

    /// Every set of files that import each other in a circle (Tarjan's strongly connected
    /// components of more than one file): its files, and one cycle through some of them.
    fn cycles(&self) -> Vec<(Vec<File>, Vec<File>)> {
        let mut next: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
        for e in self.edges().filter(|e| counts_for_cycles(e)) {
            next.entry(&e.from).or_default().insert(&e.to);
        }
        let nodes: Vec<&str> = self.files.keys().map(String::as_str).collect();
        let mut t = Tarjan::default();
        for n in &nodes {
            if !t.index.contains_key(n) {
                t.visit(n, &next);
            }
        }
        t.components
            .iter()
            .filter(|c| c.len() > 1)
            .map(|c| {
                let mut all: Vec<File> = c.iter().map(|f| f.to_string()).collect();
                all.sort();
                (all, one_cycle(c, &next))
            })
            .collect()
    }
}

#[derive(Default)]
struct Tarjan<'a> {
    index: BTreeMap<&'a str, usize>,
    low: BTreeMap<&'a str, usize>,
    stack: Vec<&'a str>,
    on_stack: BTreeSet<&'a str>,
    components: Vec<Vec<&'a str>>,
}

impl<'a> Tarjan<'a> {
    fn visit(&mut self, n: &'a str, next: &BTreeMap<&'a str, BTreeSet<&'a str>>) {
        let i = self.index.len();
        self.index.insert(n, i);
        self.low.insert(n, i);
        self.stack.push(n);
        self.on_stack.insert(n);
        for &m in next.get(n).into_iter().flatten() {
            if !self.index.contains_key(m) {
                self.visit(m, next);
                let low = self.low[n].min(self.low[m]);
                self.low.insert(n, low);
            } else if self.on_stack.contains(m) {
                let low = self.low[n].min(self.index[m]);
                self.low.insert(n, low);
            }
        }
        if self.low[n] == self.index[n] {
            let mut component = Vec::new();
            while let Some(m) = self.stack.pop() {
                self.on_stack.remove(m);
                component.push(m);
                if m == n {
                    break;
                }
            }
            self.components.push(component);
        }
    }
}

/// A shortest cycle through the first file (in name order) of a strongly connected component.
fn one_cycle(component: &[&str], next: &BTreeMap<&str, BTreeSet<&str>>) -> Vec<File> {
    let inside: BTreeSet<&str> = component.iter().copied().collect();
    let start = *inside.iter().next().unwrap();
    let mut came_from: BTreeMap<&str, &str> = BTreeMap::new();
    let mut queue = std::collections::VecDeque::from([start]);
    while let Some(n) = queue.pop_front() {
        for &m in next.get(n).into_iter().flatten() {
            if !inside.contains(m) {
                continue;
            }
            if m == start {
                let mut cycle = vec![n.to_string()];
                let mut k = n;
                while k != start {
                    k = came_from[k];
                    cycle.push(k.to_string());
                }
                cycle.reverse();
                return cycle;
            }
            if !came_from.contains_key(m) {
                came_from.insert(m, n);
                queue.push_back(m);
            }
        }
    }
    unreachable!("a strongly connected component has a cycle through each of its files")
}

fn rust_files(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    out.sort();
    out
}

/// The module a file is ("spec/fio/mod.rs" -> spec::fio; lib.rs and main.rs -> the root).
fn module_of(rel: &str) -> Vec<String> {
    let trimmed = rel.trim_end_matches(".rs");
    let mut parts: Vec<String> = trimmed.split('/').map(str::to_string).collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        parts.pop();
    }
    parts
}

/// The paths written in a file outside `#[cfg(test)]`: every `use` item's, and every path in
/// code that starts at a name (`crate::x`, `super::y::z`, `fio::read_file`); and the modules
/// it declares for tests alone. Which paths lead into the crate is decided later, once every
/// file's modules are known.
fn written(toks: &[(Tok, usize)], file_module: &[String]) -> (Vec<Written>, Vec<Vec<String>>) {
    let mut out = Vec::new();
    // Modules declared under `#[cfg(test)]` in files of their own.
    let mut test_files = Vec::new();
    let mut inline: Vec<(String, usize)> = Vec::new();
    let mut depth = 0usize;
    // `#[cfg(test)]` seen, its item not yet begun; the depth of the braces of the test item.
    let mut test_next = false;
    let mut test_depth: Option<usize> = None;
    let mut i = 0;
    let ident = |k: usize| match toks.get(k) {
        Some((Tok::Ident(s), _)) => Some(s.as_str()),
        _ => None,
    };
    let is = |k: usize, t: Tok| toks.get(k).map(|x| &x.0) == Some(&t);
    while i < toks.len() {
        let module = || {
            let mut m = file_module.to_vec();
            m.extend(inline.iter().map(|x| x.0.clone()));
            m
        };
        let in_test = test_next || test_depth.is_some();
        match &toks[i].0 {
            Tok::Punct('#') if is_cfg_test(toks, i) => test_next = true,
            Tok::Punct(';') => test_next = false,
            Tok::Punct('{') => {
                depth += 1;
                if test_next && test_depth.is_none() {
                    test_depth = Some(depth);
                }
                test_next = false;
            }
            Tok::Punct('}') => {
                if test_depth == Some(depth) {
                    test_depth = None;
                }
                depth = depth.saturating_sub(1);
                while inline.last().is_some_and(|x| x.1 > depth) {
                    inline.pop();
                }
            }
            Tok::Ident(w) if w == "mod" && is(i + 2, Tok::Punct('{')) => {
                if let Some(name) = ident(i + 1) {
                    inline.push((name.to_string(), depth + 1));
                }
            }
            Tok::Ident(w) if w == "mod" && in_test && is(i + 2, Tok::Punct(';')) => {
                if let Some(name) = ident(i + 1) {
                    let mut m = module();
                    m.push(name.to_string());
                    test_files.push(m);
                }
            }
            Tok::Ident(w) if w == "use" && !is(i.wrapping_sub(1), Tok::Sep) => {
                let is_pub = is(i.wrapping_sub(1), Tok::Ident("pub".into()))
                    || is(i.wrapping_sub(1), Tok::Punct(')'));
                let line = toks[i].1;
                let mut trees = Vec::new();
                i += 1;
                use_tree(toks, &mut i, Vec::new(), &mut trees);
                for (segments, name) in trees.into_iter().filter(|_| !in_test) {
                    out.push(Written {
                        line,
                        module: module(),
                        segments,
                        is_use: true,
                        is_pub_use: is_pub,
                        name,
                    });
                }
                continue;
            }
            Tok::Ident(first) if is(i + 1, Tok::Sep) && !is(i.wrapping_sub(1), Tok::Sep) => {
                let line = toks[i].1;
                let mut segments = vec![first.clone()];
                let mut k = i + 1;
                while is(k, Tok::Sep) {
                    match ident(k + 1) {
                        Some(s) => segments.push(s.to_string()),
                        None => break,
                    }
                    k += 2;
                }
                out.extend((!in_test).then(|| Written {
                    line,
                    module: module(),
                    segments,
                    is_use: false,
                    is_pub_use: false,
                    name: None,
                }));
                i = k;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    (out, test_files)
}

/// Whether `toks[i..]` is `#[cfg(test)]`.
fn is_cfg_test(toks: &[(Tok, usize)], i: usize) -> bool {
    let want = [
        Tok::Punct('#'),
        Tok::Punct('['),
        Tok::Ident("cfg".into()),
        Tok::Punct('('),
        Tok::Ident("test".into()),
        Tok::Punct(')'),
        Tok::Punct(']'),
    ];
    toks.len() >= i + want.len() && toks[i..i + want.len()].iter().map(|t| &t.0).eq(want.iter())
}

/// Reads one use tree at `toks[*i]` (after `use`, or inside braces), appending each path it
/// names with the name it brings in; stops at its end (`;`, `,` or `}`, left for the caller).
fn use_tree(
    toks: &[(Tok, usize)],
    i: &mut usize,
    mut prefix: Vec<String>,
    out: &mut Vec<(Vec<String>, Option<String>)>,
) {
    loop {
        match toks.get(*i).map(|t| &t.0) {
            Some(Tok::Sep) => *i += 1,
            Some(Tok::Ident(s)) if s == "as" => {
                *i += 1;
                let name = match toks.get(*i).map(|t| &t.0) {
                    Some(Tok::Ident(n)) if n != "_" => Some(n.clone()),
                    _ => None,
                };
                *i += 1;
                if let Some(last) = out.last_mut() {
                    last.1 = name;
                }
                break;
            }
            Some(Tok::Ident(s)) => {
                prefix.push(s.clone());
                *i += 1;
                if !matches!(toks.get(*i).map(|t| &t.0), Some(Tok::Sep)) {
                    let mut path = prefix.clone();
                    if path.last().map(String::as_str) == Some("self") && path.len() > 1 {
                        path.pop();
                    }
                    let name = path.last().cloned();
                    out.push((path, name));
                    if !matches!(toks.get(*i).map(|t| &t.0), Some(Tok::Ident(a)) if a == "as") {
                        break;
                    }
                }
            }
            Some(Tok::Punct('*')) => {
                *i += 1;
                out.push((prefix.clone(), None));
                break;
            }
            Some(Tok::Punct('{')) => {
                *i += 1;
                loop {
                    match toks.get(*i).map(|t| &t.0) {
                        Some(Tok::Punct('}')) | None => break,
                        Some(Tok::Punct(',')) => *i += 1,
                        _ => use_tree(toks, i, prefix.clone(), out),
                    }
                }
                *i += 1;
                break;
            }
            _ => break,
        }
    }
}
