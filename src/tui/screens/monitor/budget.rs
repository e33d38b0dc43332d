//! The monitor's share of the request budget. Each round asks once per shown
//! project; with many watched projects the rounds are spaced out so that the
//! monitor spends at most half of the rate limit, and the other half stays in
//! reserve for what the user does next (DESIGN: "The request budget is the user's").

use time::Duration;

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

#[cfg(test)]
mod tests {
    use super::*;

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
