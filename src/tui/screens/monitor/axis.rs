//! The axes of the monitor's charts, as btop draws them: the value at the top,
//! middle and bottom of the y axis, and a time axis with a tick every few
//! minutes (aligned to the clock) between its two ends.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use time::OffsetDateTime;

use crate::tui::widgets::display::utc_hm;

/// Tick steps in minutes, the finest first: the first whose labels do not
/// touch is used.
const TICK_MINUTES: [i64; 5] = [5, 10, 15, 30, 60];

/// A short form of a count for an axis label: 950, 1.2k, 34k, 1.5M.
pub fn compact(value: u64) -> String {
    match value {
        v if v < 1_000 => v.to_string(),
        v if v < 10_000 => format!("{:.1}k", v as f64 / 1_000.0),
        v if v < 1_000_000 => format!("{}k", v / 1_000),
        v => format!("{:.1}M", v as f64 / 1_000_000.0),
    }
}

/// The width of the y-axis gutter for a scale up to `max`: the widest label
/// and its tick mark.
pub fn gutter_width(max: u64) -> u16 {
    compact(max).len() as u16 + 1
}

/// Draws the y-axis labels in `area` (one gutter column wide per character):
/// `max` on the top row, half of it in the middle when there is room, `0` on
/// the bottom row, each right-aligned against a tick `┤`.
pub fn draw_y_axis(frame: &mut Frame, area: Rect, max: u64, style: Style) {
    if area.height == 0 || area.width == 0 {
        return;
    }
    let label_width = area.width.saturating_sub(1) as usize;
    let mut rows = vec![String::new(); area.height as usize];
    let label = |value: u64| format!("{:>label_width$}┤", compact(value));
    let bottom = rows.len() - 1;
    // Each value once: a scale of 0 or 1 has no middle, and 0 only one 0.
    if max > 0 || bottom == 0 {
        rows[0] = label(max);
    }
    if bottom >= 4 && max / 2 > 0 {
        rows[bottom / 2] = label(max / 2);
    }
    if bottom > 0 {
        rows[bottom] = label(0);
    }
    let lines: Vec<Line> = rows
        .into_iter()
        .map(|row| {
            if row.is_empty() {
                Line::from(Span::styled(format!("{:>label_width$}│", ""), style))
            } else {
                Line::from(Span::styled(row, style))
            }
        })
        .collect();
    frame.render_widget(Paragraph::new(lines), area);
}

/// The time axis under a chart of `width` columns whose bucket `i` starts at
/// column `starts[i]` (and ends where the next starts, the last one at
/// `width`): the first and last minute at the ends, and ticks every 5, 10, 15,
/// 30 or 60 minutes between them where they fit.
pub fn time_axis(timestamps: &[OffsetDateTime], starts: &[usize], width: usize) -> String {
    let mut row = vec![' '; width];
    let mut taken = vec![false; width];
    // A label and one blank on each side, so that two never run together.
    let mut place = |start: usize, label: &str| -> bool {
        let end = start + label.chars().count();
        if end > width {
            return false;
        }
        let lo = start.saturating_sub(1);
        let hi = (end + 1).min(width);
        if taken[lo..hi].iter().any(|cell| *cell) {
            return false;
        }
        for (cell, ch) in row[start..end].iter_mut().zip(label.chars()) {
            *cell = ch;
        }
        taken[start..end].iter_mut().for_each(|cell| *cell = true);
        true
    };
    let (Some(first), Some(last)) = (timestamps.first(), timestamps.last()) else {
        return String::new();
    };
    let label_width = utc_hm(*first).len();
    place(0, &utc_hm(*first));
    if timestamps.len() > 1 {
        place(width.saturating_sub(label_width), &utc_hm(*last));
    }
    let start_of = |index: usize| starts.get(index).copied().unwrap_or(width);
    let columns_per_minute = width as f64 / timestamps.len() as f64;
    let Some(tick) = TICK_MINUTES
        .iter()
        .copied()
        .find(|minutes| *minutes as f64 * columns_per_minute > (label_width + 1) as f64)
    else {
        return row.into_iter().collect();
    };
    for (index, at) in timestamps.iter().enumerate().skip(1) {
        let minute = i64::from(at.hour()) * 60 + i64::from(at.minute());
        if index + 1 < timestamps.len() && minute % tick == 0 {
            // Centred under its bucket.
            let centre = (start_of(index) + start_of(index + 1)) / 2;
            place(centre.saturating_sub(label_width / 2), &utc_hm(*at));
        }
    }
    row.into_iter().collect::<String>().trim_end().to_owned()
}

/// Where each of `count` buckets starts when they share `width` columns as
/// evenly as whole columns allow.
pub fn spread(count: usize, width: usize) -> Vec<usize> {
    (0..count)
        .map(|index| index * width / count.max(1))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::Duration;
    use time::macros::datetime;

    fn minutes(count: i64) -> Vec<OffsetDateTime> {
        let start = datetime!(2026-11-22 11:30 UTC);
        (0..count).map(|i| start + Duration::minutes(i)).collect()
    }

    #[test]
    fn the_time_axis_has_ticks_between_its_ends_where_they_fit() {
        // One column per minute: 5-minute ticks would touch, 10-minute ones fit,
        // each centred under its minute.
        let axis = time_axis(&minutes(30), &spread(30, 30), 30);
        assert_eq!(axis, "11:30   11:40     11:50  11:59");
        // Three columns per minute: every 5 minutes.
        let axis = time_axis(&minutes(30), &spread(30, 90), 90);
        for label in [
            "11:30", "11:35", "11:40", "11:45", "11:50", "11:55", "11:59",
        ] {
            assert!(axis.contains(label), "{label} in {axis:?}");
        }
        // Too narrow for anything but the first minute.
        assert_eq!(time_axis(&minutes(30), &spread(30, 8), 8), "11:30");
        assert_eq!(time_axis(&[], &[], 30), "");
        // 30 minutes over 55 columns: each one or two columns wide.
        let starts = spread(30, 55);
        assert_eq!((starts[1], starts[2], starts[29]), (1, 3, 53));
        assert_eq!(time_axis(&minutes(30), &starts, 55).len(), 55);
    }

    /// The y axis as text, one row a line.
    fn y_axis(max: u64, height: u16) -> Vec<String> {
        let backend = ratatui::backend::TestBackend::new(3, height);
        let mut terminal = ratatui::Terminal::new(backend).expect("a test terminal");
        terminal
            .draw(|frame| draw_y_axis(frame, frame.area(), max, Style::default()))
            .expect("drawn");
        let buffer = terminal.backend().buffer();
        (0..height)
            .map(|y| (0..3).map(|x| buffer[(x, y)].symbol()).collect())
            .collect()
    }

    #[test]
    fn a_scale_of_zero_or_one_shows_one_zero() {
        let zeros = |rows: &[String]| rows.iter().filter(|row| row.contains('0')).count();
        assert_eq!(zeros(&y_axis(0, 5)), 1, "{:?}", y_axis(0, 5));
        assert_eq!(zeros(&y_axis(1, 5)), 1, "{:?}", y_axis(1, 5));
        assert_eq!(y_axis(1, 5)[0], " 1┤");
        assert_eq!(y_axis(8, 5)[2], " 4┤");
    }

    #[test]
    fn the_y_axis_labels_are_short() {
        assert_eq!(compact(18), "18");
        assert_eq!(compact(1_234), "1.2k");
        assert_eq!(compact(34_567), "34k");
        assert_eq!(compact(1_500_000), "1.5M");
        assert_eq!(gutter_width(18), 3);
    }
}
