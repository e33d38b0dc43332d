//! Small building blocks shared by the screens.

pub mod cell;
pub mod checklist;
pub mod confirm;
pub mod display;
pub mod input;
pub mod list;
pub mod menu;
pub mod scroll;
pub mod search;
pub mod visibility;

use ratatui::layout::{Constraint, Flex, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders};

use crate::tui::theme::Theme;

/// A rectangle of at most `width` x `height`, centred in `area`.
pub fn centered(area: Rect, width: u16, height: u16) -> Rect {
    let [row] = Layout::vertical([Constraint::Length(height.min(area.height))])
        .flex(Flex::Center)
        .areas(area);
    let [cell] = Layout::horizontal([Constraint::Length(width.min(area.width))])
        .flex(Flex::Center)
        .areas(row);
    cell
}

/// A section's frame: a rule above it, in the border colour (add a title).
pub fn rule(theme: &Theme) -> Block<'static> {
    Block::default()
        .borders(Borders::TOP)
        .border_style(theme.border)
}

/// What a key did to a dialog: it stays open, it was cancelled, or it is done
/// with its answer (a confirm's yes, the chosen audience, a typed origin).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DialogOutcome<T> {
    Open,
    Cancelled,
    Done(T),
}

impl<T> DialogOutcome<T> {
    /// The same outcome with the answer turned into another.
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> DialogOutcome<U> {
        match self {
            DialogOutcome::Open => DialogOutcome::Open,
            DialogOutcome::Cancelled => DialogOutcome::Cancelled,
            DialogOutcome::Done(answer) => DialogOutcome::Done(f(answer)),
        }
    }
}

/// A line of key hints, each a key and what it does: `y / enter confirm`.
/// The keys in the key style, the words dimmed; each word carries its own
/// separator.
pub fn key_line(theme: &Theme, pairs: &[(&str, &str)]) -> Line<'static> {
    Line::from(
        pairs
            .iter()
            .flat_map(|(key, words)| {
                [
                    Span::styled((*key).to_owned(), theme.key),
                    Span::styled((*words).to_owned(), theme.dim),
                ]
            })
            .collect::<Vec<_>>(),
    )
}

/// Under this age a time reads "just now"; above it, within the first
/// minute, in steps of this many seconds ("50 s ago"): data most of a minute
/// old is not "just now".
const JUST_NOW_SECS: i64 = 10;

/// "3 min ago", rounded down so that the label changes rarely (every 10 s in
/// the first minute, then every minute, hour, day) and never says younger than
/// it is.
pub fn ago(seconds: i64) -> String {
    match seconds {
        s if s < JUST_NOW_SECS => "just now".into(),
        s if s < 60 => format!("{} s ago", s / JUST_NOW_SECS * JUST_NOW_SECS),
        s if s < 3_600 => format!("{} min ago", s / 60),
        s if s < 86_400 => format!("{} h ago", s / 3_600),
        s => format!("{} d ago", s / 86_400),
    }
}

/// When `ago` of a time `at` next reads differently: the next step of 10 s in
/// the first minute, then the next whole minute (hour, day) of its age.
/// Redraws for an ageing label happen only then.
pub fn next_age_change(
    at: time::OffsetDateTime,
    now: time::OffsetDateTime,
) -> time::OffsetDateTime {
    let age = (now - at).whole_seconds().max(0);
    let step = match age {
        a if a < 60 => JUST_NOW_SECS,
        a if a < 3_600 => 60,
        a if a < 86_400 => 3_600,
        _ => 86_400,
    };
    at + time::Duration::seconds((age / step + 1) * step)
}

/// A number with thousands separators: 12,345.
pub fn thousands(value: i64) -> String {
    let digits = value.unsigned_abs().to_string();
    let mut out = String::new();
    for (index, ch) in digits.chars().enumerate() {
        if index > 0 && (digits.len() - index).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    if value < 0 { format!("-{out}") } else { out }
}

/// "1 project", "5,000 projects": a count with its noun in the right number.
pub fn count(value: i64, noun: &str) -> String {
    if value == 1 {
        format!("1 {noun}")
    } else {
        format!("{} {noun}s", thousands(value))
    }
}

/// A signed delta: +3, -2, ±0.
pub fn signed(value: i64) -> String {
    match value {
        0 => "±0".into(),
        v if v > 0 => format!("+{}", thousands(v)),
        v => thousands(v),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_numbers_and_ages() {
        assert_eq!(thousands(1_234_567), "1,234,567");
        assert_eq!(thousands(-1_000), "-1,000");
        assert_eq!(thousands(12), "12");
        assert_eq!(signed(5), "+5");
        assert_eq!(signed(-5), "-5");
        assert_eq!(signed(0), "±0");
        assert_eq!(count(1, "project"), "1 project");
        assert_eq!(count(5_000, "project"), "5,000 projects");
        assert_eq!(count(0, "member"), "0 members");
        assert_eq!(ago(5), "just now");
        assert_eq!(ago(54), "50 s ago", "most of a minute is not just now");
        assert_eq!(ago(10), "10 s ago");
        assert_eq!(ago(60), "1 min ago");
        assert_eq!(ago(125), "2 min ago");
        assert_eq!(ago(7_300), "2 h ago");
        assert_eq!(ago(200_000), "2 d ago");
    }

    #[test]
    fn an_age_changes_every_ten_seconds_then_on_the_next_whole_minute_then_hour() {
        let at = time::macros::datetime!(2026-11-22 12:00:00 UTC);
        let next = |secs: i64| next_age_change(at, at + time::Duration::seconds(secs)) - at;
        assert_eq!(next(0), time::Duration::seconds(10));
        assert_eq!(next(54), time::Duration::seconds(60));
        assert_eq!(next(59), time::Duration::seconds(60));
        assert_eq!(next(60), time::Duration::seconds(120));
        assert_eq!(next(3_599), time::Duration::seconds(3_600));
        assert_eq!(next(3_600), time::Duration::seconds(7_200));
        assert_eq!(next(90_000), time::Duration::seconds(172_800));
    }
}
