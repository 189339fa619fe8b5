//! The results database's schema, as numbered migrations. `PRAGMA user_version` holds how
//! many have been applied; opening a database applies the rest in one transaction. Never edit
//! a migration that has shipped: add the next one.

/// Marks the file as ours (`PRAGMA application_id`), "ioga": a database of another program is
/// refused rather than written to.
pub const APPLICATION_ID: i32 = 0x696f_6761;

pub const MIGRATIONS: &[&str] = &[
    // 1: runs, their passes, histograms and time series.
    "
    CREATE TABLE runs (
        id              INTEGER PRIMARY KEY,
        started_unix_ns INTEGER NOT NULL,
        saved_unix_ns   INTEGER NOT NULL,
        kind            TEXT NOT NULL,      -- run | profile | fs
        name            TEXT NOT NULL,      -- the profile's name, or 'run'
        target          TEXT NOT NULL,
        hostname        TEXT NOT NULL,
        tool_version    TEXT NOT NULL,
        partial         INTEGER NOT NULL,
        command_line    TEXT NOT NULL,
        workload_key    TEXT NOT NULL       -- equal for repeats of one workload
    );
    CREATE INDEX runs_started ON runs (started_unix_ns);
    CREATE INDEX runs_workload ON runs (workload_key);
    -- Apart from runs, so that listing reads small rows, not a megabyte of JSON per run.
    CREATE TABLE documents (
        run_id   INTEGER PRIMARY KEY REFERENCES runs (id) ON DELETE CASCADE,
        document TEXT NOT NULL              -- the JSON result, exactly as --output json writes it
    );
    CREATE TABLE passes (
        run_id      INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
        idx         INTEGER NOT NULL,
        label       TEXT NOT NULL,
        mode        TEXT NOT NULL,          -- iops | latency
        measured_ns INTEGER NOT NULL,
        iops        REAL NOT NULL,
        read_iops   REAL NOT NULL,
        write_iops  REAL NOT NULL,
        bps         REAL NOT NULL,
        read_bps    REAL NOT NULL,
        write_bps   REAL NOT NULL,
        lat_mean_ns REAL,                   -- completion latency, null in IOPS mode
        lat_p50_ns  INTEGER,
        lat_p99_ns  INTEGER,
        lat_p999_ns INTEGER,                -- (the job itself is in the document)
        PRIMARY KEY (run_id, idx)
    ) WITHOUT ROWID;
    CREATE TABLE histograms (
        run_id   INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
        pass_idx INTEGER NOT NULL,
        dir      TEXT NOT NULL,             -- read | write | all
        kind     TEXT NOT NULL,             -- completion | total
        data     BLOB NOT NULL,             -- HdrHistogram V2, deflated
        PRIMARY KEY (run_id, pass_idx, dir, kind)
    ) WITHOUT ROWID;
    CREATE TABLE series (
        run_id            INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
        pass_idx          INTEGER NOT NULL,
        start_ns          INTEGER NOT NULL,
        duration_ns       INTEGER NOT NULL,
        read_ios          INTEGER NOT NULL,
        read_bytes        INTEGER NOT NULL,
        write_ios         INTEGER NOT NULL,
        write_bytes       INTEGER NOT NULL,
        read_lat_mean_ns  INTEGER,
        read_lat_p99_ns   INTEGER,
        write_lat_mean_ns INTEGER,
        write_lat_p99_ns  INTEGER,
        PRIMARY KEY (run_id, pass_idx, start_ns)
    ) WITHOUT ROWID;
    ",
    // 2: tags and baselines.
    "
    CREATE TABLE tags (
        run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
        tag    TEXT NOT NULL,
        PRIMARY KEY (run_id, tag)
    ) WITHOUT ROWID;
    CREATE INDEX tags_tag ON tags (tag);
    CREATE TABLE baselines (
        name          TEXT PRIMARY KEY,
        run_id        INTEGER NOT NULL REFERENCES runs (id),  -- no cascade: deleting it is refused
        saved_unix_ns INTEGER NOT NULL
    );
    ",
    // 3: the file-system suite's times, one row per repetition, for SQL over `iogauge fs`.
    "
    CREATE TABLE fs_times (
        run_id     INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
        test       TEXT NOT NULL,           -- file_create, rdwr_cc_read_page...
        filesystem TEXT NOT NULL,           -- its label in the report
        folder     TEXT NOT NULL,
        repetition INTEGER NOT NULL,        -- 1, 2...
        ops        INTEGER NOT NULL,
        elapsed_ns INTEGER NOT NULL,
        PRIMARY KEY (run_id, test, filesystem, repetition)
    ) WITHOUT ROWID;
    ",
];

/// The tables the first `version` migrations make that `present` lacks, in their order.
pub fn missing_tables(version: usize, present: &[String]) -> Vec<String> {
    MIGRATIONS
        .iter()
        .take(version)
        .flat_map(|m| m.split("CREATE TABLE ").skip(1))
        .filter_map(|rest| rest.split_whitespace().next())
        .filter(|t| !present.iter().any(|p| p == t))
        .map(str::to_string)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tables_of_each_version_are_read_from_its_migrations() {
        assert_eq!(missing_tables(0, &[]), Vec::<String>::new());
        assert_eq!(
            missing_tables(1, &[]),
            ["runs", "documents", "passes", "histograms", "series"]
        );
        let present: Vec<String> = ["runs", "documents", "passes", "histograms", "series"]
            .map(String::from)
            .to_vec();
        assert!(missing_tables(1, &present).is_empty());
        assert_eq!(
            missing_tables(3, &present),
            ["tags", "baselines", "fs_times"]
        );
    }
}
