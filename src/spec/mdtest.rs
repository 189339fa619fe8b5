//! mdtest command lines (`iogauge mdtest`) -> the suite's parameters, with mdtest's meaning
//! (mdtest.c): each rank makes, stats, reads and removes its items (files, folders or both)
//! in a tree of `-b` branches `-z` deep, `-I` items in each of its folders (or only in the
//! leaves with -L), in a tree of its own (-u) or one tree all ranks share. Messages name
//! mdtest's options as its users type them. fs_suite/mdtest.rs runs it.

use crate::error::{Error, Result};

/// An mdtest command line, read and checked.
#[derive(Debug, Clone, PartialEq)]
pub struct Mdtest {
    /// Items per rank (-n), after mdtest's rounding to whole folders.
    pub items: u64,
    /// Items in each folder that holds items.
    pub per_dir: u64,
    pub depth: u32,
    pub branch: u32,
    pub dir: String,
    pub unique: bool,
    pub files: bool,
    pub dirs: bool,
    pub create: bool,
    pub stat: bool,
    pub read: bool,
    pub remove: bool,
    pub iterations: u32,
    pub write_bytes: u64,
    pub read_bytes: u64,
    pub leaf_only: bool,
    /// -N: stat and read the items of the rank this many further on.
    pub stride: u32,
    pub notes: Vec<String>,
}

fn bad(msg: impl Into<String>) -> Error {
    Error::usage(msg.into())
}

/// The options as typed, before mdtest's arithmetic.
#[derive(Default)]
struct Typed {
    n: Option<u64>,
    per_dir: Option<u64>,
    depth: u32,
    branch: Option<u32>,
    dir: Option<String>,
    flags: String,
    iterations: Option<u32>,
    write: u64,
    read: u64,
    stride: u32,
}

/// Read mdtest's options. A value follows its option (`-n 100`) or is joined to it
/// (`-n100`), as mdtest's parser takes them.
pub fn parse(args: &[String]) -> Result<Mdtest> {
    let mut t = Typed::default();
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let Some(letter) = arg.strip_prefix('-').and_then(|r| r.chars().next()) else {
            return Err(bad(format!(
                "Error invalid argument: {arg} (mdtest takes options only)"
            )));
        };
        let joined = &arg[1 + letter.len_utf8()..];
        if "nIzbdiweN".contains(letter) {
            let value = match joined.strip_prefix('=').unwrap_or(joined) {
                "" => it
                    .next()
                    .cloned()
                    .ok_or_else(|| bad(format!("Error, argument missing for option -{letter}")))?,
                v => v.to_string(),
            };
            t.set(letter, &value)?;
        } else if joined.is_empty() && "uFDCTErLtv".contains(letter) {
            t.flags.push(letter);
        } else {
            return Err(bad(format!(
                "Error invalid argument: {arg} (not supported by iogauge mdtest; it reads -n -I \
                 -z -b -d -u -F -D -C -T -E -r -i -w -e -L -N -t -v)"
            )));
        }
    }
    t.build()
}

fn number<T: std::str::FromStr>(v: &str, opt: char, name: &str) -> Result<T> {
    v.parse()
        .map_err(|_| bad(format!("-{opt} '{v}': {name} must be a whole number")))
}

impl Typed {
    fn set(&mut self, letter: char, v: &str) -> Result<()> {
        match letter {
            'n' => self.n = Some(number(v, 'n', "the number of items")?),
            'I' => self.per_dir = Some(number(v, 'I', "the number of items per directory")?),
            'z' => self.depth = number(v, 'z', "the depth")?,
            'b' => self.branch = Some(number(v, 'b', "the branching factor")?),
            'd' if v.is_empty() => return Err(bad("-d: the directory needs a name")),
            'd' => self.dir = Some(v.to_string()),
            'i' => self.iterations = Some(number(v, 'i', "the number of iterations")?),
            'w' => self.write = number(v, 'w', "the bytes to write")?,
            'e' => self.read = number(v, 'e', "the bytes to read")?,
            _ => self.stride = number(v, 'N', "the stride")?,
        }
        Ok(())
    }

    fn has(&self, letter: char) -> bool {
        self.flags.contains(letter)
    }

    /// mdtest's checks and arithmetic (md_validate_tests and the items per folder).
    fn build(self) -> Result<Mdtest> {
        let branch = self.branch.unwrap_or(1);
        if branch < 1 && self.depth > 0 {
            return Err(bad(
                "-b: branch factor must be greater than or equal to zero",
            ));
        }
        let (files, dirs) = match (self.has('F'), self.has('D')) {
            (false, false) => (true, true),
            pair => pair,
        };
        let picked = ['C', 'T', 'E', 'r'].map(|c| self.has(c));
        let all = !picked.iter().any(|&p| p);
        let iterations = self.iterations.unwrap_or(1);
        if iterations == 0 {
            return Err(bad("-i: iterations must be at least 1"));
        }
        let leaves = tree_leaves(self.depth, branch)?;
        let dirs_in_tree = tree_dirs(self.depth, branch)?;
        let holders = if self.has('L') { leaves } else { dirs_in_tree };
        let (items, per_dir) =
            match (self.n, self.per_dir) {
                (Some(_), Some(_)) => return Err(bad(
                    "-n -I: only specify the number of items or the number of items per directory",
                )),
                (None, Some(i)) => (i.saturating_mul(holders), i),
                (Some(n), None) => (n / holders * holders, n / holders),
                (None, None) => (0, 0),
            };
        let mut notes = Vec::new();
        if self.has('t') {
            notes.push("-t: iogauge does not time the unique directory's creation apart".into());
        }
        if let Some(n) = self.n.filter(|&n| n != items) {
            notes.push(format!(
                "-n {n}: {items} items per rank, whole folders of {per_dir}"
            ));
        }
        Ok(Mdtest {
            items,
            per_dir,
            depth: self.depth,
            branch,
            dir: self.dir.clone().unwrap_or_else(|| "./out".into()),
            unique: self.has('u'),
            files,
            dirs,
            create: all || picked[0],
            stat: all || picked[1],
            read: all || picked[2],
            remove: all || picked[3],
            iterations,
            write_bytes: self.write,
            read_bytes: self.read,
            leaf_only: self.has('L'),
            stride: self.stride,
            notes,
        })
    }
}

/// Folders in a tree `depth` deep with `branch` branches at each level (mdtest's
/// num_dirs_in_tree).
pub fn tree_dirs(depth: u32, branch: u32) -> Result<u64> {
    let mut total: u64 = 0;
    let mut level: u64 = 1;
    for _ in 0..=depth {
        total = total.checked_add(level).ok_or_else(too_big)?;
        level = level.checked_mul(u64::from(branch)).ok_or_else(too_big)?;
    }
    Ok(total)
}

fn tree_leaves(depth: u32, branch: u32) -> Result<u64> {
    u64::from(branch).checked_pow(depth).ok_or_else(too_big)
}

fn too_big() -> Error {
    bad("-z -b: the tree has too many directories")
}

impl Mdtest {
    /// The tree's folders in mdtest's numbering (folder k's children are k*b + 1 ..= k*b +
    /// b), parents first: each as its number, its path below where the tree is made, and
    /// whether it holds items (folder k items k*I .. (k+1)*I).
    pub fn tree(&self, base: &str) -> Vec<(u64, String, bool)> {
        let mut out = Vec::new();
        let b = u64::from(self.branch);
        let mut stack = vec![(0u64, 0u32, format!("{base}.0"))];
        while let Some((k, level, path)) = stack.pop() {
            let holds = !self.leaf_only || level == self.depth;
            out.push((k, path.clone(), holds));
            if level < self.depth {
                for c in (1..=b).rev() {
                    let child = k * b + c;
                    stack.push((child, level + 1, format!("{path}/{base}.{child}")));
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(line: &str) -> Vec<String> {
        line.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn items_are_spread_over_the_tree_as_mdtest_spreads_them() {
        let m = parse(&args("-I 10 -z 2 -b 3")).unwrap();
        assert_eq!((m.items, m.per_dir), (130, 10));
        let m = parse(&args("-n 100 -z 2 -b 3 -L")).unwrap();
        assert_eq!((m.items, m.per_dir), (99, 11));
        assert!(m.notes[0].starts_with("-n 100: 99 items per rank"));
        let tree = m.tree("t");
        assert_eq!(tree.len(), 13);
        assert_eq!(tree[1], (1, "t.0/t.1".to_string(), false));
        assert_eq!(tree[2], (4, "t.0/t.1/t.4".to_string(), true));
        let m = parse(&args("-C -F -n 5 -u -d /x")).unwrap();
        assert!(m.create && !m.stat && !m.remove && m.files && !m.dirs && m.unique);
    }

    #[test]
    fn bad_lines_are_refused_in_one_line_in_mdtests_words() {
        for (line, want) in [
            ("-n 1 -I 1", "-n -I: only specify the number of items"),
            ("-n x", "-n 'x': the number of items must be a whole number"),
            ("-n", "Error, argument missing for option -n"),
            ("-x stonewall", "Error invalid argument: -x"),
            (
                "-z 1 -b 0",
                "-b: branch factor must be greater than or equal to zero",
            ),
            ("-z 64 -b 9", "-z -b: the tree has too many directories"),
            ("-i 0", "-i: iterations must be at least 1"),
            ("dir", "Error invalid argument: dir"),
        ] {
            let e = parse(&args(line)).unwrap_err().to_string();
            assert!(e.starts_with(want), "{line}: {e}");
            assert!(!e.contains('\n'));
        }
    }
}
