//! Live progress on a terminal: a bar with elapsed and remaining time and the current IOPS,
//! MB/s and latency, drawn by indicatif on stderr a few times a second. Off when stderr is not
//! a terminal or with --quiet, so pipes and files only ever get the report.

use crate::runner::{Live, LivePhase, Observer};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::time::Instant;

pub struct Progress {
    bar: Option<ProgressBar>,
    prefix: String,
    last: Option<(Instant, Live)>,
}

impl Progress {
    /// A progress display, or a silent one when `quiet` or stderr is not a terminal.
    pub fn new(quiet: bool) -> Self {
        Progress {
            bar: None,
            prefix: String::new(),
            last: None,
        }
        .enabled(!quiet && std::io::stderr().is_terminal())
    }

    fn enabled(mut self, on: bool) -> Self {
        if on {
            self.bar = Some(Self::make_bar());
        }
        self
    }

    fn make_bar() -> ProgressBar {
        let bar = ProgressBar::with_draw_target(Some(1000), ProgressDrawTarget::stderr_with_hz(8));
        bar.set_style(
            ProgressStyle::with_template("{prefix:.bold} [{bar:30.cyan/blue}] {msg}")
                .expect("a valid template")
                .progress_chars("=> "),
        );
        bar
    }
}

fn rate(v: f64) -> String {
    if v >= 1e6 {
        format!("{:.2}M", v / 1e6)
    } else if v >= 1e3 {
        format!("{:.1}K", v / 1e3)
    } else {
        format!("{v:.0}")
    }
}

impl Observer for Progress {
    fn begin(&mut self, label: &str, index: usize, count: usize) {
        self.prefix = format!("[{index}/{count}] {label}");
        if let Some(bar) = &self.bar {
            if bar.is_finished() {
                self.bar = Some(Self::make_bar());
            }
        }
        self.last = None;
    }

    fn update(&mut self, live: &Live) {
        let Some(bar) = &self.bar else {
            return;
        };
        let now = Instant::now();
        let secs = |ns: u64| ns as f64 / 1e9;
        let (name, figures) = match live.phase {
            LivePhase::Warmup => ("warming up", String::new()),
            LivePhase::Cooldown => ("cooling down", String::new()),
            LivePhase::Measuring => {
                let mut f = String::new();
                if let Some((t0, prev)) = self.last.filter(|(_, p)| p.phase == LivePhase::Measuring)
                {
                    let dt = now.duration_since(t0).as_secs_f64().max(1e-3);
                    let ios = live.ios.saturating_sub(prev.ios);
                    let iops = ios as f64 / dt;
                    let mbs = live.bytes.saturating_sub(prev.bytes) as f64 / dt / 1e6;
                    f = format!(" | {} IOPS | {mbs:.1} MB/s", rate(iops));
                    let lat = live.lat_sum_ns.saturating_sub(prev.lat_sum_ns);
                    if lat > 0 && ios > 0 {
                        f.push_str(&format!(" | lat {:.0} us", lat as f64 / ios as f64 / 1e3));
                    }
                }
                ("measuring", f)
            }
        };
        let time = match live.planned_ns {
            Some(p) => {
                bar.set_length(p.max(1));
                bar.set_position(live.elapsed_ns.min(p));
                format!(
                    "{:.1}s of {:.1}s, {:.1}s left",
                    secs(live.elapsed_ns),
                    secs(p),
                    secs(p.saturating_sub(live.elapsed_ns))
                )
            }
            None => format!("{:.1}s", secs(live.elapsed_ns)),
        };
        let prefix = if self.prefix.is_empty() {
            "iogauge".to_string()
        } else {
            self.prefix.clone()
        };
        bar.set_prefix(prefix);
        bar.set_message(format!("{name} {time}{figures}"));
        self.last = Some((now, *live));
    }

    fn end(&mut self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
