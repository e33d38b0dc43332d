//! Rules every paged list screen shares: how the movement keys move the
//! selection, when the next page is asked for, and how the active filters and
//! sort are summed up in one line.

use crate::api::model::{SortOrder, WireEnum};
use crate::text::sanitize_line;
use crate::tui::action::Action;

/// Rows before the end of what is loaded at which the next page is asked for
/// (or a screenful, when that is more).
pub const PREFETCH_MARGIN: usize = 30;

/// Where a movement action takes the selection; `None` for other actions. The
/// caller clamps to the rows loaded (`Bottom` asks for the last).
pub fn navigate(action: Action, selected: usize, page: usize) -> Option<usize> {
    let page = page.max(1);
    Some(match action {
        Action::Up => selected.saturating_sub(1),
        Action::Down => selected.saturating_add(1),
        Action::Top => 0,
        Action::Bottom => usize::MAX,
        Action::PageUp => selected.saturating_sub(page),
        Action::PageDown => selected.saturating_add(page),
        _ => return None,
    })
}

/// Whether to ask for the next page: more exists, none is in flight, and the
/// selection is within the margin of the end of what is loaded.
pub fn wants_next_page(
    selected: usize,
    loaded: usize,
    viewport: usize,
    has_more: bool,
    in_flight: bool,
) -> bool {
    has_more && !in_flight && selected + PREFETCH_MARGIN.max(viewport) >= loaded
}

/// A search for the summary line: `search "text"`, or nothing when blank.
pub fn search_part(search: &str) -> Option<String> {
    let search = search.trim();
    (!search.is_empty()).then(|| format!("search \"{}\"", sanitize_line(search)))
}

/// A repeatable filter for the summary line: `role admin|owner` (any matches),
/// or nothing when no value is ticked.
pub fn any_of_part<E: WireEnum>(name: &str, values: &[E]) -> Option<String> {
    let wire: Vec<&str> = values.iter().map(E::wire).collect();
    (!wire.is_empty()).then(|| format!("{name} {}", wire.join("|")))
}

/// A yes/no filter for the summary line, in its words; nothing when unset.
pub fn yes_no_part(flag: Option<bool>, yes: &str, no: &str) -> Option<String> {
    flag.map(|flag| if flag { yes } else { no }.to_owned())
}

/// "no filters · sort default", or the filters then the sort with its direction.
pub fn filter_summary(parts: &[String], sort_by: Option<&str>, order: &SortOrder) -> String {
    let sort = match sort_by {
        Some(by) => {
            let arrow = if *order == SortOrder::Asc {
                "↑"
            } else {
                "↓"
            };
            format!("sort {by} {arrow}")
        }
        None => "sort default".to_owned(),
    };
    if parts.is_empty() {
        format!("no filters · {sort}")
    } else {
        format!("{} · {sort}", parts.join(" · "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn movement_and_prefetch() {
        assert_eq!(navigate(Action::Up, 0, 10), Some(0));
        assert_eq!(navigate(Action::PageDown, 5, 10), Some(15));
        assert_eq!(navigate(Action::PageUp, 5, 0), Some(4));
        assert_eq!(navigate(Action::Bottom, 5, 10), Some(usize::MAX));
        assert_eq!(navigate(Action::Refresh, 5, 10), None);
        assert!(!wants_next_page(0, 100, 20, true, false));
        assert!(wants_next_page(70, 100, 20, true, false));
        assert!(!wants_next_page(70, 100, 20, true, true));
        assert!(!wants_next_page(99, 100, 20, false, false));
        assert!(
            wants_next_page(55, 100, 45, true, false),
            "a screenful when larger"
        );
    }

    #[test]
    fn summaries() {
        assert_eq!(
            filter_summary(&[], None, &SortOrder::Desc),
            "no filters · sort default"
        );
        assert_eq!(
            filter_summary(&["published".into()], Some("name"), &SortOrder::Asc),
            "published · sort name ↑"
        );
    }
}
