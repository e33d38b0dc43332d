//! Display helpers of the list and live screens: scrolling, UTC times, a large
//! figure and bar lists.

use ratatui::style::Style;
use ratatui::text::{Line, Span};
use time::{Date, OffsetDateTime};

use super::thousands;
use crate::text::{display_width, fit};
use crate::timefmt;

/// The first visible row of a list `height` rows high, moved as little as
/// possible from `offset` so that `selected` stays in view.
pub fn scroll_offset(offset: usize, selected: usize, height: usize, len: usize) -> usize {
    let height = height.max(1);
    let mut offset = offset;
    if selected < offset {
        offset = selected;
    } else if selected >= offset + height {
        offset = selected + 1 - height;
    }
    offset.min(len.saturating_sub(1))
}

/// `14:03`, in UTC.
pub fn utc_hm(at: OffsetDateTime) -> String {
    timefmt::utc(at, timefmt::HOUR_MINUTE)
}

/// `14:03:09`, in UTC.
pub fn utc_hms(at: OffsetDateTime) -> String {
    timefmt::utc(at, timefmt::CLOCK)
}

/// `2026-11-22`.
pub fn date_label(date: Date) -> String {
    timefmt::date(date)
}

/// `2026-11-22 14:03`, in UTC.
pub fn utc_datetime(at: OffsetDateTime) -> String {
    timefmt::date_time(at)
}

/// Glyphs of the large figure, 3 cells wide and 5 high.
fn glyph(ch: char) -> [&'static str; 5] {
    match ch {
        '0' => ["███", "█ █", "█ █", "█ █", "███"],
        '1' => [" █ ", "██ ", " █ ", " █ ", "███"],
        '2' => ["███", "  █", "███", "█  ", "███"],
        '3' => ["███", "  █", "███", "  █", "███"],
        '4' => ["█ █", "█ █", "███", "  █", "  █"],
        '5' => ["███", "█  ", "███", "  █", "███"],
        '6' => ["███", "█  ", "███", "█ █", "███"],
        '7' => ["███", "  █", "  █", "  █", "  █"],
        '8' => ["███", "█ █", "███", "█ █", "███"],
        '9' => ["███", "█ █", "███", "  █", "███"],
        '-' => ["   ", "   ", "███", "   ", "   "],
        _ => ["   ", "   ", "   ", "   ", "   "],
    }
}

/// `value` in large digits (five lines), or one line when `width` is too small.
pub fn big_number(value: i64, width: usize, style: Style) -> Vec<Line<'static>> {
    let digits = value.to_string();
    let wide = digits.chars().count() * 4;
    if wide > width {
        return vec![Line::from(Span::styled(thousands(value), style))];
    }
    (0..5)
        .map(|row| {
            let text: Vec<&str> = digits.chars().map(|ch| glyph(ch)[row]).collect();
            Line::from(Span::styled(text.join(" "), style))
        })
        .collect()
}

/// Partial blocks for bar ends, in eighths of a cell.
const EIGHTHS: [&str; 8] = ["", "▏", "▎", "▍", "▌", "▋", "▊", "▉"];

/// A bar of `value` out of `max` in `width` cells, to an eighth of a cell.
pub fn bar(value: i64, max: i64, width: usize) -> String {
    if max <= 0 || value <= 0 || width == 0 {
        return String::new();
    }
    let eighths = (value.min(max) as u128 * width as u128 * 8 / max as u128) as usize;
    let mut out = "█".repeat(eighths / 8);
    out.push_str(EIGHTHS[eighths % 8]);
    if out.is_empty() {
        // Something is there, however little.
        out.push('▏');
    }
    out
}

/// Labelled bars with their counts: `label  ████▌   1,234`. Labels are untrusted
/// text and are sanitized here.
pub fn bar_lines(
    items: &[(&str, i64)],
    width: usize,
    label_style: Style,
    bar_style: Style,
) -> Vec<Line<'static>> {
    let max = items.iter().map(|(_, count)| *count).max().unwrap_or(0);
    let count_width = items
        .iter()
        .map(|(_, count)| thousands(*count).len())
        .max()
        .unwrap_or(1);
    let label_width = items
        .iter()
        .map(|(label, _)| display_width(&crate::text::sanitize_line(label)))
        .max()
        .unwrap_or(0)
        .clamp(4, (width / 3).max(4));
    let bar_width = width.saturating_sub(label_width + count_width + 3);
    items
        .iter()
        .map(|(label, count)| {
            let label = fit(label, label_width);
            let pad = label_width.saturating_sub(display_width(&label));
            let drawn = bar(*count, max, bar_width);
            let gap = bar_width.saturating_sub(display_width(&drawn));
            Line::from(vec![
                Span::styled(format!("{label}{} ", " ".repeat(pad)), label_style),
                Span::styled(drawn, bar_style),
                Span::raw(" ".repeat(gap)),
                Span::styled(format!(" {:>count_width$}", thousands(*count)), label_style),
            ])
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::macros::datetime;

    #[test]
    fn scrolling_moves_only_as_needed() {
        assert_eq!(scroll_offset(0, 5, 10, 100), 0);
        assert_eq!(scroll_offset(0, 12, 10, 100), 3);
        assert_eq!(scroll_offset(8, 4, 10, 100), 4);
        assert_eq!(scroll_offset(50, 3, 10, 4), 3);
    }

    #[test]
    fn times_are_utc() {
        let at = datetime!(2026-11-22 23:59:07 -02:00);
        assert_eq!(utc_hm(at), "01:59");
        assert_eq!(utc_hms(at), "01:59:07");
        assert_eq!(utc_datetime(at), "2026-11-23 01:59");
    }

    #[test]
    fn bars_scale_to_the_largest_value() {
        assert_eq!(bar(10, 10, 4), "████");
        assert_eq!(bar(5, 10, 4), "██");
        assert_eq!(bar(1, 1000, 4), "▏");
        assert_eq!(bar(0, 10, 4), "");
        assert_eq!(big_number(42, 80, Style::default()).len(), 5);
        assert_eq!(big_number(123_456, 8, Style::default()).len(), 1);
    }
}
