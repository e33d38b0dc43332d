//! Every request's answer has exactly one owner. Answers are routed by their
//! message type to the first owner that takes it (`app/answers.rs`), so an
//! owner whose type another shares would never see its answers, and a type
//! no owner takes would be dropped. Here the App asks for everything it asks
//! for at start and on every tab, and each answer, as the runtime would make
//! it, is claimed by one owner and one only.

use std::collections::BTreeSet;

use vantage::tui::app::{App, Msg};
use vantage::tui::effect::ErrorInfo;
use vantage::tui::registry::SCREENS;

use crate::tui::review_marks::NOW;
use crate::tui::support::{app, asked, key};

#[test]
fn every_answer_the_app_asks_for_has_exactly_one_owner() {
    let mut app = app();
    app.review.enabled = true;
    app.review.snapshot_due = true;
    let mut fetches = asked(&app.start(NOW));
    for position in 1..=SCREENS.len() {
        let digit = char::from_digit(position as u32, 10).expect("a tab key");
        fetches.extend(asked(&app.handle(key(digit), NOW)));
        // Again, now on it: a refresh of what it shows.
        fetches.extend(asked(&app.handle(key('r'), NOW)));
    }
    assert!(fetches.len() > SCREENS.len(), "{} requests", fetches.len());
    let mut owners_seen = BTreeSet::new();
    for fetch in &fetches {
        let Msg::Answer(answer) = fetch.fail(ErrorInfo::local("failed".into(), NOW)) else {
            panic!("{:?} is not answered with an answer", fetch.job);
        };
        let owners = App::owners_of(&answer);
        assert_eq!(owners.len(), 1, "{:?} is claimed by {owners:?}", fetch.slot);
        owners_seen.insert(owners[0]);
    }
    // Each tab's screen got answers of its own, and so did the history.
    assert!(owners_seen.contains("history"), "{owners_seen:?}");
    assert!(owners_seen.len() > SCREENS.len() / 2, "{owners_seen:?}");
}
