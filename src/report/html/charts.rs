//! The report's charts, drawn as inline SVG from the data: no script, no
//! font or image from anywhere. Every bar and line carries its number as
//! text beside it, so meaning never rests on colour alone.

use std::fmt::Write;

use super::escape;
use crate::report::gather::SnapshotPosture;

const WIDTH: f64 = 640.0;

/// One bar of a bar chart: label, value, class (its colour in the stylesheet).
pub struct Bar<'a> {
    pub label: &'a str,
    pub value: u64,
    pub class: &'a str,
}

/// A horizontal bar chart, one labelled bar a row.
pub fn bars(out: &mut String, title: &str, bars: &[Bar<'_>]) {
    let row = 28.0;
    let label_width = 190.0;
    let height = row * bars.len() as f64 + 10.0;
    let most = bars.iter().map(|bar| bar.value).max().unwrap_or(0).max(1) as f64;
    let span = WIDTH - label_width - 70.0;
    open(out, title, height);
    for (index, bar) in bars.iter().enumerate() {
        let y = 5.0 + row * index as f64;
        let length = (bar.value as f64 / most * span).max(if bar.value > 0 { 2.0 } else { 0.0 });
        let _ = write!(out, "<text x=\"0\" y=\"{:.1}\" class=\"label\">", y + 18.0);
        escape::push(out, bar.label);
        let _ = write!(
            out,
            "</text><rect x=\"{label_width}\" y=\"{y:.1}\" width=\"{length:.1}\" height=\"20\" class=\"{}\"/>\
             <text x=\"{:.1}\" y=\"{:.1}\" class=\"value\">{}</text>",
            bar.class,
            label_width + length + 6.0,
            y + 15.0,
            bar.value
        );
    }
    out.push_str("</svg>");
}

/// One series of a line chart over the snapshots.
pub struct Series<'a> {
    pub label: &'a str,
    pub class: &'a str,
    pub value: fn(&SnapshotPosture) -> u64,
}

/// A line chart of `series` over the snapshots (oldest left), the first and
/// last snapshot's dates on the axis, each line's newest value at its end.
pub fn lines(out: &mut String, title: &str, points: &[SnapshotPosture], series: &[Series<'_>]) {
    let (left, top, plot_width, plot_height) = (50.0, 10.0, WIDTH - 190.0, 160.0);
    let height = top + plot_height + 40.0 + 18.0 * series.len() as f64;
    let most = points
        .iter()
        .flat_map(|point| series.iter().map(move |s| (s.value)(point)))
        .max()
        .unwrap_or(0)
        .max(1) as f64;
    let x = |index: usize| {
        if points.len() <= 1 {
            left + plot_width / 2.0
        } else {
            left + plot_width * index as f64 / (points.len() - 1) as f64
        }
    };
    let y = |value: u64| top + plot_height - value as f64 / most * plot_height;
    open(out, title, height);
    let _ = write!(
        out,
        "<line x1=\"{left}\" y1=\"{top}\" x2=\"{left}\" y2=\"{:.1}\" class=\"axis\"/>\
         <line x1=\"{left}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{:.1}\" class=\"axis\"/>\
         <text x=\"{:.1}\" y=\"{:.1}\" class=\"tick\" text-anchor=\"end\">{most}</text>\
         <text x=\"{:.1}\" y=\"{:.1}\" class=\"tick\" text-anchor=\"end\">0</text>",
        top + plot_height,
        top + plot_height,
        left + plot_width,
        top + plot_height,
        left - 6.0,
        top + 10.0,
        left - 6.0,
        top + plot_height,
    );
    if let (Some(first), Some(last)) = (points.first(), points.last()) {
        let _ = write!(
            out,
            "<text x=\"{left}\" y=\"{:.1}\" class=\"tick\">{}</text>\
             <text x=\"{:.1}\" y=\"{:.1}\" class=\"tick\" text-anchor=\"end\">{}</text>",
            top + plot_height + 16.0,
            crate::timefmt::date(first.snapshot.taken_at.date()),
            left + plot_width,
            top + plot_height + 16.0,
            crate::timefmt::date(last.snapshot.taken_at.date()),
        );
    }
    for (index, line) in series.iter().enumerate() {
        out.push_str("<polyline fill=\"none\" class=\"");
        out.push_str(line.class);
        out.push_str("\" points=\"");
        for (at, point) in points.iter().enumerate() {
            let _ = write!(out, "{:.1},{:.1} ", x(at), y((line.value)(point)));
        }
        out.push_str("\"/>");
        for (at, point) in points.iter().enumerate() {
            let _ = write!(
                out,
                "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"2.5\" class=\"{}\"/>",
                x(at),
                y((line.value)(point)),
                line.class
            );
        }
        let newest = points.last().map_or(0, |point| (line.value)(point));
        let legend_y = top + plot_height + 36.0 + 18.0 * index as f64;
        let _ = write!(
            out,
            "<rect x=\"{left}\" y=\"{:.1}\" width=\"14\" height=\"4\" class=\"{}\"/>\
             <text x=\"{:.1}\" y=\"{legend_y:.1}\" class=\"label\">",
            legend_y - 6.0,
            line.class,
            left + 20.0,
        );
        escape::push(out, line.label);
        let _ = write!(out, ": {newest} in the newest snapshot</text>");
    }
    out.push_str("</svg>");
}

/// The `<svg>` element with its accessible title.
fn open(out: &mut String, title: &str, height: f64) {
    let _ = write!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" role=\"img\" \
         viewBox=\"0 0 {WIDTH} {height:.0}\" width=\"{WIDTH}\" height=\"{height:.0}\"><title>"
    );
    escape::push(out, title);
    out.push_str("</title>");
}
