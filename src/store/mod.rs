//! The results store: every run of every measuring command, kept in one SQLite file.
//!
//! The JSON document (`--output json`) is the record of truth; the other tables hold what is
//! queried (summary figures per pass, time series, histograms as HdrHistogram blobs, tags,
//! baselines) so that listing 10,000 runs never parses a document, and so that anyone can
//! query the file with the sqlite3 shell. WAL mode and a busy timeout let several iogauge
//! processes save at once; each record is saved in one transaction.
//!
//! A file that is not ours (another program's database, a corrupt file, any other file) is
//! refused with its name and never written to.

pub mod figures;
mod leftovers;
pub mod record;
mod schema;
mod shape;

use crate::error::{Error, Result};
use figures::Figures;
use record::Record;
use rusqlite::{params, Connection, OpenFlags, OptionalExtension, TransactionBehavior};
use std::path::{Path, PathBuf};
use std::time::Duration;

pub use schema::MIGRATIONS;

/// The database used when neither --db nor IOGAUGE_DB is given: results.db in iogauge's
/// folder of the user's data ($XDG_DATA_HOME, else ~/.local/share; %LOCALAPPDATA% on Windows).
pub fn default_path() -> Result<PathBuf> {
    let base = crate::os::data_home().map_err(|unset| {
        Error::usage(format!(
            "cannot find a place for the results database ({unset}); give one with --db or \
             IOGAUGE_DB, or use --no-save"
        ))
    })?;
    Ok(base.join("iogauge").join("results.db"))
}

/// One saved record as `results list` shows it: no document parsed.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Listed {
    pub id: i64,
    pub started_unix_ns: u64,
    pub kind: String,
    pub name: String,
    pub target: String,
    pub hostname: String,
    pub partial: bool,
    pub workload_key: String,
    pub tags: Vec<String>,
    pub passes: Vec<ListedPass>,
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct ListedPass {
    pub label: String,
    pub figures: Figures,
}

/// `results list`'s filters; all must match.
#[derive(Debug, Default)]
pub struct Filter {
    /// A part of the target path.
    pub target: Option<String>,
    /// A profile's name, or "run".
    pub name: Option<String>,
    pub tag: Option<String>,
    pub since_ns: Option<u64>,
    pub until_ns: Option<u64>,
    /// Newest first; `None`: all.
    pub limit: Option<usize>,
}

pub struct Store {
    conn: Connection,
    path: PathBuf,
    /// [`Store::verify`] passed.
    verified: std::cell::Cell<bool>,
}

impl Store {
    /// Open the database at `path`, creating it (and its folder) if there is no file there.
    pub fn open(path: &Path) -> Result<Store> {
        Self::open_upto(path, MIGRATIONS.len())
    }

    /// Open, applying migrations only up to `version`: for tests that make a database of an
    /// older schema and check that opening it with [`Store::open`] upgrades it.
    #[doc(hidden)]
    pub fn open_upto(path: &Path, version: usize) -> Result<Store> {
        leftovers::clear(path);
        match std::fs::metadata(path) {
            Ok(m) if m.is_dir() => {
                return Err(Error::usage(format!(
                    "results database '{}' is a folder; give a file with --db or IOGAUGE_DB",
                    path.display()
                )))
            }
            // iogauge never leaves an empty file behind (see create), so this is not one of
            // its databases: never adopt it.
            Ok(m) if m.len() == 0 => {
                return Err(Error::usage(format!(
                    "'{}' is an empty file, not an iogauge results database; it was left \
                     untouched (remove it, or give another file with --db or IOGAUGE_DB)",
                    path.display()
                )))
            }
            Ok(_) => check_header(path)?,
            Err(_) => create(path, version)?,
        }
        let store = Store::connect(path)?;
        store.setup(version)?;
        Ok(store)
    }

    /// Open the database at `path` to read it, never writing to it: a user who may only read
    /// the file (another user's database, a read-only mount) can list, show and compare. A
    /// missing file is made as by [`Store::open`]; a database of an older schema is upgraded
    /// where this user may write it, else refused in one line that says so.
    pub fn open_read(path: &Path) -> Result<Store> {
        match std::fs::metadata(path) {
            // Made, or refused (a folder, an empty file) in the same words as for a write.
            Err(_) => return Store::open(path),
            Ok(m) if m.is_dir() || m.len() == 0 => return Store::open(path),
            Ok(_) => {}
        }
        leftovers::clear(path);
        check_header(path)?;
        let inspected = |immutable| {
            let store = Store::connect_read(path, immutable)?;
            let version = store.inspect()?;
            Ok::<_, Error>((store, version))
        };
        let (store, version) = match inspected(false) {
            // A database in WAL mode is read through its -shm file, which a user who may not
            // write the folder cannot make: with no -wal file, the database file alone holds
            // every committed change, and is read as it is.
            Err(Error::Runtime(_)) if !companion(path, "-wal").exists() => inspected(true)?,
            r => r?,
        };
        if (version as usize) < MIGRATIONS.len() {
            if may_write(path) {
                drop(store);
                return Store::open(path);
            }
            return Err(Error::usage(format!(
                "results database '{}' has schema version {version}, older than this \
                 iogauge's ({}), and this user may not write it to upgrade it; it was left \
                 untouched (any iogauge results command run by its owner upgrades it)",
                path.display(),
                MIGRATIONS.len()
            )));
        }
        Ok(store)
    }

    /// A read-only connection; `immutable`: reading the file as it is, without SQLite's
    /// locks or its -shm file.
    fn connect_read(path: &Path, immutable: bool) -> Result<Store> {
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY
            | OpenFlags::SQLITE_OPEN_NO_MUTEX
            | OpenFlags::SQLITE_OPEN_URI;
        let mode = if immutable { "ro&immutable=1" } else { "ro" };
        let uri = format!("file:{}?mode={mode}", uri_path(path));
        let conn = Connection::open_with_flags(uri, flags).map_err(|e| db_error(path, &e))?;
        Ok(Store {
            conn,
            path: path.to_path_buf(),
            verified: std::cell::Cell::new(false),
        })
    }

    fn connect(path: &Path) -> Result<Store> {
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = Connection::open_with_flags(path, flags).map_err(|e| db_error(path, &e))?;
        Ok(Store {
            conn,
            path: path.to_path_buf(),
            verified: std::cell::Cell::new(false),
        })
    }

    /// Check the whole file with SQLite's quick_check before the first write: a database
    /// that fails it is refused and never written (once per process).
    pub fn verify(&self) -> Result<()> {
        if self.verified.get() {
            return Ok(());
        }
        let first: String = retry_busy(|| {
            self.conn
                .query_row("PRAGMA quick_check(1)", [], |r| r.get(0))
        })
        .map_err(|e| self.err(e))?;
        if first != "ok" {
            // SQLite's report spans lines ("*** in database main ***" first): keep one.
            let first: Vec<&str> = first.lines().filter(|l| !l.starts_with("***")).collect();
            let first = first.join("; ");
            return Err(Error::usage(format!(
                "results database '{}' is corrupt (SQLite's integrity check: {first}); it was \
                 left untouched (give another file with --db or IOGAUGE_DB)",
                self.path.display()
            )));
        }
        self.verified.set(true);
        Ok(())
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    fn err(&self, e: rusqlite::Error) -> Error {
        db_error(&self.path, &e)
    }

    fn setup(&self, version: usize) -> Result<()> {
        let user_version = self.inspect()?;
        let c = &self.conn;
        // WAL: readers never block the writer, and two writers wait for each other (busy
        // timeout) instead of failing. NORMAL is durable across process crashes in WAL mode.
        // Switching to WAL needs the file to itself, and SQLite answers "busy" at once, not
        // after the busy timeout, while another process has it open: so wait here. Only a
        // new database is switched; the mode then stays in the file.
        let mode: String = c
            .query_row("PRAGMA journal_mode", [], |r| r.get(0))
            .map_err(|e| self.err(e))?;
        if !mode.eq_ignore_ascii_case("wal") || (user_version as usize) < version {
            self.verify()?;
        }
        if !mode.eq_ignore_ascii_case("wal") {
            retry_busy(|| c.query_row("PRAGMA journal_mode = WAL", [], |_| Ok(())))
                .map_err(|e| self.err(e))?;
        }
        c.execute_batch("PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON;")
            .map_err(|e| self.err(e))?;
        if (user_version as usize) < version {
            self.migrate(version)?;
        }
        Ok(())
    }

    /// Check that the file is iogauge's, of a schema this build knows, and whole; its schema
    /// version. Reads only.
    fn inspect(&self) -> Result<i64> {
        let c = &self.conn;
        c.busy_timeout(Duration::from_secs(15))
            .map_err(|e| self.err(e))?;
        // Ownership first: nothing is written to a file that is not ours. The reads share
        // one read transaction: another process may be creating this database at this
        // moment, and separate reads could see it half before and half after its commit.
        let read = || -> rusqlite::Result<(i32, i64, Vec<String>)> {
            c.execute_batch("BEGIN")?;
            let app_id = c.query_row("PRAGMA application_id", [], |r| r.get(0))?;
            let user_version = c.query_row("PRAGMA user_version", [], |r| r.get(0))?;
            let tables = c
                .prepare("SELECT name FROM sqlite_master WHERE type = 'table'")?
                .query_map([], |r| r.get(0))?
                .collect::<rusqlite::Result<Vec<String>>>()?;
            c.execute_batch("COMMIT")?;
            Ok((app_id, user_version, tables))
        };
        let (app_id, user_version, tables) = retry_busy(|| {
            read().inspect_err(|_| {
                let _ = c.execute_batch("ROLLBACK");
            })
        })
        .map_err(|e| self.err(e))?;
        let p = self.path.display();
        if app_id != schema::APPLICATION_ID && (app_id != 0 || !tables.is_empty()) {
            return Err(Error::usage(format!(
                "'{p}' is an SQLite database of another program, not iogauge's results; it \
                 was left untouched (give another file with --db or IOGAUGE_DB)"
            )));
        }
        if user_version as usize > MIGRATIONS.len() {
            return Err(Error::usage(format!(
                "results database '{p}' has schema version {user_version}, newer than this \
                 iogauge knows ({}); upgrade iogauge or use another file with --db",
                MIGRATIONS.len()
            )));
        }
        // An iogauge file with no schema version and no tables is one whose making never
        // finished: it is made now (by `migrate`). One whose version promises tables it
        // lacks is damaged, and is never written to.
        let missing = schema::missing_tables(user_version.max(0) as usize, &tables);
        let unversioned = user_version == 0 && !tables.is_empty();
        if !missing.is_empty() || unversioned {
            let what = match missing.first() {
                Some(t) => format!("schema version {user_version} but no table '{t}'"),
                None => "tables but no schema version".to_string(),
            };
            return Err(Error::usage(format!(
                "results database '{p}' is damaged ({what}); it was left untouched (give \
                 another file with --db or IOGAUGE_DB)"
            )));
        }
        Ok(user_version)
    }

    fn migrate(&self, version: usize) -> Result<()> {
        let c = &self.conn;
        c.execute_batch("BEGIN IMMEDIATE")
            .map_err(|e| self.err(e))?;
        let run = || -> rusqlite::Result<()> {
            // Read again under the write lock: another process may have migrated meanwhile.
            let from: i64 = c.query_row("PRAGMA user_version", [], |r| r.get(0))?;
            for m in MIGRATIONS.iter().take(version).skip(from as usize) {
                c.execute_batch(m)?;
            }
            c.execute_batch(&format!(
                "PRAGMA application_id = {}; PRAGMA user_version = {};",
                schema::APPLICATION_ID,
                version.max(from as usize)
            ))?;
            Ok(())
        };
        match run() {
            Ok(()) => c.execute_batch("COMMIT").map_err(|e| self.err(e)),
            Err(e) => {
                let _ = c.execute_batch("ROLLBACK");
                Err(self.err(e))
            }
        }
    }

    /// Save a record and its tags in one transaction; returns its ID.
    pub fn save(&mut self, record: &Record, tags: &[String]) -> Result<i64> {
        self.verify()?;
        let path = self.path.clone();
        let e = |e: rusqlite::Error| db_error(&path, &e);
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(e)?;
        let id = insert_record(&tx, record, tags).map_err(e)?;
        tx.commit().map_err(e)?;
        Ok(id)
    }

    /// After a failed save (a full disk): give the space of the uncommitted WAL frames back,
    /// so that the JSON fallback next to the database has room.
    pub fn release_space(&self) {
        let _ = self
            .conn
            .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()));
    }

    pub fn list(&self, f: &Filter) -> Result<Vec<Listed>> {
        let mut sql = format!("SELECT {LISTED_COLUMNS} FROM runs r WHERE 1");
        let mut args: Vec<rusqlite::types::Value> = Vec::new();
        if let Some(t) = &f.target {
            sql.push_str(" AND instr(target, ?) > 0");
            args.push(t.clone().into());
        }
        if let Some(n) = &f.name {
            sql.push_str(" AND name = ?");
            args.push(n.clone().into());
        }
        if let Some(t) = &f.tag {
            sql.push_str(" AND EXISTS (SELECT 1 FROM tags WHERE run_id = r.id AND tag = ?)");
            args.push(t.clone().into());
        }
        if let Some(s) = f.since_ns {
            sql.push_str(" AND started_unix_ns >= ?");
            args.push((s as i64).into());
        }
        if let Some(u) = f.until_ns {
            sql.push_str(" AND started_unix_ns < ?");
            args.push((u as i64).into());
        }
        sql.push_str(" ORDER BY started_unix_ns DESC, id DESC");
        if let Some(l) = f.limit {
            // SQLite's LIMIT is a signed 64-bit number; more than that is all of them anyway.
            sql.push_str(&format!(" LIMIT {}", l.min(i64::MAX as usize)));
        }
        let mut stmt = self.conn.prepare(&sql).map_err(|e| self.err(e))?;
        let mut rows: Vec<Listed> = stmt
            .query_map(rusqlite::params_from_iter(args), listed_row)
            .and_then(|it| it.collect())
            .map_err(|e| self.err(e))?;
        self.fill(&mut rows)?;
        Ok(rows)
    }

    /// Passes and tags of listed runs, two queries for all of them.
    fn fill(&self, rows: &mut [Listed]) -> Result<()> {
        if rows.is_empty() {
            return Ok(());
        }
        let index: std::collections::HashMap<i64, usize> =
            rows.iter().enumerate().map(|(i, r)| (r.id, i)).collect();
        // A few rows: exactly their IDs. Many (a long listing): their ID range, one scan.
        let which = if rows.len() <= 200 {
            let ids: Vec<String> = rows.iter().map(|r| r.id.to_string()).collect();
            format!("run_id IN ({})", ids.join(","))
        } else {
            let lo = rows.iter().map(|r| r.id).min().unwrap_or(0);
            let hi = rows.iter().map(|r| r.id).max().unwrap_or(0);
            format!("run_id BETWEEN {lo} AND {hi}")
        };
        let mut stmt = self
            .conn
            .prepare(&format!(
                "SELECT run_id, label, iops, read_iops, write_iops, bps, read_bps, write_bps, \
                 lat_mean_ns, lat_p50_ns, lat_p99_ns, lat_p999_ns FROM passes \
                 WHERE {which} ORDER BY run_id, idx"
            ))
            .map_err(|e| self.err(e))?;
        let mut q = stmt.query([]).map_err(|e| self.err(e))?;
        while let Some(r) = q.next().map_err(|e| self.err(e))? {
            let id: i64 = r.get(0).map_err(|e| self.err(e))?;
            let Some(&i) = index.get(&id) else { continue };
            let p = (|| -> rusqlite::Result<ListedPass> {
                let u = |v: Option<i64>| v.map(|v| v as u64);
                Ok(ListedPass {
                    label: r.get(1)?,
                    figures: Figures {
                        iops: r.get(2)?,
                        read_iops: r.get(3)?,
                        write_iops: r.get(4)?,
                        bps: r.get(5)?,
                        read_bps: r.get(6)?,
                        write_bps: r.get(7)?,
                        lat_mean_ns: r.get(8)?,
                        lat_p50_ns: u(r.get(9)?),
                        lat_p99_ns: u(r.get(10)?),
                        lat_p999_ns: u(r.get(11)?),
                    },
                })
            })()
            .map_err(|e| self.err(e))?;
            rows[i].passes.push(p);
        }
        let mut stmt = self
            .conn
            .prepare(&format!(
                "SELECT run_id, tag FROM tags WHERE {which} ORDER BY run_id, tag"
            ))
            .map_err(|e| self.err(e))?;
        let mut q = stmt.query([]).map_err(|e| self.err(e))?;
        while let Some(r) = q.next().map_err(|e| self.err(e))? {
            let id: i64 = r.get(0).map_err(|e| self.err(e))?;
            if let Some(&i) = index.get(&id) {
                rows[i].tags.push(r.get(1).map_err(|e| self.err(e))?);
            }
        }
        Ok(())
    }

    /// One record: its listing and its full result. An unknown ID is a one-line usage error.
    pub fn load(&self, id: i64) -> Result<(Listed, Record)> {
        let doc: Option<String> = self
            .conn
            .query_row(
                "SELECT document FROM documents WHERE run_id = ?1",
                [id],
                |r| r.get(0),
            )
            .optional()
            .map_err(|e| self.err(e))?;
        let Some(doc) = doc else {
            return Err(self.unknown(id));
        };
        let record = Record::from_json(&doc, &format!("run {id} in {}", self.path.display()))?;
        let mut listed = self
            .conn
            .query_row(
                &format!("SELECT {LISTED_COLUMNS} FROM runs WHERE id = ?1"),
                [id],
                listed_row,
            )
            .map_err(|e| self.err(e))?;
        self.fill(std::slice::from_mut(&mut listed))?;
        Ok((listed, record))
    }

    fn unknown(&self, id: i64) -> Error {
        Error::usage(format!(
            "no run {id} in '{}' (iogauge results list shows the saved runs)",
            self.path.display()
        ))
    }

    /// Figures of the saved repeats of a workload (the 50 newest complete ones): the sample
    /// its run-to-run noise is estimated from.
    pub fn repeats(&self, workload_key: &str) -> Result<Vec<Listed>> {
        let mut stmt = self
            .conn
            .prepare(&format!(
                "SELECT {LISTED_COLUMNS} FROM runs WHERE workload_key = ?1 AND partial = 0 \
                     ORDER BY id DESC LIMIT 50"
            ))
            .map_err(|e| self.err(e))?;
        let mut rows: Vec<Listed> = stmt
            .query_map([workload_key], listed_row)
            .and_then(|it| it.collect())
            .map_err(|e| self.err(e))?;
        self.fill(&mut rows)?;
        Ok(rows)
    }

    pub fn delete(&mut self, id: i64) -> Result<()> {
        self.verify()?;
        let baseline: Option<String> = self
            .conn
            .query_row(
                "SELECT name FROM baselines WHERE run_id = ?1 LIMIT 1",
                [id],
                |r| r.get(0),
            )
            .optional()
            .map_err(|e| self.err(e))?;
        if let Some(name) = baseline {
            return Err(Error::usage(format!(
                "run {id} is baseline '{name}'; delete the baseline first (iogauge baseline \
                 delete {name})"
            )));
        }
        let n = self
            .conn
            .execute("DELETE FROM runs WHERE id = ?1", [id])
            .map_err(|e| self.err(e))?;
        if n == 0 {
            return Err(self.unknown(id));
        }
        Ok(())
    }

    /// Name a saved run as a baseline (replacing a baseline of that name).
    pub fn save_baseline(&mut self, name: &str, id: i64) -> Result<()> {
        self.verify()?;
        self.load(id)?;
        self.conn
            .execute(
                "INSERT INTO baselines (name, run_id, saved_unix_ns) VALUES (?1, ?2, ?3) \
                 ON CONFLICT (name) DO UPDATE SET run_id = excluded.run_id, \
                 saved_unix_ns = excluded.saved_unix_ns",
                params![name, id, crate::dates::now_unix_ns() as i64],
            )
            .map_err(|e| self.err(e))?;
        Ok(())
    }

    /// The run a baseline names; an unknown name is a one-line usage error.
    pub fn baseline(&self, name: &str) -> Result<i64> {
        self.conn
            .query_row(
                "SELECT run_id FROM baselines WHERE name = ?1",
                [name],
                |r| r.get(0),
            )
            .optional()
            .map_err(|e| self.err(e))?
            .ok_or_else(|| {
                Error::usage(format!(
                    "no baseline '{name}' in '{}' (iogauge baseline list shows them)",
                    self.path.display()
                ))
            })
    }

    /// (name, run ID, saved at).
    pub fn baselines(&self) -> Result<Vec<(String, i64, u64)>> {
        let mut stmt = self
            .conn
            .prepare("SELECT name, run_id, saved_unix_ns FROM baselines ORDER BY name")
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map([], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get::<_, i64>(2)? as u64))
            })
            .and_then(|it| it.collect())
            .map_err(|e| self.err(e))?;
        Ok(rows)
    }

    pub fn delete_baseline(&mut self, name: &str) -> Result<()> {
        self.verify()?;
        let n = self
            .conn
            .execute("DELETE FROM baselines WHERE name = ?1", [name])
            .map_err(|e| self.err(e))?;
        if n == 0 {
            return Err(Error::usage(format!(
                "no baseline '{name}' in '{}' (iogauge baseline list shows them)",
                self.path.display()
            )));
        }
        Ok(())
    }
}

/// The columns of `runs` that [`listed_row`] reads, in its order.
const LISTED_COLUMNS: &str =
    "id, started_unix_ns, kind, name, target, hostname, partial, workload_key";

fn listed_row(r: &rusqlite::Row) -> rusqlite::Result<Listed> {
    Ok(Listed {
        id: r.get(0)?,
        started_unix_ns: r.get::<_, i64>(1)? as u64,
        kind: r.get(2)?,
        name: r.get(3)?,
        target: r.get(4)?,
        hostname: r.get(5)?,
        partial: r.get(6)?,
        workload_key: r.get(7)?,
        tags: Vec::new(),
        passes: Vec::new(),
    })
}

/// Repeat `f` while SQLite says the database is busy or locked, for up to the busy timeout:
/// for the few operations SQLite does not retry itself.
fn retry_busy<T>(mut f: impl FnMut() -> rusqlite::Result<T>) -> rusqlite::Result<T> {
    use rusqlite::ErrorCode as C;
    let start = std::time::Instant::now();
    let mut pause = Duration::from_millis(2);
    loop {
        match f() {
            Err(e)
                if matches!(
                    e.sqlite_error_code(),
                    Some(C::DatabaseBusy | C::DatabaseLocked)
                ) && start.elapsed() < Duration::from_secs(15) =>
            {
                std::thread::sleep(pause);
                pause = (pause * 2).min(Duration::from_millis(50));
            }
            r => return r,
        }
    }
}

fn decode_base64(text: &str) -> Option<Vec<u8>> {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.decode(text).ok()
}

/// Make a new database at `path`, all at once: it is set up under a temporary name in the same
/// folder and linked into place only when complete, so no process ever sees an empty or
/// half-made file there (two creating it at once: one wins, the other opens the winner's).
fn create(path: &Path, version: usize) -> Result<()> {
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty());
    if let Some(dir) = dir {
        std::fs::create_dir_all(dir).map_err(|e| {
            Error::runtime(format!(
                "cannot create the folder of the results database '{}': {e}",
                path.display()
            ))
        })?;
    }
    let name = path.file_name().unwrap_or_default();
    let tmp = path.with_file_name(leftovers::temp_name(
        name,
        std::process::id(),
        crate::dates::now_unix_ns(),
    ));
    let made = (|| {
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = Connection::open_with_flags(&tmp, flags).map_err(|e| db_error(path, &e))?;
        let store = Store {
            conn,
            path: tmp.clone(),
            verified: std::cell::Cell::new(true),
        };
        store.setup(version)?;
        drop(store);
        match std::fs::hard_link(&tmp, path) {
            Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => {
                Err(Error::runtime(format!(
                    "cannot create the results database '{}': {e}",
                    path.display()
                )))
            }
            _ => Ok(()),
        }
    })();
    for leftover in ["", "-journal", "-wal", "-shm"] {
        let mut p = tmp.clone().into_os_string();
        p.push(leftover);
        let _ = std::fs::remove_file(p);
    }
    made
}

/// `path` with `suffix` after its name: SQLite's `-wal` and `-shm` files.
fn companion(path: &Path, suffix: &str) -> PathBuf {
    let mut p = path.as_os_str().to_owned();
    p.push(suffix);
    PathBuf::from(p)
}

/// Whether this user may write `path` and the folder it is in (SQLite makes its -wal and
/// -shm files there).
fn may_write(path: &Path) -> bool {
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty());
    [Some(path), dir.or(Some(Path::new(".")))]
        .into_iter()
        .flatten()
        .all(crate::os::file::may_write)
}

/// `path` as the path of an SQLite `file:` URI: every byte but letters, digits, `/`, `.`,
/// `-` and `_` percent-encoded (a `?` or `#` in a folder's name must stay part of the path).
fn uri_path(path: &Path) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    for &b in path.as_os_str().as_encoded_bytes() {
        if b.is_ascii_alphanumeric() || b"/.-_".contains(&b) {
            out.push(b as char);
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    out
}

/// SQLite's first 16 bytes. Anything else is not a database, and is left alone.
fn check_header(path: &Path) -> Result<()> {
    use std::io::Read;
    let mut head = [0u8; 16];
    let n = std::fs::File::open(path)
        .and_then(|mut f| f.read(&mut head))
        .map_err(|e| {
            Error::runtime(format!(
                "cannot read the results database '{}': {e}",
                path.display()
            ))
        })?;
    if n < 16 || &head != b"SQLite format 3\0" {
        return Err(Error::usage(format!(
            "'{}' is not an iogauge results database (not an SQLite file); it was left \
             untouched (give another file with --db or IOGAUGE_DB)",
            path.display()
        )));
    }
    Ok(())
}

/// An SQLite error as one line naming the database file.
/// A record's rows: the run, its document, its fs times, passes, histograms, series and tags.
fn insert_record(
    tx: &rusqlite::Transaction,
    record: &Record,
    tags: &[String],
) -> rusqlite::Result<i64> {
    tx.execute(
        "INSERT INTO runs (started_unix_ns, saved_unix_ns, kind, name, target, hostname, \
         tool_version, partial, command_line, workload_key) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
        params![
            record.started_unix_ns() as i64,
            crate::dates::now_unix_ns() as i64,
            record.kind(),
            record.name(),
            record.target(),
            record.hostname(),
            record.tool_version(),
            record.partial(),
            record.command_line(),
            record.workload_key(),
        ],
    )?;
    let id = tx.last_insert_rowid();
    tx.execute(
        "INSERT INTO documents (run_id, document) VALUES (?1, ?2)",
        params![
            id,
            serde_json::to_string(record).expect("results serialize")
        ],
    )?;
    if let Record::Fs(fs) = record {
        insert_fs_times(tx, id, fs)?;
    }
    for (idx, pass) in record.passes().iter().enumerate() {
        insert_pass(tx, id, idx as i64, &pass.label, pass.result)?;
    }
    if !tags.is_empty() {
        let mut tag_stmt =
            tx.prepare("INSERT OR IGNORE INTO tags (run_id, tag) VALUES (?1, ?2)")?;
        for t in tags {
            tag_stmt.execute(params![id, t])?;
        }
    }
    Ok(id)
}

/// Each timed repetition of each test on each file system.
fn insert_fs_times(
    tx: &rusqlite::Transaction,
    id: i64,
    fs: &crate::result::fs::FsResult,
) -> rusqlite::Result<()> {
    let mut stmt = tx.prepare_cached(
        "INSERT INTO fs_times (run_id, test, filesystem, folder, repetition, ops, \
         elapsed_ns) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    )?;
    for t in &fs.tests {
        for (c, target) in t.cells.iter().zip(&fs.filesystems) {
            for (i, ns) in c.elapsed_ns.iter().enumerate() {
                stmt.execute(params![
                    id,
                    t.name,
                    target.label,
                    target.dir,
                    i as i64 + 1,
                    c.ops as i64,
                    *ns as i64
                ])?;
            }
        }
    }
    Ok(())
}

/// A pass's headline figures, its latency histograms and its time series.
fn insert_pass(
    tx: &rusqlite::Transaction,
    id: i64,
    idx: i64,
    label: &str,
    r: &crate::result::RunResult,
) -> rusqlite::Result<()> {
    let f = Figures::of(r);
    tx.prepare_cached(
        "INSERT INTO passes (run_id, idx, label, mode, measured_ns, iops, read_iops, \
         write_iops, bps, read_bps, write_bps, lat_mean_ns, lat_p50_ns, lat_p99_ns, \
         lat_p999_ns) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)",
    )?
    .execute(params![
        id,
        idx,
        label,
        if r.job.latency { "latency" } else { "iops" },
        r.measured_ns as i64,
        f.iops,
        f.read_iops,
        f.write_iops,
        f.bps,
        f.read_bps,
        f.write_bps,
        f.lat_mean_ns,
        f.lat_p50_ns.map(|v| v as i64),
        f.lat_p99_ns.map(|v| v as i64),
        f.lat_p999_ns.map(|v| v as i64),
    ])?;
    let mut hist_stmt = tx.prepare_cached(
        "INSERT INTO histograms (run_id, pass_idx, dir, kind, data) \
         VALUES (?1, ?2, ?3, ?4, ?5)",
    )?;
    for (dir, d) in [
        ("read", &r.total.read),
        ("write", &r.total.write),
        ("all", &r.total.all),
    ] {
        for (kind, h) in [
            ("completion", &d.latency_histogram),
            ("total", &d.latency_total_histogram),
        ] {
            if let Some(blob) = h.as_deref().and_then(decode_base64) {
                hist_stmt.execute(params![id, idx, dir, kind, blob])?;
            }
        }
    }
    let mut series_stmt = tx.prepare_cached(
        "INSERT INTO series (run_id, pass_idx, start_ns, duration_ns, read_ios, \
         read_bytes, write_ios, write_bytes, read_lat_mean_ns, read_lat_p99_ns, \
         write_lat_mean_ns, write_lat_p99_ns) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
    )?;
    let opt = |v: Option<u64>| v.map(|v| v as i64);
    for s in &r.time_series.samples {
        series_stmt.execute(params![
            id,
            idx,
            s.start_ns as i64,
            s.duration_ns as i64,
            s.read.ios as i64,
            s.read.bytes as i64,
            s.write.ios as i64,
            s.write.bytes as i64,
            opt(s.read.latency_mean_ns),
            opt(s.read.latency_p99_ns),
            opt(s.write.latency_mean_ns),
            opt(s.write.latency_p99_ns),
        ])?;
    }
    Ok(())
}

fn db_error(path: &Path, e: &rusqlite::Error) -> Error {
    use rusqlite::ErrorCode as C;
    let p = path.display();
    match e.sqlite_error_code() {
        Some(C::DatabaseCorrupt) | Some(C::NotADatabase) => Error::usage(format!(
            "results database '{p}' is corrupt ({e}); it was left untouched (give another \
             file with --db or IOGAUGE_DB)"
        )),
        Some(C::DiskFull) => Error::runtime(format!("results database '{p}': the disk is full")),
        Some(C::DatabaseBusy) | Some(C::DatabaseLocked) => Error::runtime(format!(
            "results database '{p}' is locked by another process ({e})"
        )),
        Some(C::ReadOnly) | Some(C::CannotOpen) | Some(C::PermissionDenied) => {
            Error::runtime(format!("cannot write the results database '{p}': {e}"))
        }
        _ => Error::runtime(format!("results database '{p}': {e}")),
    }
}
