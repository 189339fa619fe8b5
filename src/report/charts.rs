//! Charts of saved results, drawn with plotters: as inline SVG for the HTML report and as PNG
//! files. One description ([`Chart`]) per chart, one drawing function per kind, so the SVG and
//! the PNG of a chart are the same picture.
//!
//! Text is laid out with the DejaVu Sans font compiled into the binary (plotters' ab_glyph
//! backend): no system font libraries, and the same metrics on every machine.

use crate::result::{Phase, Sample};
use crate::stats::phases::PhaseLabel;
use plotters::coord::ranged1d::Ranged;
use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use std::path::Path;
use std::sync::Once;

/// Okabe-Ito: told apart by people with any common form of colour blindness.
pub const COLORS: [RGBColor; 8] = [
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(230, 159, 0),
    RGBColor(86, 180, 233),
    RGBColor(120, 120, 120),
    RGBColor(0, 0, 0),
];

pub const WIDTH: u32 = 780;
pub const HEIGHT: u32 = 330;

#[derive(Debug, Clone)]
pub enum Kind {
    /// Values over time: x in seconds, linear y.
    Time,
    /// A percentile plot: x in "nines" (-log10(1 - p)), y latency in ns on a log scale.
    Nines { max_nines: f64 },
    /// Share of I/Os per latency bin: bars over a log x axis in ns.
    Histogram,
    /// Grouped horizontal bars, one group per name in `groups` (top to bottom), one bar per
    /// line; a line's points are (group index, value). A rule marks 1.0, the reference.
    Bars { groups: Vec<String> },
    /// Values over sizes: x is log2 of a size in bytes (doubling sizes evenly spaced),
    /// labelled as sizes; linear y from zero.
    Sizes,
}

#[derive(Debug, Clone)]
pub struct Line {
    pub name: String,
    /// Index into [`COLORS`]: one colour per run, kept across charts.
    pub color: usize,
    /// Dashed-looking thinner stroke, for a second figure of the same run (p99 next to mean).
    pub secondary: bool,
    /// (x, y); for histograms (bin low, y) with the bin high in `widths`.
    pub points: Vec<(f64, f64)>,
    pub widths: Vec<f64>,
}

#[derive(Debug, Clone)]
pub struct Chart {
    /// File-name-safe identifier, unique in a report.
    pub id: String,
    pub title: String,
    pub x_desc: String,
    pub y_desc: String,
    pub kind: Kind,
    /// How y values are printed on the axis.
    pub y_unit: Unit,
    pub lines: Vec<Line>,
    /// Shaded stretches of x behind the lines (a run's phases); time charts only.
    pub bands: Vec<Band>,
}

/// A shaded stretch `[from, to)` of a time chart, named at its top.
#[derive(Debug, Clone)]
pub struct Band {
    pub from: f64,
    pub to: f64,
    pub label: String,
    /// Index into [`BAND_COLORS`].
    pub shade: usize,
}

/// Phases as shaded bands, when there was more than one (a single phase is the whole chart).
pub fn phase_bands(phases: &[Phase]) -> Vec<Band> {
    if phases.len() < 2 {
        return Vec::new();
    }
    phases
        .iter()
        .map(|p| Band {
            from: p.start_ns as f64 / 1e9,
            to: p.end_ns as f64 / 1e9,
            label: p.label.name().into(),
            shade: match p.label {
                PhaseLabel::Peak | PhaseLabel::Burst => 0,
                PhaseLabel::Baseline | PhaseLabel::Steady => 1,
                PhaseLabel::Cache => 2,
                PhaseLabel::Transition => 3,
            },
        })
        .collect()
}

/// A time line of interval figures: each interval's value (`f`; none, no point) drawn flat
/// from its start to its end in seconds, so one interval is a visible segment and a step is
/// where it happened.
pub fn intervals(samples: &[Sample], f: impl Fn(&Sample) -> Option<f64>) -> Vec<(f64, f64)> {
    samples
        .iter()
        .filter_map(|s| {
            let v = f(s)?;
            let a = s.start_ns as f64 / 1e9;
            let b = s.start_ns.saturating_add(s.duration_ns) as f64 / 1e9;
            Some([(a, v), (b, v)])
        })
        .flatten()
        .collect()
}

/// An interval's count per second.
pub fn per_second(s: &Sample, count: u64) -> f64 {
    count as f64 / (s.duration_ns.max(1) as f64 / 1e9)
}

/// Light enough that lines over them stay legible.
pub const BAND_COLORS: [RGBColor; 4] = [
    RGBColor(253, 224, 196),
    RGBColor(204, 229, 245),
    RGBColor(210, 238, 224),
    RGBColor(232, 232, 232),
];

#[derive(Debug, Clone, Copy)]
pub enum Unit {
    Count,
    MegaBytes,
    Nanos,
    Percent,
    Ratio,
}

impl Unit {
    fn format(self, v: f64) -> String {
        match self {
            Unit::Count => crate::store::figures::format_count(v),
            Unit::MegaBytes => format!("{v:.0}"),
            Unit::Nanos => crate::store::figures::format_ns(v),
            Unit::Percent => format!("{v:.0}%"),
            Unit::Ratio => crate::units::format_ratio(v),
        }
    }
}

fn register_font() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // The font is a static in the binary; it always parses.
        let _ = plotters::style::register_font(
            "sans-serif",
            FontStyle::Normal,
            dejavu::sans::regular(),
        );
    });
}

/// The chart as an SVG document (for inlining into HTML).
pub fn svg(c: &Chart) -> Result<String, String> {
    register_font();
    let mut buf = String::new();
    {
        let root = SVGBackend::with_string(&mut buf, (WIDTH, height(c))).into_drawing_area();
        draw(&root, c)?;
        root.present().map_err(|e| format!("{e:?}"))?;
    }
    Ok(buf)
}

/// The chart as a PNG file.
pub fn png(c: &Chart, path: &Path) -> Result<(), String> {
    register_font();
    let root = BitMapBackend::new(path, (WIDTH, height(c))).into_drawing_area();
    draw(&root, c)?;
    root.present().map_err(|e| format!("{e:?}"))
}

/// The top of a linear value axis: headroom above the highest value `y1` for the legend, one
/// row per line (no legend, so less room, for a single line).
fn linear_top(c: &Chart, y1: f64) -> f64 {
    let room = 1.1
        + if c.lines.len() > 1 {
            0.08 * c.lines.len().min(6) as f64
        } else {
            0.0
        };
    if y1 > 0.0 {
        y1 * room
    } else {
        1.0
    }
}

/// Pixels high: fixed, except bar charts, which grow with their bars so each stays readable.
pub fn height(c: &Chart) -> u32 {
    match &c.kind {
        Kind::Bars { groups } => {
            let bars = c.lines.len().max(1) as u32;
            (110 + groups.len() as u32 * (bars * 13 + 12)).max(HEIGHT)
        }
        _ => HEIGHT,
    }
}

fn bounds(c: &Chart) -> (f64, f64, f64, f64) {
    let mut x0 = f64::INFINITY;
    let mut x1 = f64::NEG_INFINITY;
    let mut y0 = f64::INFINITY;
    let mut y1 = f64::NEG_INFINITY;
    for l in &c.lines {
        for (i, &(x, y)) in l.points.iter().enumerate() {
            x0 = x0.min(x);
            x1 = x1.max(x + l.widths.get(i).copied().unwrap_or(0.0));
            y0 = y0.min(y);
            y1 = y1.max(y);
        }
    }
    if !x0.is_finite() {
        return (0.0, 1.0, 0.0, 1.0);
    }
    if x1 <= x0 {
        x1 = x0 + 1.0;
    }
    (x0, x1, y0, y1)
}

fn style(l: &Line) -> ShapeStyle {
    let c = COLORS[l.color % COLORS.len()];
    if l.secondary {
        c.mix(0.55).stroke_width(1)
    } else {
        c.stroke_width(2)
    }
}

fn draw<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, c: &Chart) -> Result<(), String>
where
    DB::ErrorType: 'static,
{
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| format!("chart '{}': {e:?}", c.id);
    root.fill(&WHITE).map_err(err)?;
    let (x0, x1, y0, y1) = bounds(c);
    let mut builder = ChartBuilder::on(root);
    builder
        .caption(&c.title, ("sans-serif", 17))
        .margin(12)
        .margin_right(36)
        .x_label_area_size(42)
        .y_label_area_size(78);
    let unit = c.y_unit;
    let y_fmt = move |v: &f64| unit.format(*v);
    match c.kind {
        Kind::Time | Kind::Sizes => {
            // Time charts start at the measured window's start, size charts at the smallest
            // size; both from zero up: a drop looks as big as it is.
            let sizes = matches!(c.kind, Kind::Sizes);
            let left = if sizes { x0 } else { 0.0 };
            let top = linear_top(c, y1);
            let mut chart = builder
                .build_cartesian_2d(left..x1, 0.0..top)
                .map_err(err)?;
            let mut mesh = chart.configure_mesh();
            mesh.x_desc(&c.x_desc)
                .y_desc(&c.y_desc)
                .y_label_formatter(&y_fmt)
                .light_line_style(RGBColor(235, 235, 235))
                .label_style(("sans-serif", 13))
                .axis_desc_style(("sans-serif", 14));
            if sizes {
                mesh.x_labels(((x1 - x0) as usize + 1).min(24))
                    .x_label_formatter(&size_label);
            }
            mesh.draw().map_err(err)?;
            bands(&mut chart, c, top).map_err(err)?;
            lines(&mut chart, c).map_err(err)?;
        }
        Kind::Nines { max_nines } => {
            let lo = (y0.max(1.0) / 1.5).max(1.0);
            // Log scale: headroom for the legend is a factor, one step per line.
            let hi = (y1 * 1.5 * 2f64.powi(c.lines.len().min(6) as i32)).max(lo * 10.0);
            let mut chart = builder
                .build_cartesian_2d(0.0..max_nines, (lo..hi).log_scale())
                .map_err(err)?;
            let nines = |x: &f64| {
                let p = 100.0 * (1.0 - 10f64.powf(-*x));
                if (x.round() - x).abs() > 1e-6 {
                    String::new()
                } else if *x < 0.5 {
                    "0%".into()
                } else {
                    let digits = (x.round() as usize).saturating_sub(2);
                    format!("{p:.digits$}%")
                }
            };
            chart
                .configure_mesh()
                .x_desc(&c.x_desc)
                .y_desc(&c.y_desc)
                .x_labels(max_nines as usize + 1)
                .x_label_formatter(&nines)
                .y_label_formatter(&y_fmt)
                .light_line_style(RGBColor(235, 235, 235))
                .label_style(("sans-serif", 13))
                .axis_desc_style(("sans-serif", 14))
                .draw()
                .map_err(err)?;
            lines(&mut chart, c).map_err(err)?;
        }
        Kind::Bars { ref groups } => bars(root, builder, c, groups, y1).map_err(err)?,
        Kind::Histogram => {
            let lo = (x0.max(1.0) / 1.2).max(1.0);
            let hi = (x1 * 1.2).max(lo * 10.0);
            let top = linear_top(c, y1);
            let mut chart = builder
                .build_cartesian_2d((lo..hi).log_scale(), 0.0..top)
                .map_err(err)?;
            chart
                .configure_mesh()
                .x_desc(&c.x_desc)
                .y_desc(&c.y_desc)
                .x_label_formatter(&|v: &f64| crate::store::figures::format_ns(*v))
                .y_label_formatter(&y_fmt)
                .light_line_style(RGBColor(235, 235, 235))
                .label_style(("sans-serif", 13))
                .axis_desc_style(("sans-serif", 14))
                .draw()
                .map_err(err)?;
            for l in &c.lines {
                let color = COLORS[l.color % COLORS.len()];
                let bars = l.points.iter().zip(&l.widths).map(move |(&(x, y), &w)| {
                    Rectangle::new([(x, 0.0), (x + w, y)], color.mix(0.45).filled())
                });
                chart
                    .draw_series(bars)
                    .map_err(err)?
                    .label(&l.name)
                    .legend(move |(x, y)| {
                        Rectangle::new([(x, y - 5), (x + 14, y + 5)], color.mix(0.45).filled())
                    });
            }
            legend(&mut chart, c).map_err(err)?;
        }
    }
    Ok(())
}

/// A size axis' label at each whole power of two (x is log2 of bytes): the sizes a sweep
/// doubles through.
fn size_label(x: &f64) -> String {
    if (x.round() - x).abs() > 1e-6 || *x < 0.0 {
        String::new()
    } else {
        crate::units::format_size(2f64.powf(x.round()) as u64)
    }
}

/// Grouped horizontal bars. Labels of the groups are drawn beside the plot at each group's
/// middle (a float axis would put its own ticks elsewhere); each bar ends in its value.
fn bars<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    mut builder: ChartBuilder<'_, '_, DB>,
    c: &Chart,
    groups: &[String],
    max: f64,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let n = groups.len().max(1) as f64;
    let count = c.lines.len().max(1) as f64;
    // Room on the right for the values at the bars' ends and for the key.
    let room = if c.lines.len() > 1 { 1.45 } else { 1.2 };
    let right = if max > 0.0 {
        (max * room).max(1.2)
    } else {
        1.2
    };
    let mut chart = builder
        .y_label_area_size(150)
        .build_cartesian_2d(0.0..right, 0.0..n)?;
    chart
        .configure_mesh()
        .disable_y_mesh()
        .y_labels(2)
        .y_label_formatter(&|_| String::new())
        .x_desc(&c.x_desc)
        .x_label_formatter(&|v: &f64| format!("{v:.1}"))
        .light_line_style(RGBColor(235, 235, 235))
        .label_style(("sans-serif", 13))
        .axis_desc_style(("sans-serif", 14))
        .draw()?;
    let (gap, h) = (0.15, 0.7 / count);
    let top_of = |g: f64, j: usize| n - g - gap - j as f64 * h;
    for (j, l) in c.lines.iter().enumerate() {
        let color = COLORS[l.color % COLORS.len()];
        let rects = l.points.iter().map(move |&(g, v)| {
            let hi = top_of(g, j);
            Rectangle::new([(0.0, hi - h), (v, hi)], color.filled())
        });
        chart
            .draw_series(rects)?
            .label(&l.name)
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 14, y + 5)], color.filled()));
        let values = l.points.iter().map(move |&(g, v)| {
            EmptyElement::at((v, top_of(g, j) - h / 2.0))
                + Text::new(
                    crate::units::format_ratio(v),
                    (4, 0),
                    TextStyle::from(("sans-serif", 11).into_font())
                        .pos(Pos::new(HPos::Left, VPos::Center)),
                )
        });
        chart.draw_series(values)?;
    }
    // The reference: 1.00.
    chart.draw_series(LineSeries::new(
        [(1.0, 0.0), (1.0, n)],
        RGBColor(90, 90, 90).stroke_width(1),
    ))?;
    for (i, g) in groups.iter().enumerate() {
        let (px, py) = chart.backend_coord(&(0.0, n - i as f64 - 0.5));
        root.draw(&Text::new(
            g.clone(),
            (px - 8, py),
            TextStyle::from(("sans-serif", 13).into_font())
                .pos(Pos::new(HPos::Right, VPos::Center)),
        ))?;
    }
    if c.lines.len() > 1 {
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .background_style(WHITE.mix(0.85))
            .border_style(RGBColor(200, 200, 200))
            .label_font(("sans-serif", 12))
            .draw()?;
    }
    Ok(())
}

/// The chart's bands, each named just under the top edge.
fn bands<'a, DB: DrawingBackend + 'a>(
    chart: &mut ChartContext<'a, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>,
    c: &Chart,
    top: f64,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    for b in &c.bands {
        let shade = BAND_COLORS[b.shade % BAND_COLORS.len()];
        chart.draw_series(std::iter::once(Rectangle::new(
            [(b.from, 0.0), (b.to, top)],
            shade.filled(),
        )))?;
        let style = ("sans-serif", 12)
            .into_font()
            .color(&RGBColor(90, 90, 90))
            .pos(Pos::new(HPos::Left, VPos::Top));
        chart.draw_series(std::iter::once(Text::new(
            b.label.clone(),
            (b.from, top),
            style,
        )))?;
    }
    Ok(())
}

/// Each line of a time or percentile chart, with its key.
fn lines<'a, DB: DrawingBackend + 'a, Y>(
    chart: &mut ChartContext<'a, DB, Cartesian2d<RangedCoordf64, Y>>,
    c: &Chart,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>>
where
    Y: Ranged<ValueType = f64>,
    Cartesian2d<RangedCoordf64, Y>: plotters::coord::CoordTranslate<From = (f64, f64)>,
{
    for l in &c.lines {
        let s = style(l);
        chart
            .draw_series(LineSeries::new(l.points.iter().copied(), s))?
            .label(&l.name)
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], s));
    }
    legend(chart, c)
}

fn legend<'a, DB: DrawingBackend + 'a, CT: plotters::coord::CoordTranslate>(
    chart: &mut ChartContext<'a, DB, CT>,
    c: &Chart,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    // One line needs no key: the section and the title say what it is.
    if c.lines.len() < 2 {
        return Ok(());
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.85))
        .border_style(RGBColor(200, 200, 200))
        .label_font(("sans-serif", 12))
        .draw()
}
