//! The paged list's own tests: pages, prefetch, stale replies.

use super::*;
use crate::tui::nav::Nav;
use crate::tui::ops::ListPii;
use crate::tui::screens::pii::{Msg, PAGE};

fn request(cursor: Option<String>) -> ListPii {
    ListPii {
        project_id: "prj".into(),
        params: crate::api::PageParams { limit: Some(2) },
        cursor,
    }
}

fn more(cursor: &str) -> Pagination {
    Pagination {
        has_more: true,
        next_cursor: Some(cursor.into()),
    }
}

#[test]
fn pages_load_as_the_selection_nears_the_end_and_stale_replies_are_dropped() {
    let now = OffsetDateTime::UNIX_EPOCH;
    let (mut effects, mut navs, mut token) = (Vec::new(), Vec::<Nav>::new(), 0);
    let mut cx = Cx::new(
        now,
        "ws_test",
        crate::api::page::DEFAULT_MAX_WALK_ITEMS,
        &mut effects,
        &mut navs,
        &mut token,
    );
    let mut list: PagedList<u32> = PagedList::new(PAGE, 2);
    list.reload(&mut cx, Pages::new(request, Msg::Page));
    let first = list.pending.expect("asked for the first page");
    list.reload(&mut cx, Pages::new(request, Msg::Page));
    assert_eq!(list.accept(PAGE, first), None, "stale");
    let second = list.pending.expect("asked again");
    assert_eq!(list.accept(PAGE, second), Some(None));
    list.append(vec![1, 2], more("c2"), now);
    // Within the margin of the end: the next page, with the cursor.
    assert!(list.prefetch(&mut cx, Pages::new(request, Msg::Page)));
    let third = list.pending.expect("next page");
    assert!(
        !list.prefetch(&mut cx, Pages::new(request, Msg::Page)),
        "one at a time"
    );
    assert_eq!(list.accept(PAGE, third), Some(Some("c2".into())));
    let last = Pagination {
        has_more: false,
        next_cursor: None,
    };
    list.append(vec![3], last, now);
    assert!(list.navigate(Action::Bottom, &mut cx, Pages::new(request, Msg::Page)));
    assert_eq!(list.selected_row(), Some(&3));
    assert!(!list.navigate(Action::Refresh, &mut cx, Pages::new(request, Msg::Page)));
    assert_eq!(list.layout(2), 1..3);
}
