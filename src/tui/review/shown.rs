//! A reviewed mark as the dashboard says it, where the reviewer looks: the
//! project screen and the inventory's detail pane.

use ratatui::text::{Line, Span};
use time::OffsetDateTime;

use crate::history::ReviewMark;
use crate::text::fit;
use crate::tui::theme::Theme;
use crate::tui::widgets::ago;

/// The review as the project screen and the detail pane say it: who, how
/// long ago (and when), the note, and what changed since. Empty for a project
/// not marked.
pub fn review_lines(mark: Option<&ReviewMark>, now: OffsetDateTime) -> Vec<String> {
    let Some(mark) = mark else {
        return Vec::new();
    };
    // The role that wrote it in a shared history, with the name given beside it.
    let who = match crate::history::shown_reviewer(
        mark.reviewer.as_deref(),
        mark.display_name.as_deref(),
    ) {
        who if who.is_empty() => "someone".to_owned(),
        who => who,
    };
    let mut lines = vec![format!(
        "reviewed by {who}, {} ({} UTC)",
        ago((now - mark.marked_at).whole_seconds().max(0)),
        crate::timefmt::date_time(mark.marked_at)
    )];
    if let Some(note) = &mark.note {
        lines.push(format!("note: {note}"));
    }
    let glyph = match mark.changed_since_review {
        Some(true) => "Δ ",
        Some(false) => "✓ ",
        None => "",
    };
    lines.push(format!("{glyph}{}", mark.since_review()));
    lines
}

/// [`review_lines`] styled for a pane `width` cells wide: the verdict in the
/// colour of its state, the rest dim. Every part is sanitized (a note, a
/// reviewer's name and a project's name are text from elsewhere).
pub fn review_block(
    mark: Option<&ReviewMark>,
    theme: &Theme,
    width: usize,
    now: OffsetDateTime,
) -> Vec<Line<'static>> {
    let lines = review_lines(mark, now);
    let verdict = match mark.and_then(|mark| mark.changed_since_review) {
        Some(true) => theme.warn,
        _ => theme.ok,
    };
    let count = lines.len();
    lines
        .into_iter()
        .enumerate()
        .map(|(index, line)| {
            let style = if index + 1 == count {
                verdict
            } else {
                theme.dim
            };
            Line::from(Span::styled(fit(&line, width), style))
        })
        .collect()
}
