//! Issue 22 item 9, the dashboard's deploy poll: it ends on a status vantage
//! does not know, naming it, and stops after the wait's timeout (the CLI's
//! `publish --wait` default, `PollPolicy::default().timeout`) on a deployment
//! that stays `running`.

use time::Duration;
use vantage::api::PollPolicy;
use vantage::tui::app::{App, Msg};
use vantage::tui::screens::project::{DEPLOYMENT, WRITE};

use crate::tui::project::{app_with, deployment, inventory, open_selected, render, screen};
use crate::tui::support::NOW;
use crate::tui::support::{key, only};

/// Publishes the first project; the 202 answers a running deployment.
fn publish(app: &mut App) {
    inventory(app);
    open_selected(app, 0);
    app.handle(key('p'), NOW);
    let effects = app.handle(key('w'), NOW);
    let write = only(&effects, WRITE);
    app.handle(write.ok(deployment("running")), NOW);
}

/// Wakes at the next poll and answers it with `status`.
fn poll(app: &mut App, status: &str) {
    let due = app.wake_at().expect("a poll is scheduled");
    let poll = only(&app.handle(Msg::Wake, due), DEPLOYMENT);
    app.handle(poll.ok(deployment(status)), due);
}

#[test]
fn a_deployment_in_a_status_vantage_does_not_know_ends_the_poll_and_is_named() {
    let mut app = app_with(false);
    publish(&mut app);
    poll(&mut app, "running");
    poll(&mut app, "cancelled");
    assert_eq!(app.wake_at(), None, "no more polls");
    let shown = render(&app, 140, 35);
    assert!(
        shown.contains("ended in status \"cancelled\", which vantage does not know"),
        "{shown}"
    );
    assert!(!shown.contains("checks every"), "{shown}");
}

#[test]
fn a_deployment_running_forever_stops_at_the_wait_timeout() {
    let mut app = app_with(false);
    publish(&mut app);
    let timeout = Duration::try_from(PollPolicy::default().timeout).unwrap();
    let mut polls = 0;
    while let Some(due) = app.wake_at() {
        assert!(
            due <= NOW + timeout + Duration::seconds(10),
            "polled at {due}, past the timeout"
        );
        poll(&mut app, "running");
        polls += 1;
        assert!(polls < 200, "still polling after {polls} polls");
    }
    let watch = screen(&app).deployment.as_ref().unwrap();
    assert!(
        watch.polls >= 50,
        "it polled until the timeout: {}",
        watch.polls
    );
    let shown = render(&app, 140, 35);
    assert!(
        shown.contains("still running after 600 s: no more checks"),
        "{shown}"
    );
}
