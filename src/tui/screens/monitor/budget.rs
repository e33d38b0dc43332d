//! The monitor's share of the request budget. Each round asks once per shown
//! project; with many watched projects the rounds are spaced out so that the
//! monitor spends at most half of the rate limit, and the other half stays in
//! reserve for what the user does next (DESIGN: "The request budget is the user's").
//! A round also waits for room when others (the background snapshot) have
//! spent what the window has left.

use time::{Duration, OffsetDateTime};

use super::{Live, MonitorScreen};

/// The part of the rate limit the monitor may spend, in percent.
const SHARE_PERCENT: u32 = 50;

/// The interval between rounds: the configured one, or longer when
/// `requests_per_round` at that pace would spend more than the monitor's share
/// of `limit`. The window of the limit is taken as one minute: the contract
/// publishes no quota, and a sliding window of that length is the common one.
pub fn stretched(refresh: Duration, requests_per_round: usize, limit: Option<u32>) -> Duration {
    let Some(limit) = limit.filter(|limit| *limit > 0) else {
        return refresh;
    };
    let per_minute = (limit * SHARE_PERCENT / 100).max(1);
    let requests = requests_per_round.max(1) as u64;
    let per_minute = u64::from(per_minute);
    let shortest = Duration::seconds((60 * requests).div_ceil(per_minute) as i64);
    refresh.max(shortest)
}

/// How long a round of `requests` waits after a rate-limit report that left
/// `remaining` of `limit`: nothing when its share of what remains covers the
/// round, else the time the monitor's share of the limit takes to give back
/// the shortfall. What remains counts every request of the key in the window,
/// the background snapshot's too, so a round does not run into a 429 or a
/// paced wait behind a walk that spent the budget.
pub fn wait_for_room(requests: usize, remaining: u32, limit: u32) -> Duration {
    let room = u64::from(remaining) * u64::from(SHARE_PERCENT) / 100;
    let shortfall = (requests as u64).saturating_sub(room);
    if shortfall == 0 || limit == 0 {
        return Duration::ZERO;
    }
    let per_minute = u64::from((limit * SHARE_PERCENT / 100).max(1));
    Duration::seconds((60 * shortfall).div_ceil(per_minute) as i64)
}

impl MonitorScreen {
    /// The client reported the rate limit, and what is left of it at `now`.
    pub fn set_rate_limit(&mut self, remaining: u32, limit: u32, now: OffsetDateTime) {
        self.rate_limit = Some(limit);
        self.remaining = Some((remaining, now));
    }

    /// Until when a round of `requests` waits for room in the budget, if it must.
    pub(super) fn room_at(&self, requests: usize, now: OffsetDateTime) -> Option<OffsetDateTime> {
        let (remaining, reported) = self.remaining?;
        let at = reported + wait_for_room(requests, remaining, self.rate_limit?);
        (at > now).then_some(at)
    }

    /// The interval between rounds: the configured one, stretched when the
    /// shown projects would spend more than the monitor's share of the budget.
    pub fn effective_refresh(&self) -> Duration {
        // Never-published projects are asked rarely: they do not count.
        let shown = self.shown();
        let polled = shown[self.on_screen(shown.len())]
            .iter()
            .filter(|project| {
                !self
                    .live
                    .get(&project.id)
                    .is_some_and(Live::never_published)
            })
            .count();
        stretched(self.refresh, polled, self.rate_limit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_round_waits_for_room_that_others_spent() {
        assert_eq!(wait_for_room(6, 120, 120), Duration::ZERO, "a fresh window");
        assert_eq!(wait_for_room(6, 12, 120), Duration::ZERO, "half of 12 is 6");
        // The snapshot left 2: the round's share is 1, five short at 60 a minute.
        assert_eq!(wait_for_room(6, 2, 120), Duration::seconds(5));
        assert_eq!(wait_for_room(6, 0, 120), Duration::seconds(6));
        assert_eq!(wait_for_room(1, 0, 1), Duration::seconds(60));
    }

    #[test]
    fn many_watched_projects_stretch_the_refresh_to_half_the_limit() {
        let five = Duration::seconds(5);
        assert_eq!(stretched(five, 12, None), five, "no limit known yet");
        assert_eq!(stretched(five, 1, Some(120)), five);
        assert_eq!(stretched(five, 5, Some(120)), five, "60 a minute fits");
        assert_eq!(stretched(five, 12, Some(120)), Duration::seconds(12));
        assert_eq!(stretched(five, 12, Some(1)), Duration::seconds(720));
    }
}
