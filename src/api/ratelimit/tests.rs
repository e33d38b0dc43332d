use super::*;

#[test]
fn the_reserve_is_a_share_rounded_up_and_at_least_a_few() {
    assert_eq!(Reserve::DASHBOARD.kept(120), 12);
    assert_eq!(Reserve::DASHBOARD.kept(10), 2);
    assert_eq!(Reserve::DASHBOARD.kept(0), 2);
    assert_eq!(Reserve::EXPORTER.kept(10), 3);
    assert_eq!(Reserve::EXPORTER.kept(1), 1);
    assert_eq!(Reserve::EXPORTER.kept(u32::MAX), u32::MAX / 4 + 1);
    assert!(Reserve::DASHBOARD.leaves(13, 120, 0));
    assert!(!Reserve::DASHBOARD.leaves(12, 120, 0));
    assert!(!Reserve::DASHBOARD.leaves(13, 120, 1));
}
use time::macros::datetime;

const T0: OffsetDateTime = datetime!(2026-11-22 12:00:00 UTC);
const MAX: Duration = Duration::from_secs(120);

fn headers(limit: u32, remaining: u32, reset: OffsetDateTime) -> HeaderMap {
    let mut headers = HeaderMap::new();
    headers.insert("x-ratelimit-limit", limit.into());
    headers.insert("x-ratelimit-remaining", remaining.into());
    headers.insert("x-ratelimit-reset", reset.unix_timestamp().into());
    headers
}

#[test]
fn waits_for_reset_instead_of_spending_the_last_slot_twice() {
    let pacer = Pacer::new();
    let reset = T0 + time::Duration::seconds(10);
    let (go, permit) = pacer.admit(T0, MAX, Lane::User);
    assert_eq!(go, Admission::Go);
    pacer.observe(permit.unwrap(), &headers(5, 1, reset), None);
    // One slot left: the first request takes it, the second must wait,
    // first for the first's answer, then (0 left) for the window.
    let (first, first_permit) = pacer.admit(T0, MAX, Lane::User);
    assert_eq!(first, Admission::Go);
    assert_eq!(pacer.admit(T0, MAX, Lane::User).0, Admission::WaitForAnswer);
    pacer.observe(first_permit.unwrap(), &headers(5, 0, reset), None);
    assert_eq!(
        pacer
            .admit(T0 + time::Duration::seconds(4), MAX, Lane::User)
            .0,
        Admission::WaitFor(Duration::from_secs(6))
    );
    // After Reset one probe goes; others wait for its answer.
    let later = reset + time::Duration::milliseconds(1);
    let (probe, probe_permit) = pacer.admit(later, MAX, Lane::User);
    assert_eq!(probe, Admission::Go);
    assert_eq!(
        pacer.admit(later, MAX, Lane::User).0,
        Admission::WaitForAnswer
    );
    drop(probe_permit);
    assert_eq!(pacer.admit(later, MAX, Lane::User).0, Admission::Go);
}

#[test]
fn in_flight_requests_count_against_remaining() {
    let pacer = Pacer::new();
    let reset = T0 + time::Duration::seconds(60);
    let (_, first) = pacer.admit(T0, MAX, Lane::User);
    let (_, second) = pacer.admit(T0, MAX, Lane::User);
    // The first answer says 3 left, but the second request is still out.
    let seen = pacer
        .observe(first.unwrap(), &headers(10, 3, reset), None)
        .unwrap();
    assert_eq!(seen.remaining, 2);
    drop(second);
}

/// Issue 35, item 18: with latency of 0.3 to 2.5 s answers cross; an
/// earlier request answered last must not raise `Remaining` again, or
/// the walk and the dashboard together spend slots that are gone.
#[test]
fn a_late_answer_to_an_earlier_request_never_raises_remaining() {
    let pacer = Pacer::new();
    let reset = T0 + time::Duration::seconds(60);
    let (_, earlier) = pacer.admit(T0, MAX, Lane::User);
    let (_, newer) = pacer.admit(T0, MAX, Lane::User);
    // The newer request is answered first: 1 left, less the earlier one,
    // still out, which may not have been counted yet.
    pacer.observe(newer.unwrap(), &headers(120, 1, reset), None);
    assert_eq!(pacer.state().map(|state| state.remaining), Some(0));
    // The earlier one arrives late with what was left when it was
    // counted (2: before the newer one). The least count stands: 1.
    pacer.observe(earlier.unwrap(), &headers(120, 2, reset), None);
    assert_eq!(pacer.state().map(|state| state.remaining), Some(1));
    let (last, _last) = pacer.admit(T0, MAX, Lane::User);
    assert_eq!(last, Admission::Go);
    assert_eq!(
        pacer.admit(T0, MAX, Lane::User).0,
        Admission::WaitForAnswer,
        "no slot the late answer claimed is spent"
    );
}

/// The last answer of a burst may be the first request the service
/// counted (it travelled on a new connection): its count is not the
/// window's. Answers that came back with 3, 1, 0, then 2 leave 0, and
/// the next request waits for the window (it went, and met a 429).
#[test]
fn the_least_count_of_the_window_stands_whatever_order_answers_come_in() {
    let pacer = Pacer::new();
    let reset = T0 + time::Duration::seconds(60);
    let permits: Vec<_> = (0..4)
        .map(|_| pacer.admit(T0, MAX, Lane::User).1.unwrap())
        .collect();
    for (permit, left) in permits.into_iter().zip([3, 1, 0, 2]) {
        pacer.observe(permit, &headers(10, left, reset), None);
    }
    assert_eq!(pacer.state().map(|state| state.remaining), Some(0));
    assert_eq!(
        pacer.admit(T0, MAX, Lane::User).0,
        Admission::WaitFor(Duration::from_secs(60))
    );
    // A new window's count is taken as it comes.
    let later = reset + time::Duration::seconds(1);
    let (_, probe) = pacer.admit(later, MAX, Lane::User);
    let next = later + time::Duration::seconds(60);
    pacer.observe(probe.unwrap(), &headers(10, 9, next), None);
    assert_eq!(pacer.state().map(|state| state.remaining), Some(9));
}

/// Background requests out when an answer comes are all taken off its
/// `Remaining`, though the service counted some of them before it: the
/// count reads 0 with slots left. The user's request then waits for
/// their answers, which set the count anew, not for the window (it did,
/// a minute, in one run of six beside a busy test).
#[test]
fn the_users_request_waits_for_answers_out_before_the_window() {
    let pacer = Pacer::new();
    let reset = T0 + time::Duration::seconds(60);
    let background = Lane::Background {
        reserve: Reserve::DASHBOARD,
    };
    let (_, first) = pacer.admit(T0, MAX, background);
    pacer.observe(first.unwrap(), &headers(20, 8, reset), None);
    let out: Vec<_> = (0..5)
        .map(|_| pacer.admit(T0, MAX, background).1.unwrap())
        .collect();
    let mut out = out.into_iter();
    // The service counted all five before it answered the first: 3 left.
    pacer.observe(out.next().unwrap(), &headers(20, 3, reset), None);
    assert_eq!(pacer.state().map(|state| state.remaining), Some(0));
    assert_eq!(pacer.admit(T0, MAX, Lane::User).0, Admission::WaitForAnswer);
    // The last answer out says what is left: the user's request goes.
    let last = out.next_back().unwrap();
    drop(out);
    pacer.observe(last, &headers(20, 3, reset), None);
    assert_eq!(pacer.admit(T0, MAX, Lane::User).0, Admission::Go);
}

#[test]
fn attempts_without_an_answer_leave_remaining_as_last_seen() {
    let pacer = Pacer::new();
    let reset = T0 + time::Duration::seconds(60);
    let (_, permit) = pacer.admit(T0, MAX, Lane::User);
    pacer.observe(permit.unwrap(), &headers(120, 113, reset), None);
    // An outage: every attempt goes, none reaches the service.
    for _ in 0..200 {
        let (go, permit) = pacer.admit(T0, MAX, Lane::User);
        assert_eq!(go, Admission::Go);
        permit.unwrap().unsent();
    }
    assert_eq!(pacer.state().map(|s| s.remaining), Some(113));
}

/// Issue 35, item 18: a request cut while it travelled was counted by
/// the service; its slot is not handed out again.
#[test]
fn a_request_cut_in_flight_keeps_its_slot_spent() {
    let pacer = Pacer::new();
    let reset = T0 + time::Duration::seconds(60);
    let (_, permit) = pacer.admit(T0, MAX, Lane::User);
    pacer.observe(permit.unwrap(), &headers(120, 3, reset), None);
    for _ in 0..3 {
        let (go, permit) = pacer.admit(T0, MAX, Lane::User);
        assert_eq!(go, Admission::Go);
        drop(permit);
    }
    assert_eq!(
        pacer.admit(T0, MAX, Lane::User).0,
        Admission::WaitFor(Duration::from_secs(60))
    );
}

#[test]
fn background_requests_leave_the_reserve_to_the_user() {
    let pacer = Pacer::new();
    let reset = T0 + time::Duration::seconds(30);
    let tenth = Reserve {
        percent: 10,
        at_least: 0,
    };
    let background = Lane::Background { reserve: tenth };
    let (_, permit) = pacer.admit(T0, MAX, background);
    pacer.observe(permit.unwrap(), &headers(20, 4, reset), None);
    // Two background requests in flight take the window to the reserve.
    let (first, _first) = pacer.admit(T0, MAX, background);
    let (second, _second) = pacer.admit(T0, MAX, background);
    assert_eq!((first, second), (Admission::Go, Admission::Go));
    assert_eq!(
        pacer.admit(T0, MAX, background).0,
        Admission::WaitFor(Duration::from_secs(30))
    );
    // The user's requests still go, down to the last slot.
    let (user, _user) = pacer.admit(T0, MAX, Lane::User);
    assert_eq!(user, Admission::Go);
    let (user, _last) = pacer.admit(T0, MAX, Lane::User);
    assert_eq!(user, Admission::Go);
    // None left, requests out: their answers say more than the window would.
    assert_eq!(pacer.admit(T0, MAX, Lane::User).0, Admission::WaitForAnswer);
}

#[test]
fn a_refusal_blocks_until_retry_after() {
    let pacer = Pacer::new();
    let (_, permit) = pacer.admit(T0, MAX, Lane::User);
    pacer.observe(
        permit.unwrap(),
        &HeaderMap::new(),
        Some((T0, Duration::from_secs(3))),
    );
    assert_eq!(
        pacer.admit(T0, MAX, Lane::User).0,
        Admission::WaitFor(Duration::from_secs(3))
    );
    // A wait beyond the cap is not waited: a skewed clock or a hostile
    // reset cannot stall the client; one probe goes instead.
    let (probe, probe_permit) = pacer.admit(T0, Duration::from_secs(1), Lane::User);
    assert_eq!(probe, Admission::Go);
    assert_eq!(
        pacer.admit(T0, Duration::from_secs(1), Lane::User).0,
        Admission::WaitForAnswer
    );
    drop(probe_permit);
    // A refusal whose X-RateLimit-Reset lies far later (another limit, or
    // the server's clock ahead of ours) still waits only for Retry-After.
    let later = T0 + time::Duration::seconds(10);
    let (go, permit) = pacer.admit(later, MAX, Lane::User);
    assert_eq!(go, Admission::Go);
    pacer.observe(
        permit.unwrap(),
        &headers(120, 90, later + time::Duration::hours(5)),
        Some((later, Duration::from_secs(1))),
    );
    assert_eq!(
        pacer.admit(later, MAX, Lane::User).0,
        Admission::WaitFor(Duration::from_secs(1))
    );
    assert_eq!(
        pacer
            .admit(later + time::Duration::seconds(1), MAX, Lane::User)
            .0,
        Admission::Go
    );
}
