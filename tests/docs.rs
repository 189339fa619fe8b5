//! The documentation stays true to the program: every flag of `iogauge run` is documented in
//! docs/run.md, every relative link in README.md, ARCHITECTURE.md and docs/ leads to a file
//! (and, with an anchor, to a heading) that exists, and the README stays short and keeps the
//! two commands a new user starts with.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Every `--long-flag` in `text`.
fn long_flags(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let b = text.as_bytes();
    let mut i = 0;
    while let Some(at) = text[i..].find("--") {
        let start = i + at;
        let mut end = start + 2;
        while end < b.len()
            && (b[end].is_ascii_lowercase() || b[end].is_ascii_digit() || b[end] == b'-')
        {
            end += 1;
        }
        let before_ok =
            start == 0 || !(b[start - 1].is_ascii_alphanumeric() || b[start - 1] == b'-');
        if end > start + 2 && before_ok && b[start + 2].is_ascii_lowercase() {
            out.insert(text[start..end].trim_end_matches('-').to_string());
        }
        i = end.max(start + 2);
    }
    out
}

#[test]
fn every_flag_of_run_is_in_docs_run_md() {
    let o = Command::new(env!("CARGO_BIN_EXE_iogauge"))
        .args(["run", "--help"])
        .output()
        .unwrap();
    assert!(o.status.success());
    let help = String::from_utf8_lossy(&o.stdout);
    // Only the flags' own lines (indented less than their descriptions): the help's prose
    // mentions other tools' flags.
    let flag_lines: String = help
        .lines()
        .filter(|l| {
            let indent = l.len() - l.trim_start().len();
            indent < 10 && l.trim_start().starts_with('-')
        })
        .collect::<Vec<_>>()
        .join("\n");
    let flags = long_flags(&flag_lines);
    assert!(
        flags.len() > 90,
        "only {} flags read from --help",
        flags.len()
    );
    let doc = read(&root().join("docs/run.md"));
    let documented = long_flags(&doc);
    let missing: Vec<&String> = flags
        .iter()
        .filter(|f| *f != "--help" && !documented.contains(*f))
        .collect();
    assert!(
        missing.is_empty(),
        "flags of `iogauge run` missing from docs/run.md: {missing:?}"
    );
}

/// The GitHub anchor of a heading: lower case, spaces to dashes, other punctuation dropped.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The anchors of `markdown`'s headings (outside code blocks).
fn anchors(markdown: &str) -> BTreeSet<String> {
    let mut fenced = false;
    let mut out = BTreeSet::new();
    for line in markdown.lines() {
        if line.starts_with("```") {
            fenced = !fenced;
        } else if !fenced && line.starts_with('#') {
            out.insert(slug(line.trim_start_matches('#')));
        }
    }
    out
}

/// Every `](target)` in `markdown` that is not a web address, outside code blocks.
fn relative_links(markdown: &str) -> Vec<String> {
    let mut fenced = false;
    let mut out = Vec::new();
    for line in markdown.lines() {
        if line.starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        let mut rest = line;
        while let Some(at) = rest.find("](") {
            let tail = &rest[at + 2..];
            let Some(end) = tail.find(')') else { break };
            let target = &tail[..end];
            if !target.contains("://") && !target.starts_with("mailto:") {
                out.push(target.to_string());
            }
            rest = &tail[end..];
        }
    }
    out
}

fn documents() -> Vec<PathBuf> {
    let mut docs = vec![root().join("README.md"), root().join("ARCHITECTURE.md")];
    let mut pages: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    pages.sort();
    docs.extend(pages);
    docs
}

/// Where `link` in `from` leads, and whether it does: the file, and the heading its anchor names.
fn broken(from: &Path, link: &str) -> Option<String> {
    let (path, anchor) = match link.split_once('#') {
        Some((p, a)) => (p, Some(a)),
        None => (link, None),
    };
    let file = match path {
        "" => from.to_path_buf(),
        p => from.parent().unwrap().join(p),
    };
    if !file.exists() {
        return Some(format!("{}: ({link}) leads to no file", from.display()));
    }
    let anchor = anchor.filter(|_| file.extension().is_some_and(|x| x == "md"))?;
    match anchors(&read(&file)).contains(anchor) {
        true => None,
        false => Some(format!("{}: ({link}) names no heading", from.display())),
    }
}

#[test]
fn every_relative_link_leads_somewhere() {
    let docs = documents();
    assert!(docs.len() > 10, "the guides in docs/: {docs:?}");
    let bad: Vec<String> = docs
        .iter()
        .flat_map(|d| {
            relative_links(&read(d))
                .into_iter()
                .filter_map(|l| broken(d, &l))
                .collect::<Vec<_>>()
        })
        .collect();
    assert!(bad.is_empty(), "broken links:\n{}", bad.join("\n"));
}

#[test]
fn the_readme_is_short_and_starts_with_the_two_commands() {
    let readme = read(&root().join("README.md"));
    let lines = readme.lines().count();
    assert!(
        lines <= 400,
        "README.md has {lines} lines: move detail to docs/"
    );
    for command in ["cargo run --release ", "cargo test "] {
        assert!(
            readme.lines().any(|l| l.starts_with(command)),
            "README.md lost its command `{}`",
            command.trim()
        );
    }
    let ci = read(&root().join(".ci/run"));
    assert!(ci.contains("cargo test"), ".ci/run runs the README's tests");
}

#[test]
fn the_checks_themselves_find_what_they_look_for() {
    assert_eq!(
        long_flags("  -b, --block-size <SIZE>, --x, ---, a--b --rate-min-iops=3"),
        ["--block-size", "--rate-min-iops", "--x"]
            .map(String::from)
            .into()
    );
    assert_eq!(
        slug("`iogauge run` and its flags"),
        "iogauge-run-and-its-flags"
    );
    assert_eq!(slug("fio-shaped JSON"), "fio-shaped-json");
    let md = "# A b\n```\n[x](nowhere.md)\n```\n[y](../README.md#two-commands) [z](https://x/y)";
    assert_eq!(
        relative_links(md),
        vec!["../README.md#two-commands".to_string()]
    );
    let here = root().join("docs/run.md");
    assert_eq!(broken(&here, "../README.md#two-commands"), None);
    assert!(broken(&here, "../README.md#no-such-heading").is_some());
    assert!(broken(&here, "no-such-page.md").is_some());
}
