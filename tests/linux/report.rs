//! The HTML report in a real browser: headless Chromium, driven over the DevTools protocol,
//! opens the report, and the test checks that it loaded with no console errors and no network
//! requests, and that every chart rendered; a full-page screenshot is kept in
//! target/test-artifacts/ for people to look at. Without chromium the test says SKIPPED
//! (scripts/install-test-tools.sh installs it).

use crate::common;
use common::*;
use serde_json::{json, Value};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

fn artifacts() -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .unwrap()
        .join("test-artifacts");
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn chromium() -> Option<&'static str> {
    ["chromium", "chromium-browser", "google-chrome"]
        .into_iter()
        .find(|c| {
            Command::new("sh")
                .args(["-c", &format!("command -v {c}")])
                .output()
                .is_ok_and(|o| o.status.success())
        })
}

/// A headless browser and one DevTools connection to its page.
struct Browser {
    child: Child,
    ws: tungstenite::WebSocket<tungstenite::stream::MaybeTlsStream<TcpStream>>,
    next_id: u64,
    events: Vec<Value>,
    _profile: tempfile::TempDir,
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn http_get(port: u16, path: &str) -> Result<String, String> {
    let mut s = TcpStream::connect(("127.0.0.1", port)).map_err(|e| e.to_string())?;
    s.set_read_timeout(Some(Duration::from_secs(5)))
        .map_err(|e| e.to_string())?;
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n"
    )
    .map_err(|e| e.to_string())?;
    // Read the headers, then exactly Content-Length bytes: the server may keep the
    // connection open whatever the request asked.
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        let n = s.read(&mut chunk).map_err(|e| e.to_string())?;
        if n == 0 {
            break;
        }
        buf.extend_from_slice(&chunk[..n]);
        let text = String::from_utf8_lossy(&buf).into_owned();
        if let Some((head, body)) = text.split_once("\r\n\r\n") {
            let len = head
                .lines()
                .find_map(|l| {
                    let (k, v) = l.split_once(':')?;
                    k.eq_ignore_ascii_case("content-length")
                        .then(|| v.trim().parse::<usize>().ok())?
                })
                .unwrap_or(usize::MAX);
            if body.len() >= len {
                return Ok(body[..len].to_string());
            }
        }
    }
    let text = String::from_utf8_lossy(&buf).into_owned();
    Ok(text
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_string())
        .unwrap_or_default())
}

impl Browser {
    fn start(exe: &str) -> Result<Browser, String> {
        let profile = tempfile::tempdir().unwrap();
        let child = Command::new(exe)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--no-first-run",
                "--disable-extensions",
                "--remote-debugging-port=0",
            ])
            .arg(format!("--user-data-dir={}", p(profile.path())))
            .arg("about:blank")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start {exe}: {e}"))?;
        // Chromium writes the port it listens on into the profile folder.
        let port_file = profile.path().join("DevToolsActivePort");
        let start = Instant::now();
        let port: u16 = loop {
            if let Some(port) = std::fs::read_to_string(&port_file)
                .ok()
                .and_then(|t| t.lines().next().and_then(|l| l.trim().parse().ok()))
            {
                break port;
            }
            if start.elapsed() > Duration::from_secs(60) {
                return Err(format!("{exe} did not open its DevTools port in 60 s"));
            }
            std::thread::sleep(Duration::from_millis(100));
        };
        let pages: Value = loop {
            if let Ok(v) = http_get(port, "/json/list")
                .and_then(|b| serde_json::from_str::<Value>(&b).map_err(|e| e.to_string()))
            {
                if v.as_array()
                    .is_some_and(|a| a.iter().any(|t| t["type"] == "page"))
                {
                    break v;
                }
            }
            if start.elapsed() > Duration::from_secs(60) {
                return Err(format!("{exe} has no page target"));
            }
            std::thread::sleep(Duration::from_millis(100));
        };
        let url = pages
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["type"] == "page")
            .and_then(|t| t["webSocketDebuggerUrl"].as_str())
            .ok_or("no webSocketDebuggerUrl")?
            .to_string();
        let (ws, _) = tungstenite::connect(url.as_str()).map_err(|e| e.to_string())?;
        if let tungstenite::stream::MaybeTlsStream::Plain(s) = ws.get_ref() {
            s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
        }
        Ok(Browser {
            child,
            ws,
            next_id: 0,
            events: Vec::new(),
            _profile: profile,
        })
    }

    fn read(&mut self) -> Value {
        loop {
            let msg = self.ws.read().expect("a DevTools message within 60 s");
            if let tungstenite::Message::Text(t) = msg {
                return serde_json::from_str(t.as_str()).unwrap();
            }
        }
    }

    fn call(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        let msg = json!({"id": id, "method": method, "params": params}).to_string();
        self.ws
            .send(tungstenite::Message::Text(msg.into()))
            .unwrap();
        loop {
            let v = self.read();
            if v["id"] == id {
                assert!(v.get("error").is_none(), "{method}: {v}");
                return v["result"].clone();
            }
            self.events.push(v);
        }
    }

    fn wait_event(&mut self, name: &str) {
        if self.events.iter().any(|e| e["method"] == name) {
            return;
        }
        loop {
            let v = self.read();
            let done = v["method"] == name;
            self.events.push(v);
            if done {
                return;
            }
        }
    }
}

/// Open `html` and check it; returns the screenshot's path.
fn check_in_browser(exe: &str, html: &Path, charts: usize, shot: &str) -> Result<String, String> {
    let mut b = Browser::start(exe)?;
    for m in [
        "Runtime.enable",
        "Log.enable",
        "Network.enable",
        "Page.enable",
    ] {
        b.call(m, json!({}));
    }
    b.call(
        "Emulation.setDeviceMetricsOverride",
        json!({"width": 1280, "height": 1000, "deviceScaleFactor": 1, "mobile": false}),
    );
    let url = format!("file://{}", html.display());
    b.call("Page.navigate", json!({ "url": url }));
    b.wait_event("Page.loadEventFired");
    let js = "JSON.stringify({
        title: document.title,
        tables: document.querySelectorAll('table').length,
        scripts: document.querySelectorAll('script').length,
        charts: Array.from(document.querySelectorAll('figure.chart')).map(f => {
            const s = f.querySelector('svg');
            const r = s ? s.getBoundingClientRect() : {width: 0, height: 0};
            return {id: f.id, w: r.width, h: r.height,
                    marks: s ? s.querySelectorAll('path, polyline, line, rect').length : 0,
                    texts: s ? Array.from(s.querySelectorAll('text'))
                        .filter(t => t.getBBox().width > 0).length : 0};
        })})";
    let r = b.call(
        "Runtime.evaluate",
        json!({"expression": js, "returnByValue": true}),
    );
    let page: Value = serde_json::from_str(r["result"]["value"].as_str().unwrap()).unwrap();
    // Errors the page caused, and any request that left the file.
    let problems: Vec<String> = b
        .events
        .iter()
        .filter_map(|e| match e["method"].as_str()? {
            "Runtime.exceptionThrown" => Some(format!("exception: {}", e["params"])),
            "Runtime.consoleAPICalled"
                if matches!(e["params"]["type"].as_str(), Some("error" | "assert")) =>
            {
                Some(format!("console error: {}", e["params"]["args"]))
            }
            "Log.entryAdded" if e["params"]["entry"]["level"] == "error" => {
                Some(format!("log error: {}", e["params"]["entry"]["text"]))
            }
            "Network.requestWillBeSent" => {
                let u = e["params"]["request"]["url"].as_str().unwrap_or("");
                (!u.starts_with("file:") && !u.starts_with("data:"))
                    .then(|| format!("network request: {u}"))
            }
            _ => None,
        })
        .collect();
    // The screenshot first, so that a failure can be looked at.
    let m = b.call("Page.getLayoutMetrics", json!({}));
    let (w, h) = (
        m["cssContentSize"]["width"].as_f64().unwrap(),
        m["cssContentSize"]["height"].as_f64().unwrap(),
    );
    let s = b.call(
        "Page.captureScreenshot",
        json!({"format": "png", "captureBeyondViewport": true,
               "clip": {"x": 0, "y": 0, "width": w, "height": h, "scale": 1}}),
    );
    use base64::Engine;
    let png = base64::engine::general_purpose::STANDARD
        .decode(s["data"].as_str().unwrap())
        .unwrap();
    let shot_path = artifacts().join(shot);
    std::fs::write(&shot_path, &png).unwrap();
    assert!(problems.is_empty(), "{problems:#?}");
    assert!(page["title"]
        .as_str()
        .unwrap()
        .starts_with("iogauge report"));
    assert_eq!(page["scripts"], 0, "no scripts in the report");
    assert!(page["tables"].as_u64().unwrap() >= 2, "{page}");
    let list = page["charts"].as_array().unwrap();
    assert_eq!(list.len(), charts, "{page}");
    for c in list {
        assert!(
            c["w"].as_f64().unwrap() > 300.0 && c["h"].as_f64().unwrap() > 100.0,
            "chart not laid out: {c}"
        );
        assert!(
            c["marks"].as_u64().unwrap() > 10,
            "chart without marks: {c}"
        );
        assert!(
            c["texts"].as_u64().unwrap() > 5,
            "chart without labels: {c}"
        );
    }
    Ok(format!("{} ({}x{} px)", shot_path.display(), w, h))
}

fn html_report_renders_in_chromium() -> Outcome {
    let Some(exe) = chromium() else {
        return Outcome::Skip("chromium is not installed (scripts/install-test-tools.sh)".into());
    };
    let d = work_dir();
    let db = d.path().join("results.db");
    let f = d.path().join("f.dat");
    // Three latency-mode runs: a workload twice (so compare knows its noise) and a slower one.
    let mut ids = Vec::new();
    for delay in ["fixed:200us", "fixed:200us", "lognormal:400us:0.6"] {
        let o = db_cmd(
            &db,
            &[
                "run",
                "-c",
                "8M",
                "-d",
                "3",
                "-W",
                "0",
                "-L",
                "-o",
                "2",
                "--interval",
                "250",
                "--engine",
                "delay",
                "--delay",
                delay,
                p(&f),
            ],
        );
        ids.push(saved_id(&o).to_string());
    }
    let html = d.path().join("compare.html");
    let md = d.path().join("compare.md");
    let pngs = d.path().join("png");
    let mut args = vec!["report"];
    args.extend(ids.iter().map(String::as_str));
    args.extend(["--html", p(&html), "--markdown", p(&md), "--png", p(&pngs)]);
    let o = db_cmd(&db, &args);
    if !o.status.success() {
        return Outcome::Fail(stderr(&o));
    }
    let text = std::fs::read_to_string(&html).unwrap();
    for bad in ["<script", "src=\"http", "href=\"http", "url(http"] {
        if text.contains(bad) {
            return Outcome::Fail(format!("the report is not self-contained: {bad}"));
        }
    }
    let m = std::fs::read_to_string(&md).unwrap();
    if !m.contains("| run | pass |") || !(m.contains("beyond noise") || m.contains("within noise"))
    {
        return Outcome::Fail(format!("markdown lacks the tables: {m}"));
    }
    let files: Vec<_> = std::fs::read_dir(&pngs).unwrap().collect();
    for f in &files {
        let bytes = std::fs::read(f.as_ref().unwrap().path()).unwrap();
        if !bytes.starts_with(b"\x89PNG\r\n\x1a\n") || bytes.len() < 5000 {
            return Outcome::Fail(format!("not a PNG chart: {:?}", f));
        }
    }
    // One workload: IOPS, throughput, latency over time, percentiles, histogram.
    if files.len() != 5 {
        return Outcome::Fail(format!("{} PNG charts, expected 5", files.len()));
    }
    let first = match check_in_browser(exe, &html, 5, "report-compare.png") {
        Ok(s) => s,
        Err(e) => return Outcome::Skip(format!("chromium could not be driven: {e}")),
    };
    // A whole profile: 4 IOPS-mode passes (2 charts each) and 2 latency passes (5 each).
    let o = db_cmd(
        &db,
        &["quick", p(d.path()), "--size", "16M", "-d", "1", "-q"],
    );
    if !o.status.success() {
        return Outcome::Fail(stderr(&o));
    }
    let list = db_cmd(
        &db,
        &["results", "list", "--profile", "quick", "--output", "json"],
    );
    let rows: Value = serde_json::from_slice(&list.stdout).unwrap();
    let id = rows[0]["id"].to_string();
    let html2 = d.path().join("quick.html");
    let o = db_cmd(&db, &["report", &id, "--html", p(&html2)]);
    if !o.status.success() {
        return Outcome::Fail(stderr(&o));
    }
    let second = match check_in_browser(exe, &html2, 18, "report-quick.png") {
        Ok(s) => s,
        Err(e) => return Outcome::Skip(format!("chromium could not be driven: {e}")),
    };
    // The file-system suite on two folders: a "File tests" and a "Read/write tests" chart of
    // grouped bars, and its tables.
    let shm = tempfile::tempdir_in("/dev/shm").unwrap();
    let o = db_cmd(
        &db,
        &[
            "fs",
            &format!("disk={}", p(d.path())),
            &format!("shm={}", p(shm.path())),
            "--files",
            "200",
            "--file-size",
            "64K",
            "--repeat",
            "2",
        ],
    );
    if !o.status.success() {
        return Outcome::Fail(stderr(&o));
    }
    let id = saved_id(&o).to_string();
    let html3 = d.path().join("fs.html");
    let pngs = d.path().join("fs-png");
    let o = db_cmd(
        &db,
        &["report", &id, "--html", p(&html3), "--png", p(&pngs)],
    );
    if !o.status.success() {
        return Outcome::Fail(stderr(&o));
    }
    let html = std::fs::read_to_string(&html3).unwrap();
    for want in [
        "File tests",
        "Read/write tests",
        "file_list_single",
        "shm",
        "Fastest of 2",
    ] {
        if !html.contains(want) {
            return Outcome::Fail(format!("fs report lacks {want:?}"));
        }
    }
    let files = std::fs::read_dir(&pngs).unwrap().count();
    if files != 2 {
        return Outcome::Fail(format!("{files} PNG charts of the fs result, expected 2"));
    }
    let third = match check_in_browser(exe, &html3, 2, "report-fs.png") {
        Ok(s) => s,
        Err(e) => return Outcome::Skip(format!("chromium could not be driven: {e}")),
    };
    Outcome::Pass(format!("screenshots: {first}; {second}; {third}"))
}

/// Two workloads of the same script, one writing to the work disk and one to tmpfs, in one
/// report: the bars and table comparing their steps, then each record's steps with a chart of
/// each step that lasted more than one interval, its phases as bands. `compare` shows the same
/// steps side by side, and refuses to mix a workload with a run.
fn workload_report_renders_in_chromium() -> Outcome {
    let Some(exe) = chromium() else {
        return Outcome::Skip("chromium is not installed (scripts/install-test-tools.sh)".into());
    };
    let d = work_dir();
    let db = d.path().join("results.db");
    let ds = d.path().join("ds");
    let o = bin()
        .args(["dataset", "create", p(&ds), "--files", "1500"])
        .args(["--size-dist", "lognormal:32K:1.0"])
        .output()
        .unwrap();
    if !o.status.success() {
        return Outcome::Fail(stderr(&o));
    }
    let shm = tempfile::tempdir_in("/dev/shm").unwrap();
    let mut ids = Vec::new();
    for target in [d.path().join("out"), shm.path().join("out")] {
        let steps = "copy, archive format=zip, extract, scan, delete";
        let o = db_cmd(
            &db,
            &[
                "workload",
                "mixed",
                "--steps",
                steps,
                "--source",
                p(&ds),
                "--target",
                p(&target),
                "--repeat",
                "2",
                "--interval",
                "20",
            ],
        );
        if !o.status.success() {
            return Outcome::Fail(stderr(&o));
        }
        ids.push(saved_id(&o).to_string());
    }
    let html = d.path().join("workloads.html");
    let md = d.path().join("workloads.md");
    let pngs = d.path().join("workloads-png");
    let (a, b) = (&ids[0], &ids[1]);
    let o = db_cmd(
        &db,
        &[
            "report",
            a,
            b,
            "--html",
            p(&html),
            "--markdown",
            p(&md),
            "--png",
            p(&pngs),
        ],
    );
    if !o.status.success() {
        return Outcome::Fail(stderr(&o));
    }
    let text = std::fs::read_to_string(&html).unwrap();
    for bad in ["<script", "src=\"http", "href=\"http", "url(http"] {
        if text.contains(bad) {
            return Outcome::Fail(format!("the report is not self-contained: {bad}"));
        }
    }
    for want in [
        format!("<h2>Workloads compared with #{a}</h2>"),
        "id=\"workloads-compared\"".to_string(),
        format!("<h2>#{a} mixed: workload mixed</h2>"),
        format!("<h2>#{b} mixed: workload mixed</h2>"),
        format!("id=\"wl{a}-step2-archive\""),
        format!("id=\"wl{b}-step2-archive\""),
        "<h3>1. copy (".to_string(),
        "<h3>5. delete (".to_string(),
        "the fastest of 2".to_string(),
        "cache at the start".to_string(),
        "zip level 6: ".to_string(),
        "<td>MB/s written</td>".to_string(),
    ] {
        if !text.contains(&want) {
            return Outcome::Fail(format!("the workload report lacks {want:?}"));
        }
    }
    // The same script on the same source: nothing differs but where it wrote.
    if text.contains("Where they differ") {
        return Outcome::Fail("the same steps were said to differ".into());
    }
    let m = std::fs::read_to_string(&md).unwrap();
    if !m.contains(&format!("### Workloads compared with #{a}")) || !m.contains("| step | figure |")
    {
        return Outcome::Fail(format!("markdown lacks the comparison: {m}"));
    }
    // A chart per step longer than one interval (a scan may be over within one), and the bars:
    // the archive steps compress for longer than an interval on any machine.
    let files: Vec<_> = std::fs::read_dir(&pngs).unwrap().collect();
    for f in &files {
        let bytes = std::fs::read(f.as_ref().unwrap().path()).unwrap();
        if !bytes.starts_with(b"\x89PNG\r\n\x1a\n") || bytes.len() < 5000 {
            return Outcome::Fail(format!("not a PNG chart: {f:?}"));
        }
    }
    if files.len() < 3 {
        return Outcome::Fail(format!("{} PNG charts, expected at least 3", files.len()));
    }
    let o = db_cmd(&db, &["compare", a, b]);
    let table = String::from_utf8_lossy(&o.stdout);
    if !o.status.success()
        || !table.contains("1. copy (")
        || !table.contains("MB/s written")
        || !table.contains("entries/s")
    {
        return Outcome::Fail(format!("compare: {table}{}", stderr(&o)));
    }
    let f = d.path().join("f.dat");
    let o = db_cmd(
        &db,
        &[
            "run",
            "-c",
            "1M",
            "-d",
            "0.2",
            "-W",
            "0",
            "--engine",
            "delay",
            "--delay",
            "fixed:10us",
            p(&f),
        ],
    );
    let run = saved_id(&o).to_string();
    let o = db_cmd(&db, &["compare", a, &run]);
    let e = stderr(&o);
    let refusal = format!(
        "run {run} is not a workload: compare takes workloads (iogauge workload) only with each \
         other"
    );
    if o.status.code() != Some(2) || !e.contains(&refusal) {
        return Outcome::Fail(format!("a workload compared with a run: {e}"));
    }
    match check_in_browser(exe, &html, files.len(), "report-workload.png") {
        Ok(s) => Outcome::Pass(format!("screenshot: {s}")),
        Err(e) => Outcome::Skip(format!("chromium could not be driven: {e}")),
    }
}

fn report_needs_an_output_and_known_ids() -> Outcome {
    let d = work_dir();
    let db = d.path().join("results.db");
    let o = db_cmd(&db, &["report", "1"]);
    if o.status.code() != Some(2) || !stderr(&o).contains("--html") {
        return Outcome::Fail(format!("no output: {}", stderr(&o)));
    }
    let o = db_cmd(&db, &["report", "7", "--html", p(&d.path().join("x.html"))]);
    let e = stderr(&o);
    if o.status.code() != Some(2) || e.lines().count() != 1 || !e.contains("no run 7") {
        return Outcome::Fail(format!("unknown id: {e}"));
    }
    Outcome::Pass(String::new())
}

pub fn main() {
    harness(
        "report",
        vec![
            (
                "html_report_renders_in_chromium".into(),
                Box::new(html_report_renders_in_chromium),
            ),
            (
                "workload_report_renders_in_chromium".into(),
                Box::new(workload_report_renders_in_chromium),
            ),
            (
                "report_needs_an_output_and_known_ids".into(),
                Box::new(report_needs_an_output_and_known_ids),
            ),
        ],
    );
}
