//! HTML pieces both HTML reports use (html.rs, workload/html.rs): a chart as a figure, a
//! grid as a table, text made safe to print.

use super::charts::{self, Chart};
use super::table::Grid;
use std::fmt::Write;

/// A chart as an inline SVG figure, or a line saying why it could not be drawn.
pub(super) fn figure(c: &Chart) -> String {
    match charts::svg(c) {
        Ok(svg) => format!(
            "<figure class=\"chart\" id=\"{}\">{}</figure>\n",
            c.id,
            strip_xml_prolog(&svg)
        ),
        Err(e) => format!(
            "<p class=\"error\">chart {} could not be drawn: {}</p>\n",
            c.id,
            esc(&e)
        ),
    }
}

pub(super) fn grid_html(g: &Grid, class: &str) -> String {
    let mut o = format!("<table class=\"{class}\">\n");
    for (i, row) in g.rows.iter().enumerate() {
        o.push_str("<tr>");
        for (c, cell) in row.iter().enumerate() {
            let tag = if i == 0 { "th" } else { "td" };
            let align = if g.right.contains(&c) {
                " class=\"num\""
            } else {
                ""
            };
            let _ = write!(o, "<{tag}{align}>{}</{tag}>", esc(cell));
        }
        o.push_str("</tr>\n");
    }
    o.push_str("</table>\n");
    o
}

pub(super) fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn strip_xml_prolog(svg: &str) -> &str {
    match svg.find("<svg") {
        Some(i) => &svg[i..],
        None => svg,
    }
}
